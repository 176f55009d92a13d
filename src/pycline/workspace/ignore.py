"""`.clineignore`: files the user hides from the model (SPEC §12), plus command permission rules.

Gitignore syntax, read from the workspace root, with Cline's `!include other-file` directive that
pulls in the lines of another file (e.g. `!include .gitignore`). The file is re-read when it (or an
included file) changes. `.clineignore` itself is blocked so the model cannot rewrite its own rules.
"""

from __future__ import annotations

import glob
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pathspec

from pycline.workspace.command_words import strip_wrappers
from pycline.workspace.confined import read_confined
from pycline.workspace.permissions import (
    PermissionRules,
    check_with_rules,
    describe_refusal,
    parse_rules,
    rules_from_env,
)
from pycline.workspace.shell import Segment, ShellSyntaxError, Subshell, split_commands, tokenize

IGNORE_FILE = ".clineignore"
_INCLUDE = "!include "
_MAX_INCLUDE_DEPTH = 5
_MAX_GLOB_MATCHES = 500
MAX_INCLUDE_BYTES = 1 << 20

# Commands whose arguments are files they print or copy somewhere readable.
READ_VERBS = frozenset(
    {
        "cat", "tac", "nl", "head", "tail", "less", "more", "most", "bat", "batcat", "view",
        "grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "awk", "gawk", "mawk", "sed",
        "cut", "sort", "uniq", "wc", "strings", "xxd", "od", "hexdump", "base64", "diff", "cmp",
        "jq", "yq", "cp", "scp", "zcat", "source", ".", "type", "get-content", "gc",
        "select-string", "sls", "iconv", "tr", "paste", "column", "fold", "fmt", "pr", "rev",
    }
)  # fmt: skip


def blocked_message(display: str) -> str:
    return (
        f"Access to {display} is blocked by the .clineignore file settings. Continue the task "
        "without this file, or ask the user to update .clineignore."
    )


@dataclass(frozen=True, slots=True)
class _Loaded:
    spec: pathspec.GitIgnoreSpec | None
    stamps: tuple[tuple[str, int, int], ...]  # (path, mtime_ns, size) of every file read
    patterns: tuple[str, ...]


def _stamp(path: Path) -> tuple[str, int, int]:
    try:
        st = path.stat()
    except OSError:
        return (str(path), -1, -1)
    return (str(path), st.st_mtime_ns, st.st_size)


def _read_lines(
    root: Path, path: Path, seen: set[Path], depth: int
) -> tuple[list[str], list[Path]]:
    """The pattern lines of `path`, with `!include` files expanded (each file read once).

    Only a regular file inside the workspace is read, and at most `MAX_INCLUDE_BYTES` of it: an
    include naming a FIFO, a device or a file elsewhere is skipped.
    """
    try:
        data = read_confined(path, root, MAX_INCLUDE_BYTES)
    except (OSError, ValueError):
        return [], [path]
    text = data.decode("utf-8", errors="replace")
    read = [path]
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith(_INCLUDE) and depth < _MAX_INCLUDE_DEPTH:
            try:
                target = (root / line[len(_INCLUDE) :].strip()).resolve()
            except (OSError, RuntimeError, ValueError):  # a loop, a name too long, a NUL
                continue
            if target in seen:
                continue
            seen.add(target)
            more, files = _read_lines(root, target, seen, depth + 1)
            lines.extend(more)
            read.extend(files)
        else:
            lines.append(line)
    return lines, read


