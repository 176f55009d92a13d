"""The terminal's `/queue` commands, typed while a task works: each becomes the typed command it
names (or a usage line), numbered as the screen lists the queue."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pycline.cli.typeahead import TypeAhead
from pycline.commands import CancelQueued, Command, EditQueued, UserMessage
from pycline.events import QueuedMessage


@dataclass
class _Queue:
    queued: tuple[QueuedMessage, ...]


QUEUE = _Queue((QueuedMessage("m1", "use tabs"), QueuedMessage("m4", "add tests")))


@pytest.mark.parametrize(
    ("typed", "command"),
    [
        ("/queue drop 2", CancelQueued("m4")),
        ("/queue edit 1 use tabs, not spaces", EditQueued("m1", "use tabs, not spaces")),
        ("/queue now stop, wrong folder", UserMessage("stop, wrong folder", interrupt=True)),
        ("/queue drop 3", None),
        ("/queue edit 1", None),
        ("/queue now", None),
        ("/queue", None),
    ],
)
def test_queue_commands_name_messages_by_their_place_in_the_list(
    typed: str, command: Command | None
) -> None:
    said: list[str] = []
    typeahead = TypeAhead(-1, said.append)
    words = typed.split(maxsplit=2)[1:]
    assert typeahead._queue_command(QUEUE, words) == command  # type: ignore[arg-type]
    if command is None:
        assert said and ("usage" in said[0] or said[0].startswith("queued"))
