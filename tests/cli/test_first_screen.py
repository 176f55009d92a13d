"""What a new user sees in a real terminal (tmux): the first screen fits, says once what is off
and points to `pycline doctor`; an edit waits with its diff; `pycline doctor` reads well. The
screens are saved as the README's and the docs' terminal pictures."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from pycline.app.settings.secrets import SecretStore
from pycline.browser.chromium import find_chromium
from tests.cli.terminal import Terminal, save_png, to_html
from tests.fakes.openai_server import FakeOpenAI

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "docs" / "screenshots"
MODEL = "gpt-4o"

EDIT = (
    "I'll make the greeting friendlier and give it a docstring.\n"
    "<replace_in_file>\n<path>app.py</path>\n<diff>\n"
    "------- SEARCH\n"
    'def greet(name: str) -> str:\n    return "Hello " + name\n'
    "=======\n"
    'def greet(name: str) -> str:\n    """A friendly greeting."""\n    return f"Hello, {name}!"\n'
    "+++++++ REPLACE\n</diff>\n</replace_in_file>"
)
DONE = '<attempt_completion>\n<result>greet() now says "Hello, world!".</result>\n</attempt_completion>'


@pytest.fixture
def user(tmp_path: Path) -> Path:
    """A user's home folder, with pycline's data where it goes by default."""
    folder = tmp_path / "user"
    (folder / ".local" / "share" / "pycline").mkdir(parents=True)
    (folder / ".local" / "bin").mkdir(parents=True)
    # As install.sh leaves it: only the command, linked into ~/.local/bin.
    (folder / ".local" / "bin" / "pycline").symlink_to(Path(sys.executable).parent / "pycline")
    return folder


@pytest.fixture
def project(user: Path) -> Path:
    folder = user / "greeter"
    folder.mkdir()
    (folder / "app.py").write_text(
        'def greet(name: str) -> str:\n    return "Hello " + name\n\n\n'
        'if __name__ == "__main__":\n    print(greet("world"))\n',
        encoding="utf-8",
    )
    (folder / "web").mkdir()
    (folder / "web" / "greet.ts").write_text(
        "export const greet = (name: string): string => `Hello ${name}`;\n", encoding="utf-8"
    )
    return folder


def _env(user: Path, base_url: str, **extra: str) -> dict[str, str]:
    """The terminal's environment: a configured model (a fake OpenAI server) and nothing else
    of the test run's, but the mark the orphan check follows."""
    home = user / ".local" / "share" / "pycline"
    settings = home / "settings" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    config = {"provider": "openai", "model": MODEL, "baseUrl": base_url}
    settings.write_text(json.dumps(config), encoding="utf-8")
    SecretStore(home).set("openai", "sk-test")
    return {
        "PATH": f"{user / '.local' / 'bin'}:{os.environ['PATH']}",
        "HOME": str(user),
        "PYCLINE_HOME": str(home),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "PYCLINE_TEST_RUN": os.environ["PYCLINE_TEST_RUN"],
        **extra,
    }


PYCLINE = [sys.executable, "-m", "pycline"]


@pytest.mark.parametrize("width", [80, 56])
def test_the_first_screen_says_once_in_one_line_what_is_off_and_points_to_doctor(
    user: Path, project: Path, terminals: list[Terminal], width: int
) -> None:
    with FakeOpenAI([], models=(MODEL,)) as srv:
        # No browser here: the one named does not exist.
        env = _env(user, srv.base_url, PYCLINE_CHROMIUM=str(user / "no-such-browser"))
        first = Terminal(PYCLINE, cwd=project, env=env, width=width, height=20)
        terminals.append(first)
        screen = first.wait_for(r"Task>")
        rows = screen.splitlines()
        notices = [i for i, row in enumerate(rows) if "browser tool off" in row]
        assert len(notices) == 1, screen  # said once, not doubled
        row = rows[notices[0]]
        assert row.rstrip().endswith("how to fix"), screen  # the whole notice on one row
        assert "pycline doctor" in row
        assert all(len(r) < width for r in rows), screen  # nothing on the first screen wraps
        first.close()  # the notice was recorded as shown when it was printed

        again = Terminal(PYCLINE, cwd=project, env=env, width=width, height=20)
        terminals.append(again)
        assert "browser tool off" not in again.wait_for(r"Task>")  # once is enough


async def test_an_edit_waits_with_its_diff_and_the_screens_make_the_readme_pictures(
    user: Path, project: Path, terminals: list[Terminal]
) -> None:
    chromium = find_chromium()
    with FakeOpenAI([EDIT, DONE], models=(MODEL,)) as srv:
        env = _env(user, srv.base_url, PYCLINE_LANGUAGE_SERVERS="off")
        terminal = Terminal(PYCLINE, cwd=project, env=env, width=100, height=24)
        terminals.append(terminal)
        terminal.wait_for(r"Task>")
        terminal.send("make the greeting friendlier")
        screen = terminal.wait_for(r"Allow replace_in_file for 'app.py'\?")
        assert '+    return f"Hello, {name}!"' in screen
        assert (project / "app.py").read_text(encoding="utf-8").count("Hello ") == 1  # not yet
        picture = to_html(terminal.screen(colours=True), title="~/greeter — pycline")
        await save_png(picture, SCREENSHOTS / "terminal-edit.png", chromium)
        terminal.send("y")
        terminal.wait_for(r"Task completed")
    assert 'f"Hello, {name}!"' in (project / "app.py").read_text(encoding="utf-8")


async def test_doctor_in_a_terminal_lists_each_check_with_its_fix(
    user: Path, project: Path, terminals: list[Terminal]
) -> None:
    chromium = find_chromium()
    with FakeOpenAI([], models=(MODEL,)) as srv:
        env = _env(user, srv.base_url)
        terminal = Terminal([*PYCLINE, "doctor"], cwd=project, env=env, width=100, height=50)
        terminals.append(terminal)
        terminal.wait_for(r"(?m)\(\d+\.\ds\)\s*$", timeout=120)
        screen = terminal.transcript()
        picture = to_html(terminal.screen(colours=True), title="~/greeter — pycline doctor")
        await save_png(picture, SCREENSHOTS / "terminal-doctor.png", chromium)
    for name in ("install", "model", "sandbox", "browser", "python server", "typescript server"):
        assert re.search(rf"^\S {re.escape(name)}\s", screen, re.M), screen
    assert "key accepted" in screen
    assert "~/greeter" in next(row for row in screen.splitlines() if row.strip())
    assert all(len(row) < 100 for row in screen.splitlines())
