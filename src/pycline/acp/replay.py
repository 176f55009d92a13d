"""A saved task replayed as session updates (`session/load`): the events it showed, from its log
(`pycline.app.services.tasks.Tasks.transcript`), mapped as the live session maps them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, assert_never

import acp
from acp.schema import Cost, UsageUpdate

from pycline.acp.mapping import checklist
from pycline.app.services.tool_catalogue import facts_of
from pycline.events import (
    ApprovalQuestion,
    BudgetQuestion,
    BudgetStatus,
    CheckpointCreated,
    CompletionQuestion,
    CompletionResult,
    Envelope,
    ErrorEvent,
    ErrorRetryQuestion,
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

RESULT_CHARS = 20_000


def replay(events: Sequence[Envelope]) -> Iterator[Any]:
    calls = 0
    open_call: str | None = None
    output: list[str] = []
    for envelope in events:
        match envelope.event:
            case TaskStarted(task=task, resumed=resumed, message=message):
                said = message if resumed else task
                if said.strip():
                    yield acp.update_user_message_text(said)
            case QuestionAnswered(answer=answer):
                if answer.text.strip():
                    yield acp.update_user_message_text(answer.text)
            case MessagesQueued(delivered=delivered):
                for queued in delivered:  # what the user sent while the task worked
                    yield acp.update_user_message_text(queued.text)
            case BudgetStatus() as budget:
                yield acp.update_agent_thought_text(f"\n{budget_text(budget)}\n")
            case TextDone(text=text):
                yield acp.update_agent_message_text(text + "\n")
            case ReasoningDelta(text=text):
                yield acp.update_agent_thought_text(text)
            case CompletionResult(result=result, command=command):
                extra = f"\n\nTo see it: `{command}`" if command else ""
                yield acp.update_agent_message_text(f"\n\n{result}{extra}\n")
            case PlanResponse(response=response):
                yield acp.update_agent_message_text(f"\n\n{response}\n")
            case ErrorEvent(text=text):
                yield acp.update_agent_message_text(f"\n\nError: {text}\n")
            case Notice(text=text):
                yield acp.update_agent_thought_text(f"\n{text}\n")
            case ToolStarted(tool=tool, summary=summary):
                facts = facts_of(tool)
                if facts.conversational:
                    open_call = None  # shown as messages, as when it ran
                    continue
                calls += 1
                open_call, output = f"replay_{calls}", []
                yield acp.start_tool_call(
                    open_call, summary or tool, kind=facts.kind, status="in_progress"
                )
            case QuestionAsked(question=question):
                yield from _asked(question, open_call)
            case ToolOutput(text=text):
                if open_call is not None:
                    output.append(text)
                    shown = f"```\n{_clip(''.join(output))}\n```"
                    yield acp.update_tool_call(open_call, content=[_block(shown)])
            case ToolFinished(ok=ok, result=result):
                if open_call is not None:
                    content = None if output else [_block(_clip(result))]
                    yield acp.update_tool_call(
                        open_call, status="completed" if ok else "failed", content=content
                    )
                open_call = None
            case Usage() as usage:
                yield UsageUpdate(
                    session_update="usage_update",
                    used=usage.context_tokens,
                    size=usage.context_window,
                    cost=Cost(amount=usage.task_cost, currency="USD"),
                )
            case TaskProgress(checklist=markdown):
                items = checklist(markdown)
                if items:
                    yield acp.update_plan(
                        acp.plan_entry(i.content, priority="medium", status=i.status) for i in items
                    )
            case (
                RequestStarted()
                | TextDelta()
                | ToolPartial()
                | ModeChanged()
                | CheckpointCreated()
                | TaskEnded()
                | SubagentProgress()
            ):
                pass  # streamed live, or bookkeeping an editor does not show again
            case _:
                assert_never(envelope.event)


def _asked(question: Question, open_call: str | None) -> Iterator[Any]:
    match question:
        case ApprovalQuestion(preview=preview):
            if open_call and preview:  # what was asked: the edit's diff, or the command line
                yield acp.update_tool_call(
                    open_call, content=[_block(f"```\n{_clip(preview)}\n```")]
                )
        case FollowupQuestion(question=text, options=options):
            listed = "".join(f"\n- {o.label}" for o in options)
            yield acp.update_agent_message_text(f"\n\n{text}{listed}\n")
        case MistakeLimitQuestion(count=count):
            yield acp.update_agent_message_text(f"\n\nThe model made {count} mistakes in a row.\n")
        case BudgetQuestion() as cap:
            yield acp.update_agent_message_text(f"\n\nSpending cap reached: {budget_text(cap)}\n")
        case CompletionQuestion() | PlanQuestion() | ErrorRetryQuestion():
            pass  # the result, the plan and the error were shown as they came
        case _:
            assert_never(question)


def _block(text: str) -> Any:
    return acp.tool_content(acp.text_block(text))


def budget_text(b: BudgetStatus | BudgetQuestion) -> str:
    """`task budget $0.42 / $1.00`: spent against one cap."""
    if b.unit == "usd":
        return f"{b.scope} budget ${b.spent:.2f} / ${b.cap:.2f}"
    return f"{b.scope} budget {b.spent:,.0f} / {b.cap:,.0f} tokens"


def _clip(text: str) -> str:
    if len(text) <= RESULT_CHARS:
        return text
    half = RESULT_CHARS // 2
    return f"{text[:half]}\n[… {len(text) - RESULT_CHARS} characters left out …]\n{text[-half:]}"
