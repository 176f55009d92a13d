"""The recorder: the one writer of a task's folder, following its event stream.

It subscribes to the task's events (the handle's stream, or the host's for a task run without a
session) and appends them to the task's event log (`storage.event_log`): the only record of what
the task showed, from which every front end replays it and Cline's `ui_messages.json` is written.
The task hands it the model's history, its record and its context state (the core's journal), so
the conversation is saved beside it, in order, by one writer thread (`storage.journal`): off the
event loop, append-only, and a kill at any point loses at most the reply in flight.

What is kept is what a replay needs: streamed text and tool parameters are left out (the final
text and the call are events of their own), streamed reasoning and command output are joined,
and images too large to copy into every reopening are shown live only. A checkpoint is noted with
the conversation position of the turn it follows, which a task restore cuts back to.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Sequence
from typing import Any, Final

from pycline.app.live.handle import TaskHandle
from pycline.events import (
    Answer,
    CheckpointCreated,
    Envelope,
    Event,
    Host,
    Question,
    QuestionAnswered,
    QuestionAsked,
    ReasoningDelta,
    RequestStarted,
    TaskEnded,
    TaskStarted,
    TextDelta,
    ToolFinished,
    ToolOutput,
    ToolPartial,
    ToolStarted,
)
from pycline.messages import Message
from pycline.storage import event_log
from pycline.storage.journal import TaskRecorder
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import TaskFolder

# A screenshot of the 900×600 viewport is far below this; a larger image (a big file read as an
# image) is shown live but not copied into the log, which every reopening reads whole.
SAVED_IMAGE_CHARS: Final = 2_000_000
JOINED_CHARS: Final = 64_000  # joined reasoning or output is written once it reaches this


class Recorder:
    """Implements the core's journal (`history_changed`, `record_changed`, …) and listens to the
    task's events (`on_event`). `history` is the task's own list, read as requests start."""

    def __init__(
        self, folder: TaskFolder, history: Sequence[Message], *, background: bool = True
    ) -> None:
        self.folder = folder
        self.writer = TaskRecorder(folder, background=background)
        self._history = history
        folder.start_event_log()
        self._joined: Envelope | None = None  # reasoning or output still being streamed
        self._partials: dict[str, Envelope] = {}  # calls streaming in, not started yet
        self._turn_at = -1  # where the model's reply of the current turn goes in the history
        self._run_position: tuple[int, float | None] = (-1, None)
        self._positions: dict[str, tuple[int, float | None]] = {}  # tool call -> its turn's

    # --- the core's journal ---------------------------------------------------------------------

    def start_from(self, history: Sequence[Message]) -> None:
        """The task resumes with what the folder already holds: only changes are written."""
        self.writer.start_from(history)

    def history_changed(self, history: Sequence[Message]) -> None:
        self.writer.history_changed(history)

    def record_changed(self, record: TaskRecord) -> None:
        self.writer.record_changed(record)

    def context_changed(self, state: Any) -> None:
        self.writer.context_changed(state)

    async def flush(self) -> None:
        self._write_joined()
        await self.writer.flush()

    async def close(self) -> None:
        self._write_joined()
        self._write_partials()
        await self.writer.close()

    # --- the event stream -------------------------------------------------------------------------

    def on_event(self, envelope: Envelope) -> None:
        event = envelope.event
        match event:
            case TextDelta():
                return  # the text is kept whole by TextDone
            case ToolPartial(tool_call_id=call_id):
                self._partials[call_id] = envelope
                return
            case ReasoningDelta() | ToolOutput():
                self._join(envelope)
                return
            case _:
                pass
        self._write_joined()
        lines: list[event_log.Entry] = []
        match event:
            case TaskStarted():
                self._run_position = self._position(len(self._history) - 1)
            case RequestStarted() | TaskEnded():
                lines += self._take_partials()
                self._turn_at = len(self._history)
            case ToolStarted(tool_call_id=call_id) if call_id:
                self._partials.pop(call_id, None)
                self._positions[call_id] = self._position(self._turn_at)
            case ToolFinished(images=images) if any(len(i) > SAVED_IMAGE_CHARS for i in images):
                kept = tuple(i for i in images if len(i) <= SAVED_IMAGE_CHARS)
                envelope = dataclasses.replace(
                    envelope, event=dataclasses.replace(event, images=kept)
                )
            case _:
                pass
        lines.append(envelope)
        if isinstance(event, CheckpointCreated):
            call = event.tool_call_id
            index, ts = self._positions.get(call, (-2, None)) if call else self._run_position
            if index >= -1:
                lines.append(event_log.note("position", index=index, ts=ts))
        # A question is saved before anyone can answer it; a kill while it waits keeps it.
        self._write(lines, now=isinstance(event, QuestionAsked | TaskEnded))

    def _position(self, index: int) -> tuple[int, float | None]:
        """The conversation position of message `index`, with its time (which tells later whether
        the history was replaced since)."""
        history = self._history
        return index, history[index].ts if 0 <= index < len(history) else None

    def _join(self, envelope: Envelope) -> None:
        joined = self._joined
        merged: Event | None = None
        if joined is not None:
            match joined.event, envelope.event:
                case ReasoningDelta(text=a), ReasoningDelta(text=b):
                    merged = ReasoningDelta(a + b)
                case ToolOutput(text=a, tool_call_id=x), ToolOutput(text=b, tool_call_id=y) if (
                    x == y
                ):
                    merged = ToolOutput(a + b, x)
                case _:
                    pass
        if joined is None or merged is None:
            self._write_joined()
            self._joined = envelope
            return
        self._joined = dataclasses.replace(joined, event=merged)
        if len(getattr(merged, "text", "")) >= JOINED_CHARS:
            self._write_joined()

    def _write_joined(self) -> None:
        if self._joined is not None:
            joined, self._joined = self._joined, None
            self._write([joined])

    def _take_partials(self) -> list[event_log.Entry]:
        """Calls that streamed in but never ran (the rest of a reply after one was refused): their
        last state, as it was left on screen."""
        partials, self._partials = list(self._partials.values()), {}
        return list(partials)

    def _write_partials(self) -> None:
        if self._partials:
            self._write(self._take_partials())

    def _write(self, entries: list[event_log.Entry], *, now: bool = False) -> None:
        self.writer.events(b"".join(event_log.dumps(e) for e in entries), now=now)


class RecordedHost:
    """A host with a recorder following what is said and asked: for a task run without a
    session (the session's handle is followed through `TaskHandle.listen`)."""

    def __init__(self, host: Host, recorder: Recorder, task_id: str) -> None:
        self.inner = host
        self._recorder = recorder
        self._task_id = task_id
        self._seq = itertools.count(1)
        self._questions = itertools.count(1)

    def say(self, event: Event) -> None:
        self._record(event)
        self.inner.say(event)

    async def ask(self, question: Question) -> Answer:
        question_id = f"{self._task_id}-q{next(self._questions)}"
        self._record(QuestionAsked(question_id, question))
        answer = await self.inner.ask(question)
        self._record(QuestionAnswered(question_id, answer))
        return answer

    def _record(self, event: Event) -> None:
        envelope = Envelope(self._task_id, next(self._seq), time.time(), event)
        self._recorder.on_event(envelope)


def recorded(host: Host, recorder: Recorder, task_id: str) -> Host:
    """The host a task speaks to, with `recorder` following its events."""
    if isinstance(host, TaskHandle):
        host.listen(recorder.on_event, replay=False)
        return host
    return RecordedHost(host, recorder, task_id)
