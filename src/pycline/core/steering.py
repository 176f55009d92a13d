"""Steering: what the user sends while the task works waits here for the next turn boundary.

A message sent while no question is open is queued, shown (a `MessagesQueued` event), can be
edited or withdrawn, and is delivered after the running tool, before the next model request
(`take`). Asked to interrupt, the queue stops the running step (the model's reply streaming, a
tool call) so the message goes at once: `unless_interrupted` runs a step and gives `STEERED`
when the user cut it short. Front ends reach the queue only through typed commands; the task's
handle adds to it, the loop drains it.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from typing import TypeVar

from pycline.core import resumption
from pycline.events import MessagesQueued, QueuedMessage
from pycline.messages import Content, ImageContent, Message, TextContent
from pycline.prompts import responses

T = TypeVar("T")


class Steered:
    """What an interrupted step gives instead of its result."""


STEERED = Steered()


class Steering:
    def __init__(self) -> None:
        self._pending: list[QueuedMessage] = []
        self._ids = itertools.count(1)
        self._wanted = asyncio.Event()  # the user asked to stop the running step

    @property
    def pending(self) -> tuple[QueuedMessage, ...]:
        return tuple(self._pending)

    def event(self, delivered: tuple[QueuedMessage, ...] = ()) -> MessagesQueued:
        return MessagesQueued(self.pending, delivered)

    def add(self, text: str, images: tuple[str, ...] = (), *, interrupt: bool = False) -> str:
        """Queue a message; its id. With `interrupt`, the running step is stopped."""
        message_id = f"m{next(self._ids)}"
        self._pending.append(QueuedMessage(message_id, text, images))
        if interrupt:
            self._wanted.set()
        return message_id

    def edit(self, message_id: str, text: str) -> bool:
        """False when no such message waits (it may have been delivered already)."""
        for i, queued in enumerate(self._pending):
            if queued.message_id == message_id:
                self._pending[i] = QueuedMessage(message_id, text, queued.images)
                return True
        return False

    def cancel(self, message_id: str) -> bool:
        before = len(self._pending)
        self._pending = [q for q in self._pending if q.message_id != message_id]
        return len(self._pending) < before

    def take(self) -> tuple[QueuedMessage, ...]:
        """Every waiting message, in the order sent; the queue is empty after."""
        taken, self._pending = tuple(self._pending), []
        self._wanted.clear()  # what an interrupt was for is delivered now
        return taken

    async def unless_interrupted(self, step: Awaitable[T]) -> T | Steered:
        """`step`'s result, or `STEERED` when the user interrupted it (it is then cancelled and
        has stopped). Cancelling the caller cancels the step too."""
        job = asyncio.ensure_future(step)
        wanted = asyncio.ensure_future(self._wanted.wait())
        try:
            await asyncio.wait((job, wanted), return_when=asyncio.FIRST_COMPLETED)
        finally:
            wanted.cancel()
            if not job.done():
                job.cancel()
                await asyncio.wait((job,))
        if job.cancelled() and self._wanted.is_set():
            return STEERED
        return job.result()


def take_back(history: list[Message], interrupted: tuple[str, str] | None) -> list[Content]:
    """After an interrupted step, what the next request starts from: the stopped call's partial
    result (`interrupted`: its id and text), or the user message whose request was cut short,
    taken back from `history` (it is sent again with the new message)."""
    if interrupted is not None:
        history.append(resumption.interrupted_results(history, *interrupted))
    kept, pending = resumption.prepare(history)
    history[:] = kept
    return pending


def joined(messages: tuple[QueuedMessage, ...]) -> tuple[str, tuple[str, ...]]:
    """The messages as one reply (a question's answer): texts in order, every image."""
    text = "\n\n".join(m.text for m in messages if m.text.strip())
    return text, tuple(url for m in messages for url in m.images)


async def as_content(
    messages: tuple[QueuedMessage, ...], expand: Callable[[str], Awaitable[str]]
) -> list[Content]:
    """The messages as the next request carries them, each text expanded as typed text is
    (slash commands, @mentions)."""
    content: list[Content] = []
    for message in messages:
        text = await expand(message.text) if message.text.strip() else ""
        if text:
            content.append(TextContent(responses.sent_while_working(text)))
        for url in message.images:
            image = ImageContent.from_data_url(url)
            if image is not None:
                content.append(image)
    return content
