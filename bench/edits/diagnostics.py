"""Benchmark: type errors reported by real language servers in the same turn as the edit.

Run: .venv/bin/python bench/edits/diagnostics.py [--budget SECONDS]
(TypeScript needs typescript-language-server: .ci/run installs it under .ci/lsp.)

For Python (basedpyright) and TypeScript (typescript-language-server), 20 scripted edits each
introduce one type error into a clean file through replace_in_file, with the session's language
servers attached. Counted: edits whose tool result reports a server error (and how many of those
report exactly one), and the time the check adds to an edit, against the same edit without
servers. The first edit starts the server cold; it is shown on its own.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "src"))

from pycline.tools.base import Approval, ToolCall, ToolContext  # noqa: E402
from pycline.tools.edit import ReplaceInFileTool  # noqa: E402
from pycline.tools.services import ToolServices  # noqa: E402
from pycline.workspace.diagnostics.registry import DEFAULT_BUDGET, LanguageServers  # noqa: E402
from pycline.workspace.paths import Workspace  # noqa: E402

PY = """from dataclasses import dataclass


@dataclass
class Item:
    name: str
    price: float
    quantity: int


def total(items: list[Item]) -> float:
    return sum(i.price * i.quantity for i in items)


def label(item: Item) -> str:
    return item.name.upper()


def discount(price: float, percent: int) -> float:
    return price * (100 - percent) / 100


LIMIT: int = 10
NAMES: list[str] = ["a", "b"]
DEFAULT = Item("pen", 1.5, 2)
"""

PY_EDITS = [
    ("LIMIT: int = 10", 'LIMIT: int = "10"'),
    ('NAMES: list[str] = ["a", "b"]', 'NAMES: list[str] = ["a", 2]'),
    ('DEFAULT = Item("pen", 1.5, 2)', 'DEFAULT = Item("pen", "1.5", 2)'),
    ('DEFAULT = Item("pen", 1.5, 2)', 'DEFAULT = Item("pen", 1.5)'),
    ("    return item.name.upper()", "    return item.price.upper()"),
    ("    return item.name.upper()", "    return item.quantity"),
    ("    return price * (100 - percent) / 100", "    return str(price)"),
    (
        "    return sum(i.price * i.quantity for i in items)",
        "    return sum(i.cost for i in items)",
    ),
    ("LIMIT: int = 10", "LIMIT: int = discount(1.0, 5)"),
    ('NAMES: list[str] = ["a", "b"]', 'NAMES: list[str] = "ab"'),
    ('DEFAULT = Item("pen", 1.5, 2)', 'DEFAULT = Item("pen", 1.5, 2, 3)'),
    ("    return sum(i.price * i.quantity for i in items)", '    return len(items) + "0"'),
    (
        "def discount(price: float, percent: int) -> float:",
        "def discount(price: float, percent: int) -> None:",
    ),
    ("def label(item: Item) -> str:", "def label(item: Item) -> int:"),
    ("LIMIT: int = 10", "LIMIT: int = None"),
    ("    quantity: int", '    quantity: int = "one"'),
    ("    return item.name.upper()", "    return item.name.upper(1)"),
    ("    return price * (100 - percent) / 100", '    return price * (100 - percent) / "100"'),
    ('NAMES: list[str] = ["a", "b"]', 'NAMES: list[str] = ["a", "b"] + 3'),
    ("LIMIT: int = 10", "LIMIT: int = [10]"),
]

TS = """export interface Item {
  name: string;
  price: number;
  quantity: number;
}

export function total(items: Item[]): number {
  return items.reduce((sum, i) => sum + i.price * i.quantity, 0);
}

export function label(item: Item): string {
  return item.name.toUpperCase();
}

export function discount(price: number, percent: number): number {
  return (price * (100 - percent)) / 100;
}

