"""Fixtures for the attack tests."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

# The sandbox gives commands a private /tmp, so whatever a test plants under pytest's tmp_path is
# out of their sight anyway; what must be hidden on its own merits is planted here instead.
_SCRATCH = Path(__file__).resolve().parents[2] / ".test-scratch"


@pytest.fixture
def outside_tmp() -> Iterator[Path]:
    """A fresh folder outside /tmp (in the checkout), which a sandboxed command would see."""
    _SCRATCH.mkdir(exist_ok=True)
    folder = Path(tempfile.mkdtemp(dir=_SCRATCH))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
