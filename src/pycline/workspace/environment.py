"""Environment details (SPEC §6) appended to every user message."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from pycline.workspace.names import shown_name


@dataclass(frozen=True, slots=True)
class EnvironmentInfo:
    mode: str  # "act" | "plan"
    context_tokens: int
    context_window: int
    first_request: bool
    recently_modified: tuple[str, ...] = ()
    terminals: str = ""  # background processes and their output since the last message


def environment_details(
    root: Path, info: EnvironmentInfo, *, now: dt.datetime | None = None
) -> str:
    now = now or dt.datetime.now().astimezone()
    offset = now.strftime("%z")
    offset = f"{offset[:3]}:{offset[3:]}" if offset else "+00:00"
    lines = ["<environment_details>"]
    if info.recently_modified:
        lines.append("# Recently Modified Files")
        lines.append("Changed outside this task since you last used them; re-read before editing:")
        lines.extend(shown_name(path) for path in info.recently_modified)
        lines.append("")
    if info.terminals:
        lines.append("# Actively Running Terminals")
        lines.append(info.terminals)
        lines.append("")
    lines.append("# Current Time")
    # To the minute: seconds tell the model nothing and only make every turn's text differ.
    lines.append(f"{now.strftime('%Y-%m-%d %H:%M')} ({now.tzname() or 'local'}, UTC{offset})")
    lines.append("")
    if info.context_window:
        pct = round(100 * info.context_tokens / info.context_window)
        lines.append("# Context Window Usage")
        lines.append(
            f"{info.context_tokens:,} / {info.context_window // 1000:,}K tokens used ({pct}%)"
        )
        lines.append("")
    if info.first_request:
        lines.append(f"# Current Working Directory ({root}) Files")
        lines.append(_listing(root))
        lines.append("")
    lines.append("# Current Mode")
    lines.append("PLAN MODE" if info.mode == "plan" else "ACT MODE")
    lines.append("</environment_details>")
    return "\n".join(lines)


def _listing(root: Path) -> str:
    if root == Path.home() or root == Path(root.anchor):
        # Listing a home or root folder is slow and says little about a project.
        return "(Desktop or home folder: no listing. Use list_files to explore.)"
    from pycline.workspace.listing import format_listing, list_workspace

    entries, truncated = list_workspace(root, recursive=True, limit=200)
    if not entries:
        return "No files found."
    return format_listing(entries, truncated)
