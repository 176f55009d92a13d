"""Shared fixtures: every test gets its own PYCLINE_HOME, and no test may reach a real model."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests check what holds, not how fast: a loaded machine must not fail them on a
# per-example deadline or a "too slow" health check (a test's own @settings add to this).
settings.register_profile(
    "pycline", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("pycline")


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("pycline-home")
    monkeypatch.setenv("PYCLINE_HOME", str(home))
    # Keys saved by tests go to the home's secrets file, never to the developer's real keyring
    # (subprocesses inherit this; tests of the keyring path install their own backend).
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    # Language servers start only in the tests about them (they hand their commands over).
    monkeypatch.setenv("PYCLINE_LANGUAGE_SERVERS", "off")
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


# --- no orphan processes -----------------------------------------------------------------------
# Every process the tests start inherits this mark; when the run ends, none may still be alive
# (zombies are dead: this machine's init does not reap them, so they are not counted).
_MARK = f"PYCLINE_TEST_RUN={os.getpid()}-{uuid.uuid4().hex}"
os.environ["PYCLINE_TEST_RUN"] = _MARK.split("=", 1)[1]


def _marked_live_processes() -> list[str]:
    found: list[str] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if _MARK.encode() not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # the process ended while we looked, or is not ours to read
            continue
        if state != "Z":
            found.append(f"{entry.name}: {cmdline.strip()[:200]}")
    return found


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not Path("/proc").is_dir():
        return
    deadline = time.monotonic() + 10
    leftovers = _marked_live_processes()
    while leftovers and time.monotonic() < deadline:
        time.sleep(0.2)  # give processes that are already being killed a moment to exit
        leftovers = _marked_live_processes()
    if leftovers:
        print("\nOrphan processes left by the tests:\n  " + "\n  ".join(leftovers))
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