export const limit: number = 10;
export const names: string[] = ["a", "b"];
export const defaultItem: Item = { name: "pen", price: 1.5, quantity: 2 };
"""

DEFAULT_ITEM = 'export const defaultItem: Item = { name: "pen", price: 1.5, quantity: 2 };'
TS_EDITS = [
    ("export const limit: number = 10;", 'export const limit: number = "10";'),
    ('export const names: string[] = ["a", "b"];', 'export const names: string[] = ["a", 2];'),
    (DEFAULT_ITEM, DEFAULT_ITEM.replace("1.5", '"1.5"')),
    (DEFAULT_ITEM, DEFAULT_ITEM.replace(", quantity: 2", "")),
    ("  return item.name.toUpperCase();", "  return item.price.toUpperCase();"),
    ("  return item.name.toUpperCase();", "  return item.quantity;"),
    ("  return (price * (100 - percent)) / 100;", "  return String(price);"),
    (
        "  return items.reduce((sum, i) => sum + i.price * i.quantity, 0);",
        "  return items.reduce((sum, i) => sum + i.cost, 0);",
    ),
    ("export const limit: number = 10;", "export const limit: number = true;"),
    ('export const names: string[] = ["a", "b"];', 'export const names: string[] = "ab";'),
    (DEFAULT_ITEM, DEFAULT_ITEM.replace("quantity: 2", 'quantity: 2, color: "red"')),
    (
        "  return items.reduce((sum, i) => sum + i.price * i.quantity, 0);",
        '  return items.length + "0";',
    ),
    (
        "export function discount(price: number, percent: number): number {",
        "export function discount(price: number, percent: number): void {",
    ),
    ("export function label(item: Item): string {", "export function label(item: Item): number {"),
    (
        'export const names: string[] = ["a", "b"];',
        'export const names: string[] = ["a", "b"].length;',
    ),
    ("export const limit: number = 10;", "export const limit: number = {};"),
    (DEFAULT_ITEM, DEFAULT_ITEM.replace("quantity: 2", 'quantity: "two"')),
    ("  return item.name.toUpperCase();", "  return item.name.toUpperCase(1);"),
    ("  return (price * (100 - percent)) / 100;", '  return (price * (100 - percent)) / "100";'),
    ('export const names: string[] = ["a", "b"];', 'export const names: string[] = [["a"], "b"];'),
]


def _context(root: Path, servers: LanguageServers | None) -> ToolContext:
    async def approve(*args: object, **kwargs: object) -> Approval:
        return Approval(True)

    async def ask(question: object) -> object:
        raise AssertionError("not asked")

    return ToolContext(
        workspace=Workspace.at(root),
        approve=approve,  # type: ignore[arg-type]
        say_fn=lambda event: None,
        ask_fn=ask,  # type: ignore[arg-type]
        model_family="claude",
        services=ToolServices(language_servers=servers),
    )


def _diff(search: str, replace: str) -> str:
    return f"------- SEARCH\n{search}\n=======\n{replace}\n+++++++ REPLACE"


def _server_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("- [") and "[syntax]" not in line]


async def _edit(ctx: ToolContext, path: Path, search: str, replace: str) -> tuple[float, str]:
    call = ToolCall("replace_in_file", {"path": path.name, "diff": _diff(search, replace)})
    started = time.perf_counter()
    result = await ReplaceInFileTool().run(call, ctx)
    elapsed = time.perf_counter() - started
    if result.is_error:
        raise SystemExit(f"edit failed: {result.text[:300]}")
    return elapsed, result.text


async def _language(
    name: str,
    suffix: str,
    base: str,
    edits: list[tuple[str, str]],
    limit: str,
    budget: float,
) -> None:
    """Each scripted edit introduces its error, then the next edit fixes it, as a model would."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        servers = LanguageServers(root, budget=budget)
        with_ctx, plain_ctx = _context(root, servers), _context(root, None)
        checked_file, plain_file = root / f"shop{suffix}", root / f"plain{suffix}"
        checked_file.write_text(base, encoding="utf-8")
        plain_file.write_text(base, encoding="utf-8")
        reported = exactly_one = quiet_fixes = 0
        added: list[float] = []
        cold = ""
        try:
            for i, (search, replace) in enumerate(edits):
                for step, (old, new) in enumerate(((search, replace), (replace, search))):
                    plain, _ = await _edit(plain_ctx, plain_file, old, new)
                    checked, text = await _edit(with_ctx, checked_file, old, new)
                    found = _server_lines(text)
                    if step == 0:
                        reported += bool(found)
                        exactly_one += len(found) == 1
                    else:
                        quiet_fixes += not found
                    if i == 0 and step == 0:
                        cold = f"{checked - plain:.2f} s added, {'reported' if found else 'missed'}"
                    else:
                        added.append(checked - plain)
            # Edits that introduce nothing: a push server may say nothing at all about them.
            neutral: list[float] = []
            for n in range(10, 20):
                old, new = limit.format(n), limit.format(n + 1)
                plain, _ = await _edit(plain_ctx, plain_file, old, new)
                checked, text = await _edit(with_ctx, checked_file, old, new)
                assert not _server_lines(text), text
                neutral.append(checked - plain)
        finally:
            await servers.close()
    added.sort()
    p90 = added[int(len(added) * 0.9) - 1]
    print(
        f"{name}: {reported}/{len(edits)} introduced type errors reported in the same turn "
        f"({exactly_one} as exactly one error); {quiet_fixes}/{len(edits)} fixes reported "
        "nothing new"
    )
    print(
        f"  added latency per edit (warm server, {len(added)} edits): median "
        f"{statistics.median(added):.2f} s, p90 {p90:.2f} s, max {added[-1]:.2f} s; "
        f"first edit (cold start): {cold}"
    )
    print(
        f"  edits that introduce no error ({len(neutral)}): median "
        f"{statistics.median(neutral):.2f} s added, max {max(neutral):.2f} s"
    )


def main() -> None:
    budget = DEFAULT_BUDGET
    if "--budget" in sys.argv:
        budget = float(sys.argv[sys.argv.index("--budget") + 1])
    ts = REPO / ".ci" / "lsp" / "node_modules" / ".bin" / "typescript-language-server"
    os.environ["PATH"] = f"{ts.parent}{os.pathsep}{os.environ['PATH']}"
    print(f"Diagnostics after edits (time budget {budget:.1f} s per check):")
    asyncio.run(_language("Python (basedpyright)", ".py", PY, PY_EDITS, "LIMIT: int = {}", budget))
    asyncio.run(
        _language(
            "TypeScript (typescript-language-server)",
            ".ts",
            TS,
            TS_EDITS,
            "export const limit: number = {};",
            budget,
        )
    )


if __name__ == "__main__":
    main()
