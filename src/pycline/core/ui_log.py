"""The UI message log (`ui_messages.json`): what the user saw and answered, in Cline's shape."""

from __future__ import annotations

import json
import time
from typing import assert_never

from pycline.events import (
    Answer,
    ApprovalQuestion,
    BudgetQuestion,
    BudgetStatus,
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
    RequestStarted,
    SubagentProgress,
    TaskEnded,
    TaskProgress,
    TaskStarted,
    TextDelta,
    TextDone,
    ToolFinished,
    ToolOutput,
    ToolPartial,
    ToolStarted,
    Usage,
)
from pycline.messages import UiMessage
from pycline.storage.rewind import CALL_ID_KEY

# A screenshot of the 900×600 viewport is far below this; a larger image (a big file read as an
# image) is shown live but not copied into the log, which every reopening reads whole.
SAVED_IMAGE_CHARS = 2_000_000


class UiLog:
    def __init__(self, messages: list[UiMessage] | None = None) -> None:
        self.messages: list[UiMessage] = messages if messages is not None else []
        self._reasoning: list[str] = []
        self._output: list[str] = []

    def _add(self, type_: str, kind: str, text: str = "", **extra: object) -> None:
        self.messages.append(
            UiMessage(
                ts=time.time(),
                type="ask" if type_ == "ask" else "say",
                kind=kind,
                text=text,
                extra=dict(extra),
            )
        )

    def record(self, event: Event) -> bool:
        """Add the event; True when the log changed in a way worth saving now."""
        match event:
            case ReasoningDelta(text=text):
                self._reasoning.append(text)
                return False
            case ToolOutput(text=text):
                self._output.append(text)
                return False
            case _:
                pass
        self._flush_buffers()
        match event:
            case TaskStarted(task=task, resumed=resumed):
                self._add("say", "task" if not resumed else "resume_task", task)
            case TextDone(text=text):
                self._add("say", "text", text)
            case ToolStarted(tool=tool, summary=summary, tool_call_id=call_id):
                # The id lets a checkpoint taken later find the turn it belongs to.
                ids = {CALL_ID_KEY: call_id} if call_id else {}
                self._add("say", "tool", json.dumps({"tool": tool, "summary": summary}), **ids)
            case ToolFinished(tool=tool, ok=ok, result=result, images=images):
                # Cline's own `images` field: a reopened task shows the browser's screenshot.
                kept = [i for i in images if len(i) <= SAVED_IMAGE_CHARS]
                shown = {"images": kept} if kept else {}
                self._add("say", "tool_result", result, tool=tool, ok=ok, **shown)
            case Usage() as u:
                self._add(
                    "say",
                    "api_req_started",
                    json.dumps(
                        {
                            "tokensIn": u.input_tokens,
                            "tokensOut": u.output_tokens,
                            "cacheWrites": u.cache_write_tokens,
                            "cacheReads": u.cache_read_tokens,
                            "cost": u.cost,
                        }
                    ),
                )
            case Notice(text=text):
                self._add("say", "info", text)
            case TaskProgress(checklist=checklist):
                self._add("say", "task_progress", checklist)
            case ErrorEvent(text=text):
                self._add("say", "error", text)
            case CompletionResult(result=result, command=command):
                self._add(
                    "say", "completion_result", result, **({"command": command} if command else {})
                )
            case PlanResponse(response=response):
                self._add("say", "plan_mode_respond", response)
            case ModeChanged(mode=mode, model=model):
                self._add("say", "mode_changed", mode, model=model)
            case (
                RequestStarted()
                | TextDelta()
                | ToolPartial()
                | CheckpointCreated()  # the checkpoint hook writes Cline's own message for it
                | TaskEnded()
                | QuestionAsked()
                | QuestionAnswered()
                | BudgetStatus()  # shown live; the api_req_started rows carry the cost
            ):
                return False
            case SubagentProgress() as sub:
                detail = {"index": sub.index, "total": sub.total, "prompt": sub.prompt,
                          "status": sub.status, "tokensIn": sub.tokens_in,
                          "tokensOut": sub.tokens_out, "cost": sub.cost,
                          "taskId": sub.child_task_id, "agent": sub.agent,
                          "toolCalls": sub.tool_calls}  # fmt: skip
                self._add("say", "subagent", json.dumps(detail))
            case ReasoningDelta() | ToolOutput():
                raise AssertionError("buffered above")
            case _:
                assert_never(event)
        return True

    def record_question(self, question: Question) -> None:
        self._flush_buffers()
        match question:
            case ApprovalQuestion(tool=tool, summary=summary, preview=preview):
                kind = "command" if tool == "execute_command" else "tool"
                self._add(
                    "ask", kind, json.dumps({"tool": tool, "summary": summary, "preview": preview})
                )
            case FollowupQuestion(question=q, options=options):
                labels = [o.label for o in options]
                self._add("ask", "followup", json.dumps({"question": q, "options": labels}))
            case CompletionQuestion(result=result):
                self._add("ask", "completion_result", result)
            case MistakeLimitQuestion(count=count):
                self._add("ask", "mistake_limit_reached", str(count))
            case ErrorRetryQuestion(error=error):
                self._add("ask", "api_req_failed", error)
            case BudgetQuestion(scope=scope, unit=unit, spent=spent, cap=cap):
                detail = {"scope": scope, "unit": unit, "spent": spent, "cap": cap}
                self._add("ask", "budget_limit_reached", json.dumps(detail))
            case PlanQuestion(response=response):
                self._add("ask", "plan_mode_respond", json.dumps({"response": response}))
            case _:
                assert_never(question)

    def record_answer(self, answer: Answer) -> None:
        images = {"images": list(answer.images)} if answer.images else {}
        self._add("say", "user_feedback", answer.text, option=answer.option, **images)

    def _flush_buffers(self) -> None:
        if self._reasoning:
            self._add("say", "reasoning", "".join(self._reasoning))
            self._reasoning.clear()
        if self._output:
            self._add("say", "command_output", "".join(self._output))
            self._output.clear()
