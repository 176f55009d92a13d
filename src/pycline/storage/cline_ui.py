"""Cline's `ui_messages.json`, written from a task's event log (storage.event_log).

The log holds the events as shown; Cline's file (for compatibility, export and `pycline show
--json`) is derived from it: one `say`/`ask` message per event worth keeping, streamed reasoning
and command output joined into one message each, and each checkpoint placed as Cline places it:
`checkpoint_created` at the end of the turn whose tool it follows (it is committed while the next
request streams, so its event comes later), carrying the commit (`lastCheckpointHash`) and the
conversation position a task restore cuts back to; the turn's tool message gets the hash too.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, assert_never

from pycline.events import (
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
    MessagesQueued,
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
from pycline.storage.event_log import Entry, Note
from pycline.storage.layout import (
    CALL_ID_KEY,
    CHECKPOINT_KIND,
    HASH_KEY,
    INDEX_KEY,
    INDEX_TS_KEY,
)

# UI messages that stand for a turn's tool: the newest one gets the checkpoint's hash.
_TOOL_KINDS = frozenset({"tool", "completion_result"})
BASE = -1  # the origin of a message written before the log existed


@dataclass(slots=True)
class Derived:
    messages: list[UiMessage]
    origins: list[int]  # the log entry each message came from (BASE: before the log)


def derive(base: Sequence[UiMessage], entries: Sequence[Entry]) -> Derived:
    builder = _Builder(list(base))
    for at, entry in enumerate(entries):
        builder.add(at, entry)
    return builder.finish()


@dataclass(slots=True)
class _Checkpoint:
    message: UiMessage
    origin: int
    turn: int | None  # None: the checkpoint at the start of a run (placed at `position`)
    position: int = 0


@dataclass(slots=True)
class _Builder:
    messages: list[UiMessage]
    origins: list[int] = field(default_factory=list)
    turns: list[int] = field(default_factory=list)
    turn: int = 0  # a new one at each request and each run
    call_turns: dict[str, int] = field(default_factory=dict)
    turn_ends: dict[int, int] = field(default_factory=dict)  # turn -> where its messages end
    run_start: int = 0  # where the checkpoint at the start of the current run goes
    checkpoints: list[_Checkpoint] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    output: list[str] = field(default_factory=list)
    buffered_at: int = BASE
    buffered_ts: float = 0.0

    def __post_init__(self) -> None:
        self.origins = [BASE] * len(self.messages)
        self.turns = [0] * len(self.messages)
        self.run_start = len(self.messages)

    def add(self, at: int, entry: Entry) -> None:
        if isinstance(entry, Note):
            self._note(at, entry)
            return
        event, ts = entry.event, entry.ts
        match event:
            case ReasoningDelta(text=text):
                self._buffer(at, ts, self.reasoning, text)
                return
            case ToolOutput(text=text):
                self._buffer(at, ts, self.output, text)
                return
            case _:
                pass
        self._flush()
        match event:
            case TaskStarted():
                self._end_turn()
                self._add(at, ts, "say", "task" if not event.resumed else "resume_task", event.task)
                if event.message:  # Cline's log: the user's answer to "resume this task?"
                    self._add(at, ts, "say", "user_feedback", event.message)
                self.run_start = len(self.messages)
            case RequestStarted():
                self._end_turn()
            case TaskEnded():
                self._end_turn()
            case ToolStarted(tool=tool, summary=summary, tool_call_id=call_id):
                if call_id:
                    self.call_turns[call_id] = self.turn
                ids = {CALL_ID_KEY: call_id} if call_id else {}
                self._add(
                    at, ts, "say", "tool", json.dumps({"tool": tool, "summary": summary}), **ids
                )
            case CheckpointCreated() as made:
                self._checkpoint(at, ts, made)
            case QuestionAsked(question=question):
                self._question(at, ts, question)
            case QuestionAnswered(answer=answer):
                images = {"images": list(answer.images)} if answer.images else {}
                self._add(
                    at, ts, "say", "user_feedback", answer.text, option=answer.option, **images
                )
            case _:
                self._said(at, ts, event)

    def _said(self, at: int, ts: float, event: Event) -> None:
        match event:
            case TextDone(text=text):
                self._add(at, ts, "say", "text", text)
            case ToolFinished(tool=tool, ok=ok, result=result, images=images):
                shown = {"images": list(images)} if images else {}
                self._add(at, ts, "say", "tool_result", result, tool=tool, ok=ok, **shown)
            case Usage() as u:
                cost = {"tokensIn": u.input_tokens, "tokensOut": u.output_tokens,
                        "cacheWrites": u.cache_write_tokens, "cacheReads": u.cache_read_tokens,
                        "cost": u.cost}  # fmt: skip
                self._add(at, ts, "say", "api_req_started", json.dumps(cost))
            case Notice(text=text):
                self._add(at, ts, "say", "info", text)
            case TaskProgress(checklist=checklist):
                self._add(at, ts, "say", "task_progress", checklist)
            case ErrorEvent(text=text):
                self._add(at, ts, "say", "error", text)
            case CompletionResult(result=result, command=command):
                extra = {"command": command} if command else {}
                self._add(at, ts, "say", "completion_result", result, **extra)
            case PlanResponse(response=response):
                self._add(at, ts, "say", "plan_mode_respond", response)
            case ModeChanged(mode=mode, model=model):
                self._add(at, ts, "say", "mode_changed", mode, model=model)
            case SubagentProgress() as sub:
                detail = {"index": sub.index, "total": sub.total, "prompt": sub.prompt,
                          "status": sub.status, "tokensIn": sub.tokens_in,
                          "tokensOut": sub.tokens_out, "cost": sub.cost,
                          "taskId": sub.child_task_id, "agent": sub.agent,
                          "toolCalls": sub.tool_calls}  # fmt: skip
                self._add(at, ts, "say", "subagent", json.dumps(detail))
            case MessagesQueued(delivered=delivered):
                for message in delivered:  # what the model got, as Cline keeps what was said
                    pictures = {"images": list(message.images)} if message.images else {}
                    self._add(at, ts, "say", "user_feedback", message.text, **pictures)
            case TextDelta() | ToolPartial() | BudgetStatus():
                pass  # shown live; the text, the call and the cost are kept by other events
            case (
                TaskStarted()
                | RequestStarted()
                | TaskEnded()
                | ToolStarted()
                | CheckpointCreated()
                | QuestionAsked()
                | QuestionAnswered()
                | ReasoningDelta()
                | ToolOutput()
            ):
                raise AssertionError("handled by add")
            case _:
                assert_never(event)

    def _question(self, at: int, ts: float, question: Question) -> None:
        match question:
            case ApprovalQuestion(tool=tool, summary=summary, preview=preview):
                kind = "command" if tool == "execute_command" else "tool"
                detail = json.dumps({"tool": tool, "summary": summary, "preview": preview})
                self._add(at, ts, "ask", kind, detail)
            case FollowupQuestion(question=q, options=options):
                labels = [o.label for o in options]
                self._add(at, ts, "ask", "followup", json.dumps({"question": q, "options": labels}))
            case CompletionQuestion(result=result):
                self._add(at, ts, "ask", "completion_result", result)
            case MistakeLimitQuestion(count=count):
                self._add(at, ts, "ask", "mistake_limit_reached", str(count))
            case ErrorRetryQuestion(error=error):
                self._add(at, ts, "ask", "api_req_failed", error)
            case BudgetQuestion(scope=scope, unit=unit, spent=spent, cap=cap):
                detail = json.dumps({"scope": scope, "unit": unit, "spent": spent, "cap": cap})
                self._add(at, ts, "ask", "budget_limit_reached", detail)
            case PlanQuestion(response=response):
                self._add(at, ts, "ask", "plan_mode_respond", json.dumps({"response": response}))
            case _:
                assert_never(question)

    def _note(self, at: int, note: Note) -> None:
        match note.kind:
            case "position" if self.checkpoints and self.checkpoints[-1].origin == at - 1:
                index, ts = note.data.get("index"), note.data.get("ts")
                extra = self.checkpoints[-1].message.extra
                if isinstance(index, int) and not isinstance(index, bool):
                    extra[INDEX_KEY] = index
                    extra[INDEX_TS_KEY] = ts if isinstance(ts, int | float) else None
            case "ui" if isinstance(note.data.get("m"), dict):
                self._flush()
                try:
                    message = UiMessage.from_json(note.data["m"])
                except (KeyError, TypeError, ValueError):
                    return
                self._append(at, message)
            case _:
                pass

    def _checkpoint(self, at: int, ts: float, made: CheckpointCreated) -> None:
        call_id = made.tool_call_id
        extra: dict[str, Any] = {HASH_KEY: made.commit}
        if call_id:
            extra[CALL_ID_KEY] = call_id
        message = UiMessage(ts=ts, type="say", kind=CHECKPOINT_KIND, extra=extra)
        if not call_id:
            self.checkpoints.append(_Checkpoint(message, at, None, self.run_start))
            return
        turn = self.call_turns.get(call_id)
        if turn is None:  # a call never shown: keep the checkpoint where it came
            self.checkpoints.append(_Checkpoint(message, at, None, len(self.messages)))
            return
        # Like Cline, the turn's tool message carries the hash of the checkpoint that followed it.
        for i in range(len(self.messages) - 1, -1, -1):
            if self.turns[i] < turn:
                break
            m = self.messages[i]
            if self.turns[i] == turn and m.type == "say" and m.kind in _TOOL_KINDS:
                m.extra[HASH_KEY] = made.commit
                break
        self.checkpoints.append(_Checkpoint(message, at, turn))

    def _end_turn(self) -> None:
        self.turn_ends[self.turn] = len(self.messages)
        self.turn += 1

    def _buffer(self, at: int, ts: float, buffer: list[str], text: str) -> None:
        other = self.output if buffer is self.reasoning else self.reasoning
        if other:
            self._flush()
        if not buffer:
            self.buffered_at, self.buffered_ts = at, ts
        buffer.append(text)

    def _flush(self) -> None:
        at, ts = self.buffered_at, self.buffered_ts
        if self.reasoning:
            self._add(at, ts, "say", "reasoning", "".join(self.reasoning))
            self.reasoning.clear()
        if self.output:
            self._add(at, ts, "say", "command_output", "".join(self.output))
            self.output.clear()

    def _add(self, at: int, ts: float, type_: str, kind: str, text: str = "", **extra: Any) -> None:
        message = UiMessage(
            ts=ts, type="ask" if type_ == "ask" else "say", kind=kind, text=text, extra=extra
        )
        self._append(at, message)

    def _append(self, at: int, message: UiMessage) -> None:
        self.messages.append(message)
        self.origins.append(at)
        self.turns.append(self.turn)

    def finish(self) -> Derived:
        self._flush()
        self.turn_ends.setdefault(self.turn, len(self.messages))
        placed = []
        for c in self.checkpoints:
            position = c.position if c.turn is None else self.turn_ends[c.turn]
            placed.append((position, c))
        messages: list[UiMessage] = []
        origins: list[int] = []
        pending = sorted(placed, key=lambda p: p[0])  # stable: same place, in event order
        k = 0
        for i, message in enumerate(self.messages):
            while k < len(pending) and pending[k][0] <= i:
                messages.append(pending[k][1].message)
                origins.append(pending[k][1].origin)
                k += 1
            messages.append(message)
            origins.append(self.origins[i])
        for _, c in pending[k:]:
            messages.append(c.message)
            origins.append(c.origin)
        return Derived(messages, origins)
