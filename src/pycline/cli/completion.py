"""Tab completion for the interactive prompts (prompt_toolkit, when on a real terminal): `@`
paths, and slash command names at the start of a line."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prompt_toolkit.completion import CompleteEvent, Completer, Completion
    from prompt_toolkit.document import Document

_SKIP = frozenset({".git", "node_modules", "__pycache__", ".venv", "venv"})
_MAX = 50


def usable() -> bool:
    """prompt_toolkit needs a real terminal; pipes and `TERM=dumb` get plain line reading."""
    return (
        sys.stdin.isatty()
        and sys.stdout.isatty()
        and os.environ.get("TERM", "dumb") != "dumb"
        and "PYCLINE_PLAIN_INPUT" not in os.environ
    )


def path_candidates(root: Path, partial: str) -> list[str]:
    """Workspace paths starting with `partial` (relative, `/` after folders), hidden ones last."""
    folder, _, stem = partial.rpartition("/")
    base = (root / folder).resolve()
    try:
        base.relative_to(root.resolve())
        entries = sorted(os.scandir(base), key=lambda e: (e.name.startswith("."), e.name))
    except (OSError, ValueError):  # a missing folder, or one outside the workspace
        return []
    out: list[str] = []
    for entry in entries:
        if not entry.name.startswith(stem) or entry.name in _SKIP:
            continue
        name = f"{folder}/{entry.name}" if folder else entry.name
        out.append(name + "/" if entry.is_dir() else name)
        if len(out) >= _MAX:
            break
    return out


def command_candidates(names: Iterable[str], typed: str) -> list[str]:
    """`/na` → every `/name…`, when what is typed so far is a lone slash word."""
    if not typed.startswith("/") or " " in typed:
        return []
    return sorted(f"/{n}" for n in names if f"/{n}".startswith(typed))


def make_completer(root: Path, commands: Callable[[], Iterable[str]] = tuple) -> Completer:
    from prompt_toolkit.completion import Completer, Completion

    class MentionCompleter(Completer):
        def get_completions(
            self, document: Document, complete_event: CompleteEvent
        ) -> Iterable[Completion]:
            before = document.text_before_cursor
            for name in command_candidates(commands(), before.lstrip()):
                yield Completion(name, start_position=-len(before.lstrip()))
            word = document.get_word_before_cursor(WORD=True)
            if not word.startswith("@"):
                return
            partial = word[1:].lstrip("/")
            for path in path_candidates(root, partial):
                yield Completion("@/" + path, start_position=-len(word))

    return MentionCompleter()
