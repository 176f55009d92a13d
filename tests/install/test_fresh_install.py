"""A fresh install with nothing but the README's set-up command, used as a new user would.

The clone is this working tree's files; the install runs the README's own command line in a new
home folder, with the network replaced by what `.ci/run` prepared: every dependency's wheel
(`.ci/wheels`) and npm's cache of the language servers pycline installs on first use
(`.ci/npm-cache`, used offline). Then, in a project: a type error introduced by an edit in a
Python file and in a TypeScript file reaches the model on the next request, the browser tool
opens a local page, and `pycline doctor` says all of that works.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import serving
from tests.fakes.openai_server import FakeOpenAI
from tests.install.clone import clone_working_tree

REPO = Path(__file__).resolve().parents[2]
WHEELS = REPO / ".ci" / "wheels"
NPM_CACHE = REPO / ".ci" / "npm-cache"
# The user's python3 is the one the tests run on (the wheels in .ci/wheels were chosen for it).
SYSTEM_PATH = f"{Path(sys._base_executable).parent}:/usr/local/bin:/usr/bin:/bin"
MODEL = "fresh-model"


def readme_install_command() -> str:
    """The README's first set-up command (the one after `git clone … && cd …`)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", readme, re.S)
    assert blocks[0].startswith("git clone "), "the README starts with the clone"
    command = blocks[1].strip()
    assert "install.sh" in command and "\n" not in command, command
    return command


