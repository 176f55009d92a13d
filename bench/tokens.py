"""Input tokens of a fixed 20-turn task: pycline as it is against a Cline-like configuration.

Run: .venv/bin/python bench/tokens.py [--per-turn]

The same scripted model replies (list, reads, edits, commands, a new file, re-reads of unchanged
files, completion) run through the real `Task` loop, tools and context manager, in a fresh
workspace each time. What each request sends (system prompt + messages, exactly as the provider
receives them) is counted at a fixed 4 characters per token, so the figures compare sizes rather
than any one vendor's tokenizer.

Configurations:
  pycline      our system prompt (default tools, no browser), environment details as the loop
               builds them (workspace listing on the first request only), our context manager.
  pycline-native   the same replies as native tool calls: the tools travel as JSON-schema
               definitions (counted as their JSON text) instead of in the system prompt.
  cline-like   a 54 KB system-prompt stand-in, and the full environment details (with the
               workspace listing) on every turn.
  cline-listing-once   as cline-like, but the listing only on the first request (what SPEC §6
               says Cline does), to show how much of the gap is the system prompt alone.

The stand-in follows SPEC §5 (Cline's VS Code prompt, ~50-58 KB; 54,000 characters of filler
here) and runs through our own loop, so it also gets our context manager's savings (superseded
copies and stale environment details left out of every request). For the real Cline CLI, measured
on the wire, see `cline_compare.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pycline.app.builders import wiring
from pycline.core.approval import AutoApprove
from pycline.core.task import Task, TaskSettings
from pycline.events import Answer, Event, Question
from pycline.parsing.blocks import TextBlock, ToolUseBlock
from pycline.parsing.stream import parse_assistant_message
from pycline.providers.scripted import (
    RecordedRequest,
    ScriptedCall,
    ScriptedProvider,
    ScriptedReply,
)
from pycline.testing import task_for
from pycline.workspace.paths import Workspace

CHARS_PER_TOKEN = 4
CLINE_PROMPT_BYTES = 54_000  # SPEC §5: Cline's prompt is ~50-58 KB
TASK = "Add a `power` function to src/calc.py with a test, and document it in the README."


def _function(name: str, i: int) -> str:
    return (
        f"def {name}(a: float, b: float) -> float:\n"
        f'    """Return the {name} of a and b (helper number {i})."""\n'
        f"    if a is None or b is None:\n"
        f"        raise ValueError('{name} needs two numbers')\n"
        f"    return a + b * {i}\n\n\n"
    )


def make_workspace(root: Path) -> None:
    """A small project: a few real modules plus enough files to make a listing."""
    src = root / "src"
    tests = root / "tests"
    src.mkdir()
    tests.mkdir()
    calc = "".join(_function(n, i) for i, n in enumerate(("add", "sub", "mul", "div", "mod")))
    (src / "calc.py").write_text('"""Arithmetic helpers."""\n\n\n' + calc, encoding="utf-8")
    util = "".join(_function(f"helper_{i}", i) for i in range(12))
    (src / "util.py").write_text('"""Utilities."""\n\n\n' + util, encoding="utf-8")
    (tests / "test_calc.py").write_text(
        "from src.calc import add\n\n\ndef test_add() -> None:\n    assert add(1, 2) == 3\n",
        encoding="utf-8",
    )
    readme = "# calc\n\nA tiny arithmetic library.\n\n## Functions\n\n" + "".join(
        f"- `{n}`: the {n} of two numbers.\n" for n in ("add", "sub", "mul", "div", "mod")
    )
    (root / "README.md").write_text(readme + "\nMore text. " * 60, encoding="utf-8")
    for i in range(40):
        pkg = root / "pkg" / f"mod{i // 10}"
        pkg.mkdir(parents=True, exist_ok=True)
        (pkg / f"file{i}.py").write_text(f"VALUE_{i} = {i}\n", encoding="utf-8")


def _read(path: str) -> str:
    return f"Reading {path}.\n<read_file>\n<path>{path}</path>\n</read_file>"


def _run(code: str) -> str:
    return (
        f'<execute_command>\n<command>{sys.executable} -c "{code}"</command>\n'
        "<requires_approval>false</requires_approval>\n</execute_command>"
    )


def _replace(path: str, search: str, replace: str) -> str:
    return (
        f"<replace_in_file>\n<path>{path}</path>\n<diff>\n------- SEARCH\n{search}\n=======\n"
        f"{replace}\n+++++++ REPLACE\n</diff>\n</replace_in_file>"
    )


POWER = (
    "def power(a: float, b: float) -> float:\n"
    '    """Return a raised to the power b."""\n'
    "    return a**b\n"
)


def script() -> list[str]:
    """Twenty replies: each one tool, as a model would answer."""
    return [
        "Let me look at the project.\n<list_files>\n<path>src</path>\n</list_files>",
        _read("src/calc.py"),
        _read("src/util.py"),
        _read("README.md"),
        "<search_files>\n<path>src</path>\n<regex>def (add|sub)</regex>\n</search_files>",
        _replace(
            "src/calc.py", '"""Arithmetic helpers."""', '"""Arithmetic helpers."""\n\n\n' + POWER
        ),
        _run("import src.calc as c; print(c.power(2, 10))"),
        _read("src/calc.py"),
        _read("src/util.py"),  # re-read of an unchanged file
        "<write_to_file>\n<path>src/constants.py</path>\n<content>\nBASE = 10\n</content>\n"
        "</write_to_file>",
        _run("import src.constants as k; print(k.BASE)"),
        _read("tests/test_calc.py"),
        _replace(
            "tests/test_calc.py",
            "from src.calc import add",
            "from src.calc import add, power",
        ),
        _run("print('tests would run here')"),
        _read("README.md"),  # re-read of an unchanged file
        "<list_code_definition_names>\n<path>src</path>\n</list_code_definition_names>",
        _replace(
            "README.md", "- `add`: the add of two numbers.", "- `add`: the sum.\n- `power`: a**b."
        ),
        _read("src/util.py"),  # and again
        _run("print('done')"),
        "<attempt_completion>\n<result>Added power() with a test and README entry.</result>\n"
        "</attempt_completion>",
    ]


class _Host:
    def say(self, event: Event) -> None:
        pass

    async def ask(self, question: Question) -> Answer:
        return Answer("yes")


class _ClineLikeTask(Task):
    """Full environment details, including the workspace listing, on every turn."""

    def __init__(self, task: Task, *, listing_every_turn: bool) -> None:
        super().__init__(task.deps, task.state)
        self._listing_every_turn = listing_every_turn

    def _environment(self, first_request: bool) -> str:
        return super()._environment(first_request or self._listing_every_turn)


@dataclass(frozen=True)
class Result:
    name: str
    per_turn: list[int]  # input tokens of each request

    @property
    def total(self) -> int:
        return sum(self.per_turn)


def _cline_prompt() -> str:
    line = "Cline-like system prompt stand-in: tool descriptions, rules, examples.\n"
    return (line * (CLINE_PROMPT_BYTES // len(line) + 1))[:CLINE_PROMPT_BYTES]


def _as_native(reply: str) -> ScriptedReply:
    """An XML reply as the same call made natively."""
    blocks = parse_assistant_message(reply)
    prose = "\n".join(b.content for b in blocks if isinstance(b, TextBlock))
    calls = tuple(ScriptedCall(b.name, b.params) for b in blocks if isinstance(b, ToolUseBlock))
    return ScriptedReply(text=prose, tool_calls=calls)


def _request_chars(request: RecordedRequest) -> int:
    tools = len(json.dumps([[t.name, t.description, t.parameters] for t in request.tools]))
    messages = sum(len(c.text) for m in request.messages for c in m.content if c.kind != "image")
    return len(request.system) + tools + messages


async def measure(
    name: str, *, cline_like: bool, listing_every_turn: bool, native: bool = False
) -> Result:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        home = Path(tmp) / "home"
        make_workspace(root)
        tools = wiring.default_tools(browser=False)
        ws = Workspace.at(root)
        replies = [_as_native(r) for r in script()] if native else script()
        provider = ScriptedProvider.of(*replies, chunk_size=64)
        system = (
            _cline_prompt() if cline_like else wiring.system_prompt(tools, ws.root, native=native)
        )
        settings = TaskSettings(
            auto_approve=AutoApprove(edit_files=True, execute_all_commands=True),
            headless=True,
            tool_call_format="native" if native else "xml",
        )
        task = task_for(
            home,
            root,
            provider,
            _Host(),
            tools=tools,
            settings=settings,
            task_text=TASK,
            system_prompt=system,
        )
        if cline_like:
            task = _ClineLikeTask(task, listing_every_turn=listing_every_turn)
        outcome = await task.start(TASK)
        if not outcome.completed:
            raise SystemExit(f"{name}: the scripted task did not complete: {outcome.reason}")
        per_turn = [_request_chars(r) // CHARS_PER_TOKEN for r in provider.requests]
        return Result(name, per_turn)


async def main(per_turn: bool) -> None:
    ours = await measure("pycline", cline_like=False, listing_every_turn=False)
    native = await measure(
        "pycline-native", cline_like=False, listing_every_turn=False, native=True
    )
    cline = await measure("cline-like", cline_like=True, listing_every_turn=True)
    once = await measure("cline-listing-once", cline_like=True, listing_every_turn=False)
    tools = wiring.default_tools(browser=False)
    prompt = wiring.system_prompt(tools, Path.cwd())
    print(f"system prompt: pycline {len(prompt):,} chars; Cline stand-in {CLINE_PROMPT_BYTES:,}")
    print(
        f"tokens counted at {CHARS_PER_TOKEN} characters per token; {len(ours.per_turn)} requests"
    )
    if per_turn:
        print(f"{'turn':>4} {'pycline':>9} {'cline-like':>11} {'listing-once':>13}")
        for i, (a, b, c) in enumerate(
            zip(ours.per_turn, cline.per_turn, once.per_turn, strict=True)
        ):
            print(f"{i + 1:>4} {a:>9,} {b:>11,} {c:>13,}")
    for result in (ours, native, cline, once):
        print(f"{result.name:>20}: {result.total:>9,} input tokens in total")
    print(f"pycline / cline-like = {ours.total / cline.total:.2f} (target <= 0.50)")
    print(f"pycline / cline-listing-once = {ours.total / once.total:.2f}")
    print(f"pycline-native / cline-like = {native.total / cline.total:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-turn", action="store_true", help="print every request's tokens")
    asyncio.run(main(parser.parse_args().per_turn))
