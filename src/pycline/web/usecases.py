"""The saved-task use cases as the UI's API needs them: the app's use cases (`app.tasks`,
`app.checkpoints`) shaped as JSON, plus the history's sorts and filters and the @ menu's search."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pycline.app.services import menus
from pycline.app.services.checkpoints import CheckpointError, label_of
from pycline.app.services.slash_commands import SlashCommand, workflows
from pycline.app.services.tasks import Tasks

Sort = Literal["newest", "oldest", "cost", "tokens"]
RestoreMode = Literal["both", "workspace", "task"]
SORT_KEYS: dict[str, Any] = {
    "newest": lambda r: -r.ts,
    "oldest": lambda r: r.ts,
    "cost": lambda r: -r.total_cost,
    "tokens": lambda r: -(r.tokens_in + r.tokens_out),
}


def history(
    home: Path,
    *,
    search: str = "",
    sort: str = "newest",
    workspace: str | None = None,
    favorites_only: bool = False,
    limit: int = 500,
) -> list[dict[str, Any]]:
    where = Path(workspace) if workspace else None
    records = Tasks(home).records(
        search=search, workspace=where, favorites_only=favorites_only, limit=limit
    )
    records.sort(key=SORT_KEYS.get(sort, SORT_KEYS["newest"]))
    return [r.to_json() for r in records]


def export(home: Path, task_id: str, workspace: Path) -> str:
    return Tasks(home).export(task_id, workspace=workspace).markdown


async def delete(home: Path, task_id: str) -> None:
    await Tasks(home).delete(task_id)


def favorite(home: Path, task_id: str, value: bool) -> None:
    Tasks(home).set_favorite(task_id, value)


async def checkpoints(home: Path, task_id: str, workspace: Path) -> list[dict[str, Any]]:
    from pycline.app.services.checkpoints import Checkpoints

    found = await Checkpoints(home).list(task_id, workspace=workspace)
    return [
        {"commit": c.commit, "time": c.created_at.isoformat(), "label": label_of(c.message)}
        for c in found.checkpoints
    ]


def _exact(commit: str) -> str:
    """Only a whole commit id names a checkpoint here (never a number or a short prefix)."""
    if len(commit) < 40 or not all(ch in "0123456789abcdef" for ch in commit):
        raise CheckpointError(f"{commit[:12]!r} is not a checkpoint id.")
    return commit


async def compare(home: Path, task_id: str, commit: str, workspace: Path) -> list[dict[str, Any]]:
    """What changed in the workspace since the checkpoint (Cline's Compare)."""
    from pycline.app.services.checkpoints import Checkpoints

    diff = await Checkpoints(home).diff(task_id, _exact(commit), workspace=workspace)
    out = []
    for change in diff.changes:
        text = change.unified_diff
        lines = text.splitlines()
        added = sum(1 for x in lines if x.startswith("+") and not x.startswith("+++"))
        removed = sum(1 for x in lines if x.startswith("-") and not x.startswith("---"))
        out.append(
            {
                "path": change.path,
                "status": change.status,
                "diff": text,
                "added": added,
                "removed": removed,
            }
        )
    return out


async def restore(
    home: Path, task_id: str, commit: str, mode: RestoreMode, workspace: Path
) -> dict[str, Any]:
    """Files & Task, Files Only or Task Only: as `pycline restore` does."""
    from pycline.app.services.checkpoints import Checkpoints

    done = await Checkpoints(home).restore(task_id, _exact(commit), mode, workspace=workspace)
    result: dict[str, Any] = {}
    if done.files is not None:
        result.update(
            written=done.files.written,
            deleted=done.files.deleted,
            skipped=list(done.files.skipped),
            undo=done.undo,
        )
    if done.conversation is not None:
        result["messages_removed"] = done.conversation.api_messages_removed
    return result


def rewind_before_message(home: Path, task_id: str, ts: float, text: str) -> int:
    return Tasks(home).rewind_before_message(task_id, ts, text)


def command_menu(commands: list[SlashCommand]) -> list[dict[str, str]]:
    """The / menu: the same commands as the terminal's /help (`app.slash_commands`)."""
    return [
        {"name": c.name, "usage": c.usage, "help": c.help, "source": c.source} for c in commands
    ]


def workflow_menu(found: list[menus.Workflow]) -> list[dict[str, str]]:
    """The / menu's workflows."""
    return command_menu(workflows(found))


def find_files(root: Path, query: str) -> list[dict[str, str]]:
    return menus.find_files(root, query)
