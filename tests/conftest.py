"""Shared fixtures: every test gets its own PYCLINE_HOME, and no test may reach a real model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("pycline-home")
    monkeypatch.setenv("PYCLINE_HOME", str(home))
    for var in (
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
        "PYCLINE_PROVIDER",
        "PYCLINE_MODEL",
    ):
        monkeypatch.delenv(var, raising=False)
    yield home


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "project"
    ws.mkdir()
    return ws
