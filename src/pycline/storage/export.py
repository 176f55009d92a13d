"""A saved task for people to read: the Markdown transcript (`export`) and the summary (`show`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from pycline.events import (
    CheckpointCreated,
    CompletionResult,
    Envelope,
    ErrorEvent,
    ErrorRetryQuestion,
    Event,
    FollowupQuestion,
    MistakeLimitQuestion,
    Notice,
    QuestionAnswered,
    QuestionAsked,
    ReasoningDelta,
    TaskStarted,
    TextDone,
    ToolFinished,
    ToolOutput,
    ToolStarted,
)
from pycline.messages import Message, TextContent


def export_markdown(messages: Sequence[Message]) -> str:
    """The conversation the model saw, as Markdown: one `**User:**`/`**Assistant:**` section each."""
    sections = []
    for message in messages:
        role = "**User:**" if message.role == "user" else "**Assistant:**"
        body = "\n".join(
            c.text if isinstance(c, TextContent) else "[Image]" for c in message.content
        )
        sections.append(f"{role}\n\n{body}\n\n")
    return "---\n\n".join(sections)


def export_file_name(ts: float) -> str:
    """`pycline_task_<month>-<day>-<year>_<h>-<mm>-<ss>-<am|pm>.md`, the task's start time."""
    when = dt.datetime.fromtimestamp(ts)
    hour = when.hour % 12 or 12
    half = "am" if when.hour < 12 else "pm"
    return (
        f"pycline_task_{when.strftime('%b').lower()}-{when.day}-{when.year}"
        f"_{hour}-{when.minute:02d}-{when.second:02d}-{half}.md"
    )


def _one_line(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _describe(event: Event) -> str | None:
    """One line for an event, or None for what the reader does not need."""
    match event:
        case TaskStarted(task=task, resumed=False):
            return f"Task: {_one_line(task, 400)}"
        case TaskStarted(message=message):
            return "Resumed" + (f": {_one_line(message)}" if message.strip() else "")
        case TextDone(text=text):
            return f"Assistant: {_one_line(text)}"
        case ReasoningDelta(text=text):
            return f"Thinking ({len(text)} characters)"
        case ToolStarted(tool=tool, summary=summary):
            return f"Tool: {summary or tool}"
        case ToolFinished(ok=ok, result=result):
            mark = "ok" if ok else "failed"
            return f"  {mark}: {_one_line(result, 120)}" if result.strip() else f"  {mark}"
        case ToolOutput(text=text):
            return f"  output: {len(text.splitlines())} lines"
        case QuestionAsked(question=FollowupQuestion(question=question)):
            return f"Question: {_one_line(question)}"
        case QuestionAsked(question=ErrorRetryQuestion(error=error)):
            return f"Error: {_one_line(error)}"
        case QuestionAsked(question=MistakeLimitQuestion(count=count)):
            return f"The model made {count} mistakes in a row"
        case QuestionAnswered(answer=answer):
            said = _ANSWER_WORDS.get(answer.option, "replied")
            return f"User {said}" + (f": {_one_line(answer.text)}" if answer.text.strip() else "")
        case CompletionResult(result=result):
            return f"Completed: {_one_line(result, 400)}"
        case CheckpointCreated(commit=commit):
            return f"Checkpoint {commit[:8]}"
        case Notice(text=text):
            return f"Note: {_one_line(text)}"
        case ErrorEvent(text=text):
            return f"Error: {_one_line(text)}"
        case _:
            return None  # the approval question repeats the tool line; the answer follows


_ANSWER_WORDS = {
    "approve": "approved",
    "accept": "accepted",
    "act": "switched to Act mode",
    "continue": "continued",
    "retry": "retried",
    "deny": "declined",
    "stop": "stopped",
    "always": "approved (always)",
    "raise": "raised the cap",
}


def transcript_summary(events: Sequence[Envelope]) -> list[str]:
    """What a saved task showed, one line per step, each with its time."""
    lines = []
    for envelope in events:
        text = _describe(envelope.event)
        if text is not None:
            stamp = dt.datetime.fromtimestamp(envelope.ts).strftime("%H:%M:%S")
            lines.append(f"{stamp}  {text}")
    return lines
