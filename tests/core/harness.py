"""A scripted host and a task builder for loop tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pycline.app import wiring
from pycline.core.approval import AutoApprove
from pycline.core.task import Task, TaskSettings
from pycline.events import Answer, Event, Question
from pycline.providers.scripted import ScriptedProvider, ScriptedReply
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import TaskStore
from pycline.workspace.paths import Workspace

Responder = Callable[[Question], Answer]


def yes(question: Question) -> Answer:
    """The first option: approve, accept, switch to Act, continue, retry."""
    return Answer(question.options[0].id) if question.options else Answer()


def no(question: Question) -> Answer:
    """The last option: deny, stop (accept for a completion, as Enter does)."""
    return Answer(question.options[-1].id) if question.options else Answer()


@dataclass
class RecordingHost:
    """Answers questions from a queue (or a default) and records everything."""

    answers: list[Answer | Responder] = field(default_factory=list)
    default: Responder = field(default=lambda q: yes(q))
    events: list[Event] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    def say(self, event: Event) -> None:
        self.events.append(event)

    async def ask(self, question: Question) -> Answer:
        self.questions.append(question)
        if self.answers:
            answer = self.answers.pop(0)
            return answer if isinstance(answer, Answer) else answer(question)
        return self.default(question)

    def of_kind(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]


def make_task(
    home: Path,
    workspace: Path,
    replies: Sequence[str | ScriptedReply],
    host: RecordingHost,
    *,
    settings: TaskSettings | None = None,
    task_text: str = "do it",
) -> tuple[Task, ScriptedProvider]:
    provider = ScriptedProvider.of(*replies, chunk_size=5)
    tools = wiring.default_tools()
    folder = TaskStore(home).create()
    ws = Workspace.at(workspace)
    record = TaskRecord(id=folder.id, ts=0.0, task=task_text, workspace=str(ws.root))
    task = Task(
        provider=provider,
        tools=tools,
        host=host,
        folder=folder,
        workspace=ws,
        system_prompt=wiring.system_prompt(tools, ws.root),
        record=record,
        settings=settings or TaskSettings(auto_approve=AutoApprove(), max_retries=3),
        services=wiring.task_services(ws.root),
        sleep=_no_sleep,
    )
    return task, provider


async def _no_sleep(_: float) -> None:
    return None


def complete(result: str = "done") -> str:
    return f"<attempt_completion>\n<result>{result}</result>\n</attempt_completion>"
