"""Cut a saved task's conversation back to one of its checkpoints (SPEC §10, restore *task*).

The `checkpoint_created` UI message records `conversationHistoryIndex`: the last API message at
checkpoint time. The tool result that followed it is kept too (it belongs to that turn), and the
UI log is cut right after the checkpoint message. Tokens and cost of the removed requests stay in
the task's record and are summed into a `deleted_api_reqs` message, as Cline does.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from pycline.errors import StorageError
from pycline.messages import Message, UiMessage
from pycline.storage.layout import CALL_ID_KEY as CALL_ID_KEY
from pycline.storage.layout import CHECKPOINT_KIND as CHECKPOINT_KIND
from pycline.storage.layout import HASH_KEY as HASH_KEY
from pycline.storage.layout import INDEX_KEY as INDEX_KEY
from pycline.storage.layout import INDEX_TS_KEY as INDEX_TS_KEY
from pycline.storage.task_store import TaskFolder

_METRICS = ("tokensIn", "tokensOut", "cacheWrites", "cacheReads", "cost")


@dataclass(frozen=True, slots=True)
class Rewound:
    api_messages_removed: int
    ui_messages_removed: int


def checkpoint_message(messages: list[UiMessage], commit: str) -> int | None:
    """Index of the UI message that recorded checkpoint `commit` (a full commit id)."""
    for i, m in enumerate(messages):
        if m.kind == CHECKPOINT_KIND and m.extra.get(HASH_KEY) == commit:
            return i
    return None


def _cut_point(ui: list[UiMessage], api: list[Message], commit: str) -> tuple[int, int]:
    """(UI index of the checkpoint message, API index of its last message); StorageError when
    the conversation cannot be cut back to `commit`."""
    at = checkpoint_message(ui, commit)
    if at is None:
        raise StorageError(
            f"Checkpoint {commit[:10]} has no place in the conversation (it was not made during "
            "a turn of this task); only the workspace can be restored to it."
        )
    index = ui[at].extra.get(INDEX_KEY)
    if not isinstance(index, int) or isinstance(index, bool) or index < -1:
        raise StorageError(f"Checkpoint {commit[:10]} has no valid conversation position.")
    recorded = ui[at].extra.get(INDEX_TS_KEY)
    if index >= len(api) or (index >= 0 and recorded is not None and api[index].ts != recorded):
        raise StorageError(
            f"The conversation was condensed after checkpoint {commit[:10]}, so it cannot be cut "
            "back to it; only the workspace can be restored."
        )
    return at, index


def check(folder: TaskFolder, commit: str) -> None:
    """Raise StorageError unless `rewind(folder, commit)` can be done (changes nothing)."""
    _cut_point(folder.load_ui_messages(), folder.load_api_history(), commit)


def rewind(folder: TaskFolder, commit: str) -> Rewound:
    ui = folder.load_ui_messages()
    api = folder.load_api_history()
    at, index = _cut_point(ui, api, commit)
    return _cut(folder, ui, api, keep_ui=at + 1, keep_api=index + 2)


def rewind_before(folder: TaskFolder, at: int) -> Rewound:
    """Cut the task back to just before UI message `at` (a message of the user's, to be edited
    and sent again): the model's history keeps what was said before that message's time."""
    ui = folder.load_ui_messages()
    api = folder.load_api_history()
    if not 0 < at < len(ui):
        raise StorageError("That message has no place in the task to go back to.")
    if any(m.ts is None for m in api):
        raise StorageError("This task's saved messages carry no times; restore a checkpoint.")
    when = ui[at].ts
    keep_api = next((i for i, m in enumerate(api) if m.ts is not None and m.ts >= when), len(api))
    if keep_api == 0:
        raise StorageError("The task has nothing before that message to go back to.")
    return _cut(folder, ui, api, keep_ui=at, keep_api=keep_api)


def _cut(
    folder: TaskFolder, ui: list[UiMessage], api: list[Message], *, keep_ui: int, keep_api: int
) -> Rewound:
    kept_api = api[:keep_api]
    removed_ui = ui[keep_ui:]
    totals = dict.fromkeys(_METRICS, 0.0)
    for m in removed_ui:
        if m.kind == "api_req_started":
            try:
                data = json.loads(m.text)
            except json.JSONDecodeError:
                continue
            for key in _METRICS:
                value = data.get(key) if isinstance(data, dict) else None
                if isinstance(value, int | float) and not isinstance(value, bool):
                    totals[key] += value
    tally = UiMessage(
        ts=time.time(),
        type="say",
        kind="deleted_api_reqs",
        text=json.dumps({k: (v if k == "cost" else int(v)) for k, v in totals.items()}),
    )
    kept_ui = [*ui[:keep_ui], tally]
    record = folder.load_record()
    # API history first: if we are killed before the task's log is cut, the task still resumes
    # from the right point (the log is only what the user reads); Cline's UI log is its copy.
    folder.save_api_history(kept_api)
    folder.cut_events(keep_ui, tally)
    folder.save_ui_messages(kept_ui)
    # Trimming state refers to message positions that may be gone now.
    folder.save_context({})
    record.status = "restored"
    record.ts = time.time()
    folder.save_record(record)  # tokens and cost are kept: they were spent
    return Rewound(len(api) - len(kept_api), len(removed_ui))
