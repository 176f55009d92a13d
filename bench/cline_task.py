"""The scripted N-turn tasks of `cline_compare.py`, and each step as each agent calls it.

Three task shapes, each on a small Python project; every step is one tool call, the last turn
finishes. The Cline CLI and pycline get the same steps under their own tool names (Cline 3.x:
read_files, search_codebase, apply_patch, run_commands and a reply without tool calls to finish;
pycline: read_file, search_files, replace_in_file, write_to_file, execute_command,
attempt_completion).

- `reread`: twelve modules with a `COUNTER`, a README, a `check.py` report; the model cycles
  through ten steps: read a module, search, edit it, run the report, re-read the module, read and
  edit a second one, run the report, search again, read the README. Much to de-duplicate.
- `notes`: reads of five small files alternate with writes of new notes (a long task with little
  to de-duplicate: only the five files come back).
- `fresh`: every turn is new: write a new note, run a command whose output is new, read a data
  file not read before, search for a term not searched before. Nothing to de-duplicate.

`verify` tells whether every write and edit landed in the workspace.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeAlias

Shape: TypeAlias = Literal["reread", "notes", "fresh"]
SHAPES: tuple[Shape, ...] = ("reread", "notes", "fresh")

MODULES = 12
CYCLE = 10
NOTE_SOURCES = 5
TASKS: dict[Shape, str] = {
    "reread": (
        "Work through the modules in src/: for each one, read it, bump its COUNTER by one, run "
        "`python3 check.py` to confirm, and keep the README in mind. Continue until I stop you."
    ),
    "notes": (
        "Study the five modules in src/ one after another, again and again, and after each "
        "reading write down what you noticed as a new note in notes/. Continue until I stop you."
    ),
    "fresh": (
        "Go through the data files in data/ one by one: for each, write a note in notes/, run "
        "`python3 report.py N` for its number, read the file and search for its id. Continue "
        "until I stop you."
    ),
}
TASK = TASKS["reread"]
FINISH = "Done: the work is finished and checked."

Flavour: TypeAlias = Literal["cline", "pycline-native", "pycline-xml"]


@dataclass(frozen=True)
class Step:
    kind: Literal["read", "search", "edit", "write", "run", "finish"]
    arg: str = ""  # a path, a regex or a command
    old: str = ""
    new: str = ""  # an edit's new text, a written file's content

    @property
    def prose(self) -> str:
        match self.kind:
            case "read":
                return f"Reading {self.arg}."
            case "search":
                return f"Searching for `{self.arg}`."
            case "edit":
                return f"Bumping the counter in {self.arg}."
            case "write":
                return f"Writing {self.arg}."
            case "run":
                return f"Running `{self.arg}`."
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


def _small_module(k: int) -> str:
    functions = "".join(
        f"def rule_{k}_{i}(value: int) -> bool:\n"
        f'    """Rule {i} of module {k}: multiples of {i + 2} pass."""\n'
        f"    return value % {i + 2} == 0\n\n\n"
        for i in range(8)
    )
    return f'"""Module {k}: validation rules."""\n\n\n{functions}'


def _note(t: int) -> str:
    lines = [f"# Note {t}", ""]
    lines += [
        f"- observation {t}.{i}: the value {t * 37 + i * 11} follows rule {(t + i) % 8} "
        f"of module {(t + i) % NOTE_SOURCES}; checked against batch {t * 3 + i}."
        for i in range(8)
    ]
    return "\n".join(lines) + "\n"


def _data(n: int) -> str:
    rows = [f"id {n:04d}-{i:02d}: sample {n * 101 + i * 7} weight {(n * 13 + i) % 97}"
            for i in range(24)]  # fmt: skip
    return f"# data file {n}\n" + "\n".join(rows) + "\n"


CHECK = '''"""Report every module's counter and size."""
import pathlib
import re

for path in sorted(pathlib.Path("src").glob("mod_*.py")):
    text = path.read_text()
    counter = re.search(r"^COUNTER = (\\d+)$", text, re.M)
    print(f"{path}: COUNTER={counter.group(1) if counter else '?'} lines={text.count(chr(10))}")
print("all modules checked")
'''

REPORT = '''"""Print a report for data file N."""
import sys

n = int(sys.argv[1])
for i in range(20):
    print(f"report {n:04d} line {i:02d}: total {n * 997 + i * 31} mean {(n * 7 + i) % 113}")
