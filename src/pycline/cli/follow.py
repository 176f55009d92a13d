"""A terminal front end as one subscriber of a task handle: render each event, answer questions."""

from __future__ import annotations

import asyncio
from typing import Protocol

from pycline.app.live.handle import TaskHandle
from pycline.commands import AnswerQuestion
from pycline.events import Answer, Envelope, Question, QuestionAnswered, QuestionAsked


class View(Protocol):
    """How a terminal shows events and gets an answer from its user (or decides alone)."""

    def show(self, envelope: Envelope) -> None: ...

    async def ask(self, question: Question) -> Answer: ...


async def follow(handle: TaskHandle, view: View) -> None:
    """Show the task's events until it ends, answering its questions through the handle.

    Events are shown as the task says them (a script reading `--json` sees each one once it is
    saved, never later). Questions are answered in their own asyncio task, so events keep showing
    while the user thinks (a background command's output, a `/compact` run from the prompt). An
    error while answering (the user closed the terminal) stops following and is raised here.
    """
    loop = asyncio.get_running_loop()
    failed: asyncio.Future[BaseException] = loop.create_future()
    answering: set[asyncio.Task[None]] = set()
    asking: dict[str, asyncio.Task[None]] = {}  # the questions on screen, by id

    def finished(task: asyncio.Task[None]) -> None:
        answering.discard(task)
        for question_id in [q for q, t in asking.items() if t is task]:
            del asking[question_id]
        if not task.cancelled() and (error := task.exception()) and not failed.done():
            failed.set_result(error)

    def on_event(envelope: Envelope) -> None:
        view.show(envelope)
        event = envelope.event
        if isinstance(event, QuestionAsked) and _is_open(handle, event.question_id):
            task = loop.create_task(_answer(handle, view, event))
            answering.add(task)
            asking[event.question_id] = task
            task.add_done_callback(finished)
        elif isinstance(event, QuestionAnswered):
            # Answered elsewhere (`pycline attach`, the web UI): the prompt goes.
            prompt = asking.get(event.question_id)
            if prompt is not None and prompt is not asyncio.current_task():
                prompt.cancel()

    stop = handle.listen(on_event)
    ended = asyncio.ensure_future(handle.wait())
    try:
        await asyncio.wait((ended, failed), return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop()
        for task in list(answering):
            task.cancel()  # the task ended (cancelled) while its question was on screen
        if not ended.done():
            ended.cancel()
        elif not ended.cancelled():
            ended.exception()  # whoever ran the task gets it from `handle.wait()`
    if failed.done():
        raise failed.result()


def _is_open(handle: TaskHandle, question_id: str) -> bool:
    # A replayed question may have been answered already (by another front end).
    return any(q.question_id == question_id for q in handle.pending_questions)


async def _answer(handle: TaskHandle, view: View, asked: QuestionAsked) -> None:
    answer = await view.ask(asked.question)
    if _is_open(handle, asked.question_id):
        await handle.send(AnswerQuestion(asked.question_id, answer, by="the terminal"))
