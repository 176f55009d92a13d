"""A saved task's transcript (`ui_messages.json`) as wire events, so a resumed or reopened task
shows what happened before with the same renderer as live events."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from pycline.events import EVENTS_VERSION
from pycline.messages import UiMessage
from pycline.storage.rewind import CALL_ID_KEY, CHECKPOINT_KIND, HASH_KEY


def _json(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


# The page shows only raster images in base64 data URLs; the saved file is checked the same way.
_SAFE_IMAGE = re.compile(r"data:image/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*")
MAX_IMAGES = 8


def _images(m: UiMessage) -> list[str]:
    saved = m.extra.get("images")
    if not isinstance(saved, list):
        return []
    ok = [i for i in saved if isinstance(i, str) and _SAFE_IMAGE.fullmatch(i)]
    return ok[:MAX_IMAGES]


def _call_id(m: UiMessage) -> str:
    call_id = m.extra.get(CALL_ID_KEY)
    return call_id if isinstance(call_id, str) else ""


def _event(m: UiMessage) -> dict[str, Any] | None:
    match (m.type, m.kind):
        case ("say", "task" | "resume_task"):
            return {"kind": "user_message", "text": m.text}
        case ("say", "text"):
            return {"kind": "text_done", "text": m.text}
        case ("say", "reasoning"):
            return {"kind": "reasoning_done", "text": m.text}
        case ("say", "tool"):
            data = _json(m.text)
            return {
                "kind": "tool_started",
                "tool": str(data.get("tool", "")),
                "summary": str(data.get("summary", "")),
                "tool_call_id": _call_id(m),
            }
        case ("say", "tool_result"):
            return {
                "kind": "tool_finished",
                "tool": str(m.extra.get("tool", "")),
                "summary": "",
                "ok": bool(m.extra.get("ok", True)),
                "result": m.text,
                "images": _images(m),
            }
        case ("say", "command_output"):
            return {"kind": "tool_output", "text": m.text}
        case ("say", "api_req_started"):
            data = _json(m.text)
            return {
                "kind": "saved_usage",
                "input_tokens": int(data.get("tokensIn", 0) or 0),
                "output_tokens": int(data.get("tokensOut", 0) or 0),
                "cache_write_tokens": int(data.get("cacheWrites", 0) or 0),
                "cache_read_tokens": int(data.get("cacheReads", 0) or 0),
                "cost": float(data.get("cost", 0) or 0),
            }
        case ("say", "info"):
            return {"kind": "notice", "text": m.text}
        case ("say", "error"):
            return {"kind": "error", "text": m.text}
        case ("say", "completion_result"):
            return {"kind": "completion_result", "result": m.text, "command": None}
        case ("say", "user_feedback"):
            if not m.text:
                return None
            return {"kind": "user_message", "text": m.text, "editable": True}
        case ("ask", "followup"):
            data = _json(m.text)
            return {"kind": "saved_question", "text": str(data.get("question", ""))}
        case ("say", kind) if kind == CHECKPOINT_KIND:
            commit = m.extra.get(HASH_KEY)
            if not isinstance(commit, str) or not commit:
                return None  # its commit was never made (the process ended while it was taken)
            return {
                "kind": "checkpoint_created",
                "commit": commit,
                "label": "",
                "tool_call_id": _call_id(m),
            }
        case _:
            return None


def saved_events(task_id: str, messages: Sequence[UiMessage]) -> Iterator[dict[str, Any]]:
    for m in messages:
        event = _event(m)
        if event is not None:
            yield {
                "v": EVENTS_VERSION,
                "task_id": task_id,
                "seq": 0,
                "ts": m.ts,
                "saved": True,
                **event,
            }