'''


def make_project(root: Path, shape: Shape = "reread", turns: int = 0) -> None:
    (root / "src").mkdir(parents=True)
    if shape == "reread":
        for k in range(MODULES):
            (root / "src" / f"mod_{k:02d}.py").write_text(_module(k), encoding="utf-8")
        (root / "check.py").write_text(CHECK, encoding="utf-8")
        readme = "# batches\n\nHelpers that sum batches of values.\n\n" + "".join(
            f"- `src/mod_{k:02d}.py`: batch helpers {k}, with a COUNTER bumped on each release.\n"
            for k in range(MODULES)
        )
        (root / "README.md").write_text(readme, encoding="utf-8")
        return
    (root / "notes").mkdir()
    for k in range(NOTE_SOURCES):
        (root / "src" / f"rules_{k}.py").write_text(_small_module(k), encoding="utf-8")
    if shape == "fresh":
        (root / "data").mkdir()
        for n in range(turns // 4 + 1):
            (root / "data" / f"part_{n:04d}.txt").write_text(_data(n), encoding="utf-8")
        (root / "report.py").write_text(REPORT, encoding="utf-8")


def steps(turns: int, shape: Shape = "reread") -> list[Step]:
    """The model's replies: `turns - 1` tool steps, then the finish."""
    body = {"reread": _reread, "notes": _notes, "fresh": _fresh}[shape](turns - 1)
    return [*body, Step("finish")]


def _reread(count: int) -> list[Step]:
    counters = [0] * MODULES
    out: list[Step] = []

    def edit(k: int) -> Step:
        path = f"src/mod_{k:02d}.py"
        old, counters[k] = counters[k], counters[k] + 1
        return Step("edit", path, f"COUNTER = {old}", f"COUNTER = {old + 1}")

    for t in range(count):
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
    return out


def _notes(count: int) -> list[Step]:
    return [
        Step("read", f"src/rules_{t // 2 % NOTE_SOURCES}.py")
        if t % 2 == 0
        else Step("write", f"notes/note_{t:04d}.md", new=_note(t))
        for t in range(count)
    ]


def _fresh(count: int) -> list[Step]:
    out: list[Step] = []
    for t in range(count):
        n = t // 4
        match t % 4:
            case 0:
                out.append(Step("write", f"notes/note_{t:04d}.md", new=_note(t)))
            case 1:
                out.append(Step("run", f"python3 report.py {n}"))
            case 2:
                out.append(Step("read", f"data/part_{n:04d}.txt"))
            case _:
                out.append(Step("search", f"^id {n:04d}-1[0-9]"))
    return out


def verify(root: Path, turns: int, shape: Shape) -> str | None:
    """None when every write and edit of the task landed in the workspace, else what is wrong."""
    if shape == "reread":
        if counters_in(root) != expected_counters(turns):
            return "not every edit landed in the workspace"
        return None
    for step in steps(turns, shape):
        if step.kind != "write":
            continue
        path = root / step.arg
        if not path.exists() or path.read_text(encoding="utf-8").strip() != step.new.strip():
            return f"{step.arg} was not written as asked"
    return None


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
        case "write":
            added = "".join(f"+{line}\n" for line in step.new.splitlines())
            patch = f"*** Begin Patch\n*** Add File: {root / step.arg}\n{added}*** End Patch"
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
        case "write":
            return "write_to_file", {"path": step.arg, "content": step.new}
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


Piece: TypeAlias = tuple[str, str]  # (where it stands: tools, a role, a call; its text)


def request_pieces(body: dict[str, Any]) -> list[Piece]:
    """What one chat-completions request sends, in order, counted alike for every agent: the
    tool definitions as JSON, message texts (system, user, assistant, tool results), the calls'
    names and arguments. Framing (roles, ids, JSON punctuation) tells pieces apart but is not
    counted."""
    out: list[Piece] = [("tools", json.dumps(body.get("tools") or []))]
    for message in body.get("messages") or []:
        role = str(message.get("role"))
        content = message.get("content")
        if isinstance(content, str):
            out.append((role, content))
        elif isinstance(content, list):
            out.extend((role, str(part.get("text", ""))) for part in content)
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            out.append(("call", str(function.get("name", ""))))
            out.append(("arguments", str(function.get("arguments", ""))))
    return out


def request_chars(body: dict[str, Any]) -> int:
    """The characters of `request_pieces`."""
    return sum(len(text) for _, text in request_pieces(body))
