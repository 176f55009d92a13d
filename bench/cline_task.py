"""The scripted N-turn task of `cline_compare.py`, and the same step as each agent calls it.

A small Python project (twelve modules with a `COUNTER`, a README, a `check.py` report) is worked
on by a model that cycles through ten steps: read a module, search, edit it, run the report,
re-read the module, read and edit a second one, run the report, search again, read the README.
The last turn finishes. Every step is one tool call; the Cline CLI and pycline get the same steps
under their own tool names (Cline 3.x: read_files, search_codebase, apply_patch, run_commands and
a reply without tool calls to finish; pycline: read_file, search_files, replace_in_file,
execute_command, attempt_completion). Edits raise a module's counter, so `expected_counters` tells
whether every edit landed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeAlias

MODULES = 12
CYCLE = 10
TASK = (
    "Work through the modules in src/: for each one, read it, bump its COUNTER by one, run "
    "`python3 check.py` to confirm, and keep the README in mind. Continue until I stop you."
)
FINISH = "Done: the counters were bumped and check.py confirms each change."

Flavour: TypeAlias = Literal["cline", "pycline-native", "pycline-xml"]


@dataclass(frozen=True)
class Step:
    kind: Literal["read", "search", "edit", "run", "finish"]
    arg: str = ""  # a path, a regex or a command
    old: str = ""
    new: str = ""

    @property
    def prose(self) -> str:
        match self.kind:
            case "read":
                return f"Reading {self.arg}."
            case "search":
                return f"Searching for `{self.arg}`."
            case "edit":
                return f"Bumping the counter in {self.arg}."
            case "run":
                return "Running the report."
            case "finish":
                return FINISH
        raise AssertionError(self.kind)


def _module(k: int) -> str:
    functions = "".join(
        f"def helper_{k}_{i}(values: list[int], scale: int = {i + 1}) -> int:\n"
        f'    """Sum the values of batch {i} in module {k}, scaled by {i + 1}."""\n'
        f"    total = 0\n"
        f"    for value in values:\n"
        f"        total += value * scale\n"
        f"    return total + COUNTER\n\n\n"
        for i in range(10)
    )
    return f'"""Module {k}: batch helpers."""\n\nCOUNTER = 0\n\n\n{functions}'


CHECK = '''"""Report every module's counter and size."""
import pathlib
import re

for path in sorted(pathlib.Path("src").glob("mod_*.py")):
    text = path.read_text()
    counter = re.search(r"^COUNTER = (\\d+)$", text, re.M)
    print(f"{path}: COUNTER={counter.group(1) if counter else '?'} lines={text.count(chr(10))}")
print("all modules checked")
'''


def make_project(root: Path) -> None:
    (root / "src").mkdir(parents=True)
    for k in range(MODULES):
        (root / "src" / f"mod_{k:02d}.py").write_text(_module(k), encoding="utf-8")
    (root / "check.py").write_text(CHECK, encoding="utf-8")
    readme = "# batches\n\nHelpers that sum batches of values.\n\n" + "".join(
        f"- `src/mod_{k:02d}.py`: batch helpers {k}, with a COUNTER bumped on each release.\n"
        for k in range(MODULES)
    )
    (root / "README.md").write_text(readme, encoding="utf-8")


def steps(turns: int) -> list[Step]:
    """The model's replies: `turns - 1` tool steps, then the finish."""
    counters = [0] * MODULES
    out: list[Step] = []

    def edit(k: int) -> Step:
        path = f"src/mod_{k:02d}.py"
        old, counters[k] = counters[k], counters[k] + 1
        return Step("edit", path, f"COUNTER = {old}", f"COUNTER = {old + 1}")

    for t in range(turns - 1):
        k = (t // CYCLE) % MODULES
        j = (k + 5) % MODULES
        match t % CYCLE:
            case 0 | 4:
                out.append(Step("read", f"src/mod_{k:02d}.py"))
            case 1:
                out.append(Step("search", f"def helper_{k}_[0-9]"))
            case 2:
                out.append(edit(k))
            case 3 | 7:
                out.append(Step("run", "python3 check.py"))
            case 5:
                out.append(Step("read", f"src/mod_{j:02d}.py"))
            case 6:
                out.append(edit(j))
            case 8:
                out.append(Step("search", "^COUNTER = "))
            case _:
                out.append(Step("read", "README.md"))
    out.append(Step("finish"))
    return out


def expected_counters(turns: int) -> list[int]:
    counters = [0] * MODULES
    for step in steps(turns):
        if step.kind == "edit":
            counters[int(step.arg[-5:-3])] += 1
    return counters


def counters_in(root: Path) -> list[int]:
    out = []
    for k in range(MODULES):
        text = (root / "src" / f"mod_{k:02d}.py").read_text(encoding="utf-8")
        line = next(x for x in text.splitlines() if x.startswith("COUNTER = "))
        out.append(int(line.split("=")[1]))
    return out


# --- the step as each agent calls it --------------------------------------------------------


def cline_call(step: Step, root: Path) -> tuple[str, dict[str, Any]] | None:
    match step.kind:
        case "read":
            return "read_files", {"files": [{"path": str(root / step.arg)}]}
        case "search":
            return "search_codebase", {"queries": [step.arg]}
        case "edit":
            patch = (
                f"*** Begin Patch\n*** Update File: {root / step.arg}\n@@\n"
                f"-{step.old}\n+{step.new}\n*** End Patch"
            )
            return "apply_patch", {"input": patch}
        case "run":
            return "run_commands", {"commands": [step.arg]}
        case "finish":
            return None  # Cline 3.x ends the task on a reply without tool calls
    raise AssertionError(step.kind)


def pycline_call(step: Step, *, native: bool) -> tuple[str, dict[str, Any]]:
    match step.kind:
        case "read":
            return "read_file", {"path": step.arg}
        case "search":
            return "search_files", {"path": ".", "regex": step.arg}
        case "edit":
            diff = f"------- SEARCH\n{step.old}\n=======\n{step.new}\n+++++++ REPLACE"
            return "replace_in_file", {"path": step.arg, "diff": diff}
        case "run":
            approval = False if native else "false"  # the native schema says boolean
            return "execute_command", {"command": step.arg, "requires_approval": approval}
        case "finish":
            return "attempt_completion", {"result": FINISH}
    raise AssertionError(step.kind)


def as_xml(name: str, params: dict[str, Any]) -> str:
    inner = "".join(f"<{k}>\n{v}\n</{k}>\n" if "\n" in str(v) else f"<{k}>{v}</{k}>\n"
                    for k, v in params.items())  # fmt: skip
    return f"<{name}>\n{inner}</{name}>"


def request_chars(body: dict[str, Any]) -> int:
    """What one chat-completions request sends, in characters, counted alike for every agent:
    message texts (system, user, assistant, tool results), the calls' names and arguments, and
    the tool definitions as JSON. Framing (roles, ids, JSON punctuation) is left out."""
    total = len(json.dumps(body.get("tools") or []))
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            total += len(content)
        elif isinstance(content, list):
            total += sum(len(str(part.get("text", ""))) for part in content)
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            total += len(str(function.get("name", ""))) + len(str(function.get("arguments", "")))
    return total
