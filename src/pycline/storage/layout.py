"""The files of a task folder (SPEC §9: Cline's names) and of the tasks folder."""

from __future__ import annotations

from typing import Final

API_HISTORY: Final = "api_conversation_history.json"
UI_MESSAGES: Final = "ui_messages.json"
CONTEXT_HISTORY: Final = "context_history.json"
METADATA: Final = "task_metadata.json"
# A task folder being deleted is renamed first (atomic), so a kill never leaves half a task.
TRASH_PREFIX: Final = ".deleted-"

# Cline's keys on UI messages: a checkpoint's own message, its commit, the conversation position
# it follows (the last model message then, and that message's time: tells whether the history
# was since replaced by condensing), and the tool call a message belongs to.
CHECKPOINT_KIND: Final = "checkpoint_created"
HASH_KEY: Final = "lastCheckpointHash"
INDEX_KEY: Final = "conversationHistoryIndex"
INDEX_TS_KEY: Final = "conversationHistoryTs"
CALL_ID_KEY: Final = "toolCallId"
