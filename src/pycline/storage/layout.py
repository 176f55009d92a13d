"""The files of a task folder (SPEC §9: Cline's names) and of the tasks folder."""

from __future__ import annotations

from typing import Final

API_HISTORY: Final = "api_conversation_history.json"
UI_MESSAGES: Final = "ui_messages.json"
CONTEXT_HISTORY: Final = "context_history.json"
METADATA: Final = "task_metadata.json"
# A task folder being deleted is renamed first (atomic), so a kill never leaves half a task.
TRASH_PREFIX: Final = ".deleted-"
