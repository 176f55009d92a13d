"""Tasks saved before the event log: their `ui_messages.json` read back as events.

Earlier versions kept only Cline's message log. Its messages become the events they were made
from, so an old task reopens through the same replay as a new one; what the log never held (an
edit's diff before its approval, the context window) is simply absent. Messages that cannot be
read are skipped, never fatal: the file may be damaged or written by hand.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence
from typing import Any

from pycline.events import (
    Answer,
    ApprovalQuestion,
    BudgetQuestion,
    CheckpointCreated,
    CompletionQuestion,
    CompletionResult,
    ErrorEvent,
    ErrorRetryQuestion,
    Event,
    FollowupQuestion,
    MistakeLimitQuestion,
    ModeChanged,
    Notice,
    PlanQuestion,
    PlanResponse,
    Question,
    QuestionAnswered,
    QuestionAsked,
    ReasoningDelta,
    SubagentProgress,
    TaskStarted,
    TextDone,
    ToolFinished,
    ToolOutput,
    ToolStarted,
    Usage,
)
from pycline.messages import UiMessage
from pycline.parsing.checklist import progress_event
from pycline.storage.layout import CALL_ID_KEY, CHECKPOINT_KIND, HASH_KEY

RESTORED = "The conversation was restored to a checkpoint; later messages were removed."
# Only raster images in base64 data URLs are shown: the file may have been written by anyone.
_SAFE_IMAGE = re.compile(r"data:image/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*")
MAX_IMAGES = 8


def events_from_ui(task_id: str, messages: Sequence[UiMessage]) -> list[tuple[float, Event]]:
    """(time, event) for each message of a saved UI log that stands for one."""
    reader = _Reader(task_id)
    for m in messages:
        reader.read(m)
    return reader.out


class _Reader:
    def __init__(self, task_id: str) -> None:
        self.task_id = task_id
        self.asked = 0
        self.open_question = ""
        self.total_cost = 0.0
        self.out: list[tuple[float, Event]] = []

    def read(self, m: UiMessage) -> None:
        self.out += [(m.ts, e) for e in self._read(m)]

    def _read(self, m: UiMessage) -> list[Event]:
        if m.type == "ask":
            question = _question(m)
            if question is None:
                return []
            self.asked += 1
            self.open_question = f"{self.task_id}-saved-q{self.asked}"
            return [QuestionAsked(self.open_question, question)]
        match m.kind:
            case "user_feedback":
                answer = Answer(_str(m.extra.get("option")), m.text, tuple(_images(m)))
                if not self.open_question:
                    ts, last = self.out[-1] if self.out else (0.0, None)
                    if isinstance(last, TaskStarted) and last.resumed and not last.message:
                        # What the user typed to resume the task with.
                        self.out[-1] = (ts, dataclasses.replace(last, message=m.text))
                        return []
                    return [Notice(m.text)] if m.text.strip() else []
                asked, self.open_question = self.open_question, ""
                return [QuestionAnswered(asked, answer)]
            case "api_req_started":
                data = _json(m.text)
                t_in, t_out = _int(data.get("tokensIn")), _int(data.get("tokensOut"))
                writes, reads = _int(data.get("cacheWrites")), _int(data.get("cacheReads"))
                cost = _float(data.get("cost"))
                self.total_cost += cost
                used = t_in + t_out + writes + reads
                return [Usage(t_in, t_out, writes, reads, cost, self.total_cost, used, 0)]
            case _:
                event = _said(self.task_id, m)
                return [event] if event is not None else []


def _said(task_id: str, m: UiMessage) -> Event | None:
    match m.kind:
        case "task" | "resume_task":
            return TaskStarted(task_id, m.text, "", resumed=m.kind == "resume_task")
        case "text":
            return TextDone(m.text)
        case "reasoning":
            return ReasoningDelta(m.text)
        case "tool":
            data = _json(m.text)
            tool, summary = _str(data.get("tool")), _str(data.get("summary"))
            return ToolStarted(tool, summary, _str(m.extra.get(CALL_ID_KEY)))
        case "tool_result":
            ok = m.extra.get("ok", True) is not False
            return ToolFinished(_str(m.extra.get("tool")), "", ok, m.text, "", tuple(_images(m)))
        case "command_output":
            return ToolOutput(m.text)
        case "info":
            return Notice(m.text)
        case "error":
            return ErrorEvent(m.text)
        case "completion_result":
            command = m.extra.get("command")
            return CompletionResult(m.text, command if isinstance(command, str) else None)
        case "plan_mode_respond":
            return PlanResponse(m.text)
        case "mode_changed":
            return ModeChanged(m.text, _str(m.extra.get("model")))
        case "task_progress":
            return progress_event(m.text)
        case "subagent":
            d = _json(m.text)
            return SubagentProgress(
                index=_int(d.get("index")), total=_int(d.get("total")),
                prompt=_str(d.get("prompt")), status=_str(d.get("status")),
                tokens_in=_int(d.get("tokensIn")), tokens_out=_int(d.get("tokensOut")),
                cost=_float(d.get("cost")), child_task_id=_str(d.get("taskId")),
                agent=_str(d.get("agent")), tool_calls=_int(d.get("toolCalls")),
            )  # fmt: skip
        case "deleted_api_reqs":
            return Notice(RESTORED)
        case kind if kind == CHECKPOINT_KIND:
            commit = m.extra.get(HASH_KEY)
            if not isinstance(commit, str) or not commit:
                return None  # its commit was never made (the process ended while it was taken)
            return CheckpointCreated(commit, "", _str(m.extra.get(CALL_ID_KEY)))
        case _:
            return None


def _question(m: UiMessage) -> Question | None:
    match m.kind:
        case "followup":
            data = _json(m.text)
            options = data.get("options")
            labels = (
                tuple(o for o in options if isinstance(o, str)) if isinstance(options, list) else ()
            )
            return FollowupQuestion.suggesting(_str(data.get("question")) or m.text, labels)
        case "tool" | "command":
            data = _json(m.text)
            tool = _str(data.get("tool")) or ("execute_command" if m.kind == "command" else "")
            return ApprovalQuestion(tool, _str(data.get("summary")), _str(data.get("preview")))
        case "completion_result":
            return CompletionQuestion(m.text)
        case "mistake_limit_reached":
            return MistakeLimitQuestion(_int(m.text))
        case "api_req_failed":
            return ErrorRetryQuestion(m.text)
        case "budget_limit_reached":
            d = _json(m.text)
            return BudgetQuestion(
                _str(d.get("scope")),
                _str(d.get("unit")),
                _float(d.get("spent")),
                _float(d.get("cap")),
            )
        case "plan_mode_respond":
            return PlanQuestion(_str(_json(m.text).get("response")))
        case _:
            return None


def _images(m: UiMessage) -> list[str]:
    saved = m.extra.get("images")
    if not isinstance(saved, list):
        return []
    return [i for i in saved if isinstance(i, str) and _SAFE_IMAGE.fullmatch(i)][:MAX_IMAGES]


def _json(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _int(value: object) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return 0


def _float(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0
