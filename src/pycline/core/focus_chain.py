"""The focus chain: the task's Markdown checklist, kept up to date by the model (`task_progress`).

Every tool but a few takes an optional `task_progress`. A non-empty value replaces the list, is
saved beside the task (`focus_chain_taskid_<id>.md`, Cline's name) and shown to the user. The user
may edit that file; the edit wins and the model is told. A reminder to update the list is added to
the user message when the list is missing, after the configured number of requests without an
update, in Plan mode, just after the switch to Act, and after a user edit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from pycline.core.capability import Capability, RunContext, Stop
from pycline.core.modes import Mode
from pycline.events import TaskProgress
from pycline.messages import Content, TextContent
from pycline.parsing.checklist import ITEM as _ITEM
from pycline.parsing.checklist import items as items
from pycline.parsing.checklist import progress_event as progress_event
from pycline.storage.atomic import atomic_write_text
from pycline.tools.base import ToolCall

DEFAULT_INTERVAL: Final = 6
REMINDER_HEADING: Final = "# Task progress"


@dataclass(frozen=True, slots=True)
class FocusSettings:
    enabled: bool = True
    remind_interval: int = DEFAULT_INTERVAL  # requests without an update before a reminder


@dataclass(slots=True)
class FocusChain(Capability):
    settings: FocusSettings = field(default_factory=FocusSettings)
    file: Path | None = None  # where the list is kept; None: in memory only
    checklist: str = ""
    _since_update: int = 0
    _requests: int = 0
    _written: str = ""
    _user_edited: bool = False
    _switched_to_act: bool = False

    def load(self) -> None:
        """Pick up the list saved with a resumed task."""
        text = self._read_file()
        if text is not None:
            self.checklist = _list_part(text)
            self._written = text

    def update(self, value: str | None) -> TaskProgress | None:
        """A tool call's `task_progress`: a list with at least one item replaces the current one."""
        if not self.settings.enabled or value is None or not items(value):
            return None
        self.checklist = value.strip()
        self._since_update = 0
        self._user_edited = False
        self._save()
        return progress_event(self.checklist)

    def switched_to_act(self) -> None:
        self._switched_to_act = True

    # --- as a capability: a reminder before requests, the list from calls and summaries ----------

    async def before_request(self, ctx: RunContext) -> list[Content] | Stop:
        note, edited = self.reminder(mode=ctx.mode)
        if edited is not None:
            ctx.say(edited)
        return [TextContent(note)] if note else []

    async def after_tool(
        self, ctx: RunContext, call: ToolCall, result: str, ok: bool, ms: int
    ) -> str:
        if (progress := self.update(call.params.get("task_progress"))) is not None:
            ctx.say(progress)
        return ""

    def compacted(self, ctx: RunContext, progress: str) -> None:
        if (shown := self.update(progress or None)) is not None:
            ctx.say(shown)

    def mode_changed(self, ctx: RunContext, mode: Mode) -> None:
        if mode == "act":
            self.switched_to_act()

    def reminder(self, *, mode: str) -> tuple[str, TaskProgress | None]:
        """The note for the next request ("" when none is due) and, after a user edit, the list
        as the user left it."""
        if not self.settings.enabled:
            return "", None
        edited = self._pick_up_edit()
        self._since_update += 1
        self._requests += 1
        due = (
            mode == "plan"
            or self._switched_to_act
            or self._user_edited
            or (not self.checklist and self._requests == 1)
            or self._since_update >= self.settings.remind_interval
        )
        if not due:
            return "", edited
        text = self._reminder_text(mode)
        # Reminded: the count starts again, so a model that keeps no list is reminded every
        # interval, not on every request.
        self._since_update = 0
        self._switched_to_act = False
        self._user_edited = False
        return text, edited

    def _reminder_text(self, mode: str) -> str:
        if mode == "plan":
            return (
                "# Task progress (optional in PLAN MODE)\nYou may draft the task's steps as a "
                "checklist in the task_progress parameter of your next tool call."
            )
        if self._switched_to_act:
            return (
                "# Task progress (required)\nYou switched to ACT MODE: include the COMPLETE "
                "checklist of the task's steps in the task_progress parameter of your next tool "
                "call, and keep it updated."
            )
        if not self.checklist:
            return (
                "# Task progress (recommended)\nWhen the task has several steps, include a "
                "checklist (`- [ ] step` lines) in the task_progress parameter of a tool call, "
                "and tick items (`- [x]`) as you finish them."
            )
        listed = items(self.checklist)
        done = sum(1 for d, _ in listed if d)
        share = round(100 * done / len(listed)) if listed else 0
        why = (
            "The user edited this list: follow their version."
            if self._user_edited
            else f"{self._since_update} requests went by without an update."
        )
        return (
            f"# Task progress (update required)\nCurrent Progress: {done}/{len(listed)} items "
            f"completed ({share}%)\n{self.checklist}\n{why} Send the updated list in the "
            "task_progress parameter of your next tool call."
        )

    def _pick_up_edit(self) -> TaskProgress | None:
        text = self._read_file()
        if text is None:
            if self._written:  # the user deleted the file: the list is gone
                self._written = ""
                self.checklist = ""
            return None
        if text == self._written:
            return None
        self._written = text
        self.checklist = _list_part(text)
        self._user_edited = True
        return progress_event(self.checklist)

    def _read_file(self) -> str | None:
        if self.file is None:
            return None
        try:
            return self.file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):  # absent or unreadable: no list on disk
            return None

    def _save(self) -> None:
        if self.file is None:
            return
        task_id = self.file.stem.removeprefix("focus_chain_taskid_")
        text = (
            f"# Focus Chain List for Task {task_id}\n\n"
            "<!-- Edit this list to steer the task; the model is told about your changes. -->\n\n"
            f"{self.checklist}\n"
        )
        atomic_write_text(self.file, text)
        self._written = text


def _list_part(text: str) -> str:
    return "\n".join(line.strip() for line in text.splitlines() if _ITEM.match(line.strip()))
