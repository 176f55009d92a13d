"""Double-check completion (Cline's `doubleCheckCompletionEnabled`): a completion attempt made
after the task changed files, and before any command ran to check them, is sent back once with a
request to check the work against the task first.

Cline sends back every first completion attempt. Here only an unchecked one is: a model that ran
a command after its last change (its tests, a build, the changed code on an example) finishes at
once, and an attempt made again right after being sent back goes through. A test command that
ran no tests (`[no test files]`, `collected 0 items`) checked nothing, so it does not count. A
first attempt made before any tool ran at all (a small model may claim work it never did) is sent
back once too.
With a verified goal (`/verify`) the goal's own check decides instead. The setting defaults to on
for the compact prompt profile (a small model often says it is done without having run
anything) and off otherwise."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from pycline.context.results import result_header
from pycline.core.capability import Capability, RunContext
from pycline.core.loops import reminded
from pycline.core.turn import Step
from pycline.events import Notice
from pycline.messages import Message, TextContent
from pycline.prompts import responses
from pycline.tools.base import ToolCall


def usual_check(root: Path) -> str | None:
    """The project's usual check, by the files that mark its kind; None when none is known to
    run here (TypeScript's compiler only when the project has it installed: `npx` would try to
    download it)."""
    if (root / "go.mod").is_file():
        return "go test ./..."
    if (root / "Cargo.toml").is_file():
        return "cargo test"
    if any((root / name).is_file() for name in ("pyproject.toml", "setup.py", "pytest.ini")):
        return "python -m pytest"
    if _has_test_script(root / "package.json"):
        return "npm test"
    if (root / "tsconfig.json").is_file() and (root / "node_modules" / ".bin" / "tsc").exists():
        return "npx tsc --noEmit"
    return None


def _has_test_script(package: Path) -> bool:
    try:
        scripts = json.loads(package.read_text(encoding="utf-8")).get("scripts")
    except (OSError, ValueError, AttributeError):
        return False
    return isinstance(scripts, dict) and isinstance(scripts.get("test"), str)


# How to run a changed file's code on an example, by its language, when the project has no
# known check.
RUN_EXAMPLE: Final = {".py": "python3 -c", ".js": "node -e", ".mjs": "node -e", ".go": "go run"}


def check_first(task: str, changed: list[str], check: str | None) -> str:
    files = ", ".join(changed[:5]) + (" …" if len(changed) > 5 else "")
    if check:
        how = (
            f"run the project's tests or build with execute_command (for example `{check}`), or "
            "run the changed code on the task's own example"
        )
    else:
        runner = next((RUN_EXAMPLE[s] for s in map(_suffix, changed) if s in RUN_EXAMPLE), None)
        with_runner = f" (with `{runner}` …)" if runner else ""
        how = f"run the changed code on the task's own example with execute_command{with_runner}"
    return (
        f"Not finished yet: you changed {files} and have not run anything since. Check the "
        f"change first: {how}, and read the result. Fix what fails; when the check passes, call "
        "attempt_completion again.\n"
        f"The task is:\n<task>\n{reminded(task)}\n</task>"
    )


# What test runners print when they found no test to run (Go, pytest, unittest, Jest, Vitest,
# Mocha, cargo), and what they print when some ran: an output with the first and none of the
# second ran no test.
_NO_TESTS: Final = re.compile(
    r"\[no test files\]|collected 0 items|no tests ran|^Ran 0 tests|No tests found"
    r"|No test files found|^\s*0 passing|running 0 tests",
    re.MULTILINE | re.IGNORECASE,
)
_SOME_RAN: Final = re.compile(
    r"^(ok|FAIL|PASS)\b|^--- (PASS|FAIL)|\b[1-9]\d* (passed|failed|passing|failing)\b"
    r"|^Ran [1-9]|running [1-9]\d* tests?|Tests?:\s+[1-9]",
    re.MULTILINE,
)


def ran_no_tests(output: str) -> bool:
    """The command's output says its test runner found no test to run, and none ran."""
    return _NO_TESTS.search(output) is not None and _SOME_RAN.search(output) is None


def no_tests_ran(task: str, command: str) -> str:
    return (
        f"Not finished yet: `{command}` ran no tests, so it checked nothing. Check the change on "
        "the task's own example: add a small test that runs it (or run the changed code on it) "
        "with execute_command, and read the result. Fix what fails; when the check passes, call "
        "attempt_completion again.\n"
        f"The task is:\n<task>\n{reminded(task)}\n</task>"
    )


SENT_BACK: Final = "Double-check: the completion goes back to the model to be checked first"
NOTHING_DONE: Final = (
    "Not finished yet: no tool has run in this task, so nothing was read, changed or checked. "
    "If the task needs a change, make it with the tools, then check it; if it only asks a "
    "question, call attempt_completion again with the answer."
)


def _suffix(path: str) -> str:
    return Path(path).suffix.lower()


class DoubleCheck(Capability):
    def __init__(self) -> None:
        self._changed: list[str] = []  # files changed since the last check ran
        self._no_tests = ""  # the command since the last change, when it ran no tests
        self._asked: set[str] = set()  # why this change was sent back already (once each)
        self._idle_asked = False  # a completion with nothing done was sent back

    async def after_tool(
        self, ctx: RunContext, call: ToolCall, result: str, ok: bool, ms: int
    ) -> str:
        effect = ctx.facts(call.name).effect
        if effect == "execute":
            if self._changed and ran_no_tests(result):
                self._no_tests = call.get("command") or call.name  # checked nothing
            else:
                self._changed, self._no_tests = [], ""
                self._asked.clear()
        elif effect == "edit" and ok:
            path = call.get("path") or call.name
            if path not in self._changed:
                self._changed.append(path)
            self._no_tests = ""
            self._asked.clear()  # a new change, to be checked anew
        return ""

    async def answer_instead(self, ctx: RunContext, call: ToolCall, call_id: str) -> Step | None:
        if call.name != "attempt_completion" or ctx.record.goal:
            return None
        header = responses.tool_header("attempt_completion")
        if not self._changed:
            if self._idle_asked or _acted(ctx.history):
                return None
            self._idle_asked = True  # sent back once: the next attempt goes on
            ctx.say(Notice(f"{SENT_BACK}: no tool has run in this task yet."))
            return Step([TextContent(f"{header}\n{NOTHING_DONE}")])
        command = self._no_tests
        why = "no tests" if command else "unchecked"
        if why in self._asked:
            return None  # sent back once for this already: the next attempt goes on
        self._asked.add(why)
        files = ", ".join(self._changed[:5])
        if command:
            ctx.say(Notice(f"{SENT_BACK}: {files} changed, and `{command}` ran no tests."))
            text = no_tests_ran(ctx.record.task, command)
        else:
            ctx.say(Notice(f"{SENT_BACK}: {files} changed, and nothing ran since."))
            text = check_first(ctx.record.task, self._changed, usual_check(ctx.workspace.root))
        return Step([TextContent(f"{header}\n{text}")])


def _acted(history: Sequence[Message]) -> bool:
    """A tool other than attempt_completion has run in the task (a resumed one included)."""
    for message in history:
        header = result_header(message)
        if header is not None and header.tool != "attempt_completion":
            return True
    return False
