"""Syntax errors found by tree-sitter, for every language with a grammar wheel installed.

Grammars come from the per-language packages (`tree-sitter-python`, …): nothing is downloaded
at run time, and each grammar is loaded the first time a file of its language is checked.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

# suffix -> (module, function returning the language pointer)
GRAMMARS: dict[str, tuple[str, str]] = {
    ".py": ("tree_sitter_python", "language"),
    ".pyi": ("tree_sitter_python", "language"),
    ".js": ("tree_sitter_javascript", "language"),
    ".mjs": ("tree_sitter_javascript", "language"),
    ".cjs": ("tree_sitter_javascript", "language"),
    ".jsx": ("tree_sitter_javascript", "language"),
    ".ts": ("tree_sitter_typescript", "language_typescript"),
    ".mts": ("tree_sitter_typescript", "language_typescript"),
    ".cts": ("tree_sitter_typescript", "language_typescript"),
    ".tsx": ("tree_sitter_typescript", "language_tsx"),
    ".go": ("tree_sitter_go", "language"),
    ".rs": ("tree_sitter_rust", "language"),
    ".java": ("tree_sitter_java", "language"),
    ".c": ("tree_sitter_c", "language"),
    ".h": ("tree_sitter_cpp", "language"),  # C++ parses C headers; C cannot parse C++ ones
    ".cc": ("tree_sitter_cpp", "language"),
    ".cpp": ("tree_sitter_cpp", "language"),
    ".cxx": ("tree_sitter_cpp", "language"),
    ".hpp": ("tree_sitter_cpp", "language"),
    ".hh": ("tree_sitter_cpp", "language"),
    ".cs": ("tree_sitter_c_sharp", "language"),
    ".rb": ("tree_sitter_ruby", "language"),
    ".php": ("tree_sitter_php", "language_php"),
    ".swift": ("tree_sitter_swift", "language"),
    ".kt": ("tree_sitter_kotlin", "language"),
    ".kts": ("tree_sitter_kotlin", "language"),
    ".json": ("tree_sitter_json", "language"),
    ".yaml": ("tree_sitter_yaml", "language"),
    ".yml": ("tree_sitter_yaml", "language"),
    ".sh": ("tree_sitter_bash", "language"),
    ".bash": ("tree_sitter_bash", "language"),
    ".html": ("tree_sitter_html", "language"),
    ".htm": ("tree_sitter_html", "language"),
    ".css": ("tree_sitter_css", "language"),
}
MAX_ERRORS = 20


@dataclass(frozen=True, slots=True)
class SyntaxProblem:
    line: int  # 1-based
    message: str


def supported(path: str) -> bool:
    return PurePath(path).suffix.lower() in GRAMMARS


@functools.cache
def _parser(module: str, function: str) -> Parser | None:
    from tree_sitter import Language, Parser

    try:
        grammar = importlib.import_module(module)
    except ImportError:
        return None  # the wheel is not installed: this language is simply not checked
    return Parser(Language(getattr(grammar, function)()))


def parse(path: str, text: str) -> Node | None:
    """The root of `text`'s syntax tree, for a language with a grammar installed."""
    grammar = GRAMMARS.get(PurePath(path).suffix.lower())
    parser = _parser(*grammar) if grammar is not None else None
    return parser.parse(text.encode("utf-8")).root_node if parser is not None else None


def syntax_problems(path: str, text: str) -> list[SyntaxProblem]:
    grammar = GRAMMARS.get(PurePath(path).suffix.lower())
    if grammar is None:
        return []
    parser = _parser(*grammar)
    if parser is None:
        return []
    source = text.encode("utf-8")
    tree = parser.parse(source)
    if not tree.root_node.has_error:
        return []
    found: list[SyntaxProblem] = []
    stack: list[Node] = [tree.root_node]
    while stack and len(found) < MAX_ERRORS:
        node = stack.pop()
        if node.is_missing:
            found.append(SyntaxProblem(node.start_point[0] + 1, f"missing `{node.type}`"))
            continue
        if node.type == "ERROR":
            found.append(SyntaxProblem(node.start_point[0] + 1, _describe_error(node, source)))
            continue
        if node.has_error:
            stack.extend(reversed(node.children))
    return sorted(found, key=lambda p: p.line)


def _describe_error(node: Node, source: bytes) -> str:
    line_start = source.rfind(b"\n", 0, node.start_byte) + 1
    line_end = source.find(b"\n", node.start_byte)
    line = source[line_start : line_end if line_end != -1 else len(source)]
    snippet = line.decode("utf-8", errors="replace").strip()
    if len(snippet) > 60:
        snippet = snippet[:57] + "..."
    return f"syntax error near `{snippet}`" if snippet else "syntax error"
