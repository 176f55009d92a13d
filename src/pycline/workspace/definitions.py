"""Top-level definitions of the source files in a folder, via tree-sitter (SPEC §2).

Like Cline: the files directly in the folder (not its subfolders), at most 50, each with the
lines that define classes, functions, methods, types…, separated by `|----` where lines are
skipped. Grammars and queries load on first use of a language.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from pycline.workspace.access import AccessRules
from pycline.workspace.confined import read_file
from pycline.workspace.listing import list_workspace
from pycline.workspace.tag_queries import EXTENSIONS, LANGUAGES

if TYPE_CHECKING:
    import tree_sitter

MAX_FILES = 50
MAX_FILE_BYTES = 1_000_000
MAX_LINE = 200
NO_DEFINITIONS = "No source code definitions found."


@dataclass(frozen=True, slots=True)
class _Grammar:
    parser: tree_sitter.Parser
    query: tree_sitter.Query


@cache
def _grammar(language: str) -> _Grammar:
    import tree_sitter

    spec = LANGUAGES[language]
    module = importlib.import_module(spec.module)
    lang = tree_sitter.Language(getattr(module, spec.function)())
    return _Grammar(tree_sitter.Parser(lang), tree_sitter.Query(lang, spec.query))


def language_for(path: Path) -> str | None:
    return EXTENSIONS.get(path.suffix.lower())


def definition_rows(source: bytes, language: str) -> list[int]:
    """The (0-based) lines on which a definition's name appears, in order."""
    import tree_sitter

    grammar = _grammar(language)
    tree = grammar.parser.parse(source)
    cursor = tree_sitter.QueryCursor(grammar.query)
    rows: set[int] = set()
    for _, captures in cursor.matches(tree.root_node):
        for node in captures.get("name", ()):
            rows.add(node.start_point.row)
    return sorted(rows)


def format_definitions(source: bytes, language: str) -> str:
    """Cline's block for one file: `|----`, then `│line` per definition, gaps marked `|----`."""
    rows = definition_rows(source, language)
    if not rows:
        return ""
    lines = source.split(b"\n")
    out = ["|----"]
    previous: int | None = None
    for row in rows:
        if previous is not None and row > previous + 1:
            out.append("|----")
        text = lines[row].decode("utf-8", errors="replace").rstrip()
        if len(text) > MAX_LINE:
            text = text[:MAX_LINE] + "…"
        out.append(f"│{text}")
        previous = row
    out.append("|----")
    return "\n".join(out)


def _definitions_of(path: Path) -> str:
    language = language_for(path)
    if language is None:
        return ""
    try:
        source = read_file(path, MAX_FILE_BYTES, whole=True)
    except OSError:  # gone, too large, or not a regular file (a FIFO would block)
        return ""
    return format_definitions(source, language)


def list_definitions(target: Path, *, access: AccessRules) -> str:
    """The definitions report for a folder (its top-level files) or for one file."""
    if target.is_file():
        if access.blocked(target):
            return NO_DEFINITIONS
        files = [target]
        base = target.parent
    else:
        entries, _ = list_workspace(target, recursive=False, limit=1000, ignore=access)
        files = [
            target / e.path
            for e in entries
            if not e.is_dir and not e.blocked and language_for(Path(e.path)) is not None
        ][:MAX_FILES]
        base = target
    parts: list[str] = []
    for path in files:
        block = _definitions_of(path)
        if block:
            parts.append(f"{path.relative_to(base).as_posix()}\n{block}\n")
    return "\n".join(parts).rstrip() + "\n" if parts else NO_DEFINITIONS