@dataclass(frozen=True)
class Install:
    user: Path  # the new user's home folder
    clone: Path
    output: str
    npm_cache: Path

    @property
    def bin(self) -> Path:
        return self.user / ".local" / "bin"

    def env(self, **extra: str) -> dict[str, str]:
        """A shell of this user after adding ~/.local/bin to PATH, as the installer said."""
        return {
            "HOME": str(self.user),
            "PATH": f"{self.bin}:{SYSTEM_PATH}",
            "LANG": "C.UTF-8",
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
            # npm has no network here: it installs from the cache .ci/run filled.
            "npm_config_cache": str(self.npm_cache),
            "npm_config_offline": "true",
            "PYCLINE_TEST_RUN": os.environ["PYCLINE_TEST_RUN"],
            **extra,
        }

    def run(self, *args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bin / "pycline"), *args],
            cwd=cwd,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Install:
    for prepared in (WHEELS, NPM_CACHE):
        assert (prepared / ".stamp").is_file(), f"{prepared} is missing: run bash .ci/run"
    root = tmp_path_factory.mktemp("fresh")
    user, clone = root / "user", root / "user" / "src" / "pycline"
    clone_working_tree(clone)
    npm_cache = root / "npm-cache"
    shutil.copytree(NPM_CACHE, npm_cache)  # npm writes into its cache; the prepared one stays
    env = {
        "HOME": str(user),
        "PATH": SYSTEM_PATH,  # ~/.local/bin not on it yet, as on many machines
        "LANG": "C.UTF-8",
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(WHEELS),
        "PYCLINE_TEST_RUN": os.environ["PYCLINE_TEST_RUN"],
        # As on a system without the bash-completion package, whatever this machine has.
        "PYCLINE_BASH_COMPLETION_LOADERS": str(root / "no-bash-completion"),
    }
    done = subprocess.run(
        ["bash", "-c", readme_install_command()],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return Install(user, clone, done.stdout + done.stderr, npm_cache)


def test_the_readme_install_puts_only_the_pycline_command_on_path(installed: Install) -> None:
    assert [p.name for p in installed.bin.iterdir()] == ["pycline"]
    venv = installed.user / ".local" / "share" / "pycline-agent" / "venv"
    assert (installed.bin / "pycline").resolve() == (venv / "bin" / "pycline").resolve()
    # ~/.local/bin was not on PATH: the installer says how to add it.
    assert "is not on your PATH" in installed.output
    assert 'export PATH="' in installed.output
    shell = subprocess.run(
        ["bash", "-c", "pycline --version; command -v python3; python3 -c 'import pycline'"],
        env=installed.env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = shell.stdout.splitlines()
    assert lines[0] == "pycline-agent 0.1.0"
    assert lines[1] == shutil.which("python3", path=SYSTEM_PATH)  # the user's own python3
    assert "No module named 'pycline'" in shell.stderr  # pycline's packages stay in its venv
    completion = installed.user / ".local/share/bash-completion/completions/pycline"
    assert "complete -o filenames -F _pycline pycline" in completion.read_text(encoding="utf-8")
    # Without the bash-completion package that file is never read: the installer says so.
    assert "bash-completion package, which is not installed" in installed.output
    assert 'eval "$(pycline completion bash)"' in installed.output
    # pip's build leaves nothing in the clone.
    assert not (installed.clone / "build").exists()
    assert not list((installed.clone / "src").glob("*.egg-info"))


# --- a task in a project ---------------------------------------------------------------------

PAGE = (
    "<!doctype html><title>Fresh</title><h1>It works</h1>"
    "<script>console.log('fresh page says hello')</script>"
)


def _edit(path: str, search: str, replace: str) -> str:
    return (
        f"<replace_in_file>\n<path>{path}</path>\n<diff>\n------- SEARCH\n{search}\n=======\n"
        f"{replace}\n+++++++ REPLACE\n</diff>\n</replace_in_file>"
    )


def _browser(action: str, url: str = "") -> str:
    where = f"<url>{url}</url>\n" if url else ""
    return f"<browser_action>\n<action>{action}</action>\n{where}</browser_action>"


@dataclass(frozen=True)
class TaskRun:
    project: Path
    proc: subprocess.CompletedProcess[str]
    requests: list[dict[str, Any]]


@pytest.fixture(scope="module")
def page_url() -> Iterator[str]:
    with serving() as site:
        yield site.add("/", PAGE)


@pytest.fixture(scope="module")
def fake_model() -> Iterator[FakeOpenAI]:
    with FakeOpenAI([], models=(MODEL,)) as srv:
        yield srv


def _configure(installed: Install, base_url: str) -> None:
    home = installed.user / ".local" / "share" / "pycline"
    settings = home / "settings" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(
        json.dumps(
            {
                "provider": "openai",
                "model": MODEL,
                "baseUrl": base_url,
                "modelInfo": {"contextWindow": 32768, "supportsImages": True},
                # Two cores shared by many test runs: a server's first start may be slow.
                "diagnosticsTimeout": 120,
            }
        ),
        encoding="utf-8",
    )


@pytest.fixture(scope="module")
def task_run(installed: Install, fake_model: FakeOpenAI, page_url: str) -> TaskRun:
    project = installed.user / "shop"
    project.mkdir()
    (project / "prices.py").write_text(
        "def total(prices: list[int]) -> int:\n    return sum(prices)\n", encoding="utf-8"
    )
    (project / "cart.ts").write_text(
        "export function count(items: string[]): number {\n  return items.length;\n}\n",
        encoding="utf-8",
    )
    _configure(installed, fake_model.base_url)
    fake_model.add(
        _edit("prices.py", "    return sum(prices)", '    return f"{sum(prices)} EUR"'),
        _edit("cart.ts", "  return items.length;", "  return `${items.length} items`;"),
        _browser("launch", page_url),
        _browser("close"),
        "<attempt_completion>\n<result>Done.</result>\n</attempt_completion>",
    )
    proc = installed.run("run", "--yes", "show prices and counts as text", cwd=project)
    requests = [r.body for r in fake_model.completions]
    return TaskRun(project, proc, requests)


def _said_after(request: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """The text and the image parts of the last message of a request (the tool's result)."""
    content = request["messages"][-1]["content"]
    if isinstance(content, str):
        return content, []
    text = "\n".join(p.get("text", "") for p in content if p.get("type") == "text")
    return text, [p for p in content if p.get("type") == "image_url"]


def test_a_python_type_error_from_an_edit_reaches_the_model_on_the_next_request(
    task_run: TaskRun,
) -> None:
    assert task_run.proc.returncode == 0, task_run.proc.stdout + task_run.proc.stderr
    said, _ = _said_after(task_run.requests[1])
    assert "prices.py" in said
    assert re.search(r'"str" is not assignable to return type "int"', said), said


def test_a_typescript_type_error_from_an_edit_reaches_the_model_after_the_server_is_installed(
    installed: Install, task_run: TaskRun
) -> None:
    said, _ = _said_after(task_run.requests[2])
    assert "Type 'string' is not assignable to type 'number'." in said, said
    lsp = installed.user / ".local" / "share" / "pycline" / "lsp" / "typescript"
    assert (lsp / "node_modules" / "typescript-language-server").is_dir()
    assert "Installing typescript-language-server@" in task_run.proc.stdout


def test_the_browser_tool_opens_a_local_page(task_run: TaskRun) -> None:
    said, images = _said_after(task_run.requests[3])
    assert "fresh page says hello" in said, said  # the page's console
    assert images and images[0]["image_url"]["url"].startswith("data:image/png;base64,")


def test_doctor_reports_the_model_the_servers_the_browser_and_the_sandbox_working(
    installed: Install, task_run: TaskRun
) -> None:
    proc = installed.run("doctor", "--json", cwd=task_run.project)
    report = json.loads(proc.stdout)
    assert proc.returncode == 0, proc.stdout
    checks = {c["name"]: c for c in report["checks"]}
    names = ("install", "model", "python server", "typescript server", "browser", "sandbox", "git")
    for name in names:
        assert checks[name]["status"] == "ok", checks[name]
    assert "key accepted" in checks["model"]["detail"] or "reachable" in checks["model"]["detail"]
    assert "starts" in checks["typescript server"]["detail"]  # installed by the task's edit
    assert "opens pages" in checks["browser"]["detail"]
    assert report["version"] == "pycline-agent 0.1.0"