class IgnoreRules:
    """The AccessRules of a workspace: `.clineignore` plus `CLINE_COMMAND_PERMISSIONS`."""

    def __init__(self, root: Path, *, permissions: PermissionRules | None = None) -> None:
        self.root = Path(root).resolve()
        self.permissions = permissions
        self._lock = threading.Lock()
        self._loaded = self._load()

    @classmethod
    def load(
        cls, root: str | os.PathLike[str], *, command_permissions: str | None = None
    ) -> IgnoreRules:
        """Rules for the workspace at `root`. `command_permissions` is the raw JSON of the
        permission rules; when None it is read from the environment variable."""
        perms = (
            parse_rules(command_permissions)
            if command_permissions is not None
            else rules_from_env()
        )
        return cls(Path(root), permissions=perms)

    # --- .clineignore ------------------------------------------------------------------------

    def _load(self) -> _Loaded:
        ignore_file = self.root / IGNORE_FILE
        if not ignore_file.is_file():
            return _Loaded(None, (_stamp(ignore_file),), ())
        lines, files = _read_lines(self.root, ignore_file, {ignore_file.resolve()}, 0)
        lines.append("/" + IGNORE_FILE)
        patterns = tuple(ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#"))
        spec = pathspec.GitIgnoreSpec.from_lines(lines)
        return _Loaded(spec, tuple(_stamp(f) for f in files), patterns)

    def _current(self) -> _Loaded:
        with self._lock:
            loaded = self._loaded
            if any(_stamp(Path(p)) != (p, m, s) for p, m, s in loaded.stamps):
                loaded = self._loaded = self._load()
            return loaded

    @property
    def active(self) -> bool:
        """True when a `.clineignore` exists (so something may be blocked)."""
        return self._current().spec is not None

    def patterns(self) -> tuple[str, ...]:
        """The effective pattern lines (includes expanded), relative to the root."""
        return self._current().patterns

    def blocked(self, path: Path) -> bool:
        """Whether the rules hide `path`, by its own name or by what it resolves to: a link
        with another name (`alias.py -> secret.py`, `pub -> private/`) hides nothing."""
        spec = self._current().spec
        if spec is None:
            return False
        absolute = Path(os.path.abspath(path if path.is_absolute() else self.root / path))
        if self._matches_inside(spec, absolute):
            return True
        real = Path(os.path.realpath(absolute))
        return real != absolute and self._matches_inside(spec, real)

    def _matches_inside(self, spec: Any, absolute: Path) -> bool:
        try:
            rel = absolute.relative_to(self.root)
        except ValueError:
            return False  # outside the workspace: .clineignore does not speak for it
        return _matches(spec, rel.parts, absolute.is_dir)

    def blocked_rel(self, rel: str, *, is_dir: bool) -> bool:
        """Like `blocked` for a root-relative posix path whose kind is already known."""
        return self.snapshot()(rel, is_dir)

    def snapshot(self) -> Callable[[str, bool], bool]:
        """`blocked_rel` against the rules as they are now: one freshness check for a batch."""
        spec = self._current().spec
        if spec is None:
            return lambda rel, is_dir: False

        def check(rel: str, is_dir: bool) -> bool:
            return _matches(spec, tuple(p for p in rel.split("/") if p), lambda: is_dir)

        return check

    def hidden_paths(self) -> list[Path]:
        """Every path the rules hide, as absolute paths (a hidden folder stands for everything
        in it): what a sandbox must cover. Links are not followed; `.git` is not walked."""
        check = self.snapshot()
        if not self.active:
            return []
        found: list[Path] = []
        for folder, dirs, files in os.walk(self.root):
            rel_folder = Path(folder).relative_to(self.root).as_posix()
            prefix = "" if rel_folder == "." else rel_folder + "/"
            keep = []
            for name in dirs:
                if name == ".git" and not prefix:
                    continue
                if check(prefix + name, True):
                    found.append(Path(folder, name))
                elif not os.path.islink(os.path.join(folder, name)):
                    keep.append(name)
            dirs[:] = keep
            found.extend(Path(folder, n) for n in files if check(prefix + n, False))
        return found

    # --- commands ----------------------------------------------------------------------------

    def command_refusal(self, command: str) -> str | None:
        if self.active:
            hidden = self.blocked_file_read(command)
            if hidden is not None:
                return (
                    f"The command reads {hidden}, which is blocked by the .clineignore file "
                    "settings. Continue the task without this file, or ask the user to update "
                    ".clineignore."
                )
        result = check_with_rules(command, self.permissions)
        if not result.allowed:
            return describe_refusal(command, result)
        return None

    def blocked_file_read(self, command: str, *, cwd: Path | None = None) -> str | None:
        """The first blocked file a file-reading command in `command` names, if any."""
        base = cwd or self.root
        for words, inputs in _commands(command, 0):
            candidates = list(inputs)
            args = strip_wrappers(words)  # `sudo cat x` reads x just the same
            if args and Path(args[0]).name.lower() in READ_VERBS:
                candidates.extend(a for a in args[1:] if not a.startswith("-"))
            for arg in candidates:
                hit = self._blocked_arg(arg, base)
                if hit is not None:
                    return hit
        return None

    def _blocked_arg(self, arg: str, base: Path) -> str | None:
        if not arg or "\x00" in arg:
            return None
        target = Path(os.path.expanduser(arg))
        target = target if target.is_absolute() else base / target
        if glob.has_magic(arg):
            for i, match in enumerate(glob.iglob(str(target))):
                if i >= _MAX_GLOB_MATCHES:
                    break
                if self.blocked(Path(match)):
                    return arg
            return None
        return arg if self.blocked(target) else None


def _matches(
    spec: pathspec.GitIgnoreSpec, parts: tuple[str, ...], is_dir: Callable[[], bool]
) -> bool:
    if not parts:
        return False
    # Like git: a path inside an ignored folder is ignored, whatever later patterns say.
    for i in range(1, len(parts)):
        if spec.match_file("/".join(parts[:i]) + "/"):
            return True
    rel = "/".join(parts)
    return spec.match_file(rel) or (is_dir() and spec.match_file(rel + "/"))


def _commands(command: str, depth: int) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Each simple command as (words, files it reads through `<` redirects), nested ones too."""
    if depth > 8:
        return []
    try:
        parts = split_commands(tokenize(command))
    except ShellSyntaxError:
        words = tuple(command.split())
        return [(words, ())]
    out: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
    for part in parts:
        if isinstance(part, Subshell):
            out.extend(_commands(part.inner, depth + 1))
            continue
        assert isinstance(part, Segment)
        inputs = tuple(t for op, t in part.redirects if op.lstrip("0123456789").startswith("<"))
        out.append((part.words, inputs))
        for sub in part.substitutions:
            out.extend(_commands(sub, depth + 1))
    return out
