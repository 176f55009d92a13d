"""Shared set-up of the terminal tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

import pytest


class _Closes(Protocol):
    def close(self) -> None: ...


@pytest.fixture
def terminals() -> Iterator[list[_Closes]]:
    """The terminals a test opens, closed after it whatever happened."""
    opened: list[_Closes] = []
    yield opened
    for terminal in opened:
        terminal.close()
