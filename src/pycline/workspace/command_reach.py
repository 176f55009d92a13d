"""What a command line reaches beyond the workspace, read from its words.

Used where no OS sandbox contains the command (see `terminal.sandbox`): it cannot make a command
safe, so it only decides when the user must be asked. A command whose words name a path outside
the workspace, pycline's home, a file `.clineignore` hides, the environment, `/proc`, or inline
code for an interpreter (which could read anything) is never approved automatically; one that
writes outside the workspace is never approved by `--yes`. Best effort by nature: a program can
always open files its arguments do not name.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pycline.workspace.command_words import SHELLS, is_assignment, program_name, strip_wrappers
from pycline.workspace.shell import Segment, ShellSyntaxError, Subshell, split_commands, tokenize

_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
# Variables a command may expand without that being a read of the user's secrets.
_PLAIN_VARIABLES = frozenset(
    {"PATH", "PWD", "OLDPWD", "SHELL", "TERM", "LANG", "LC_ALL", "USER", "COLUMNS", "LINES",
     "HOSTNAME", "VIRTUAL_ENV", "CI", "NODE_ENV"}
)  # fmt: skip
_ENV_PRINTERS = frozenset({"env", "printenv", "set", "export", "declare", "typeset", "compgen"})
_INTERPRETER = re.compile(r"^(?:python[0-9.]*|perl|ruby|node|deno|bun|php|lua|osascript|R)$")
_INLINE_FLAGS = frozenset({"-c", "-e", "-E", "--eval", "-r", "-p", "--print", "-x"})
# Commands that read whole folders or the repository's history: with `.clineignore` in force,
# they may read what it hides.
_BULK_READERS = frozenset(
    {"grep", "egrep", "fgrep", "rg", "ag", "ack", "find", "tar", "zip", "7z", "rsync", "scp",
     "du", "tree", "fd", "fdfind", "locate", "strings", "cpio"}
)  # fmt: skip
_GIT_READERS = frozenset(
    {"show", "log", "diff", "grep", "archive", "cat-file", "blame", "stash", "format-patch",
     "bundle", "whatchanged", "annotate", "cherry", "reflog", "ls-tree", "ls-files"}
)  # fmt: skip
_WRITERS = frozenset(
    {"rm", "rmdir", "mv", "cp", "tee", "touch", "mkdir", "ln", "chmod", "chown", "chgrp",
     "truncate", "install", "rsync", "shred", "unlink", "dd", "sed", "perl", "patch", "tar",
     "unzip", "git", "npm", "pip", "curl", "wget"}
)  # fmt: skip
_HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_MAX_DEPTH = 3


@dataclass(frozen=True, slots=True)
class Reach:
    """Why the command needs the user (None: nothing found), and whether it writes outside."""

    risk: str | None = None  # never auto-approved without a sandbox
    writes_outside: str | None = None  # never approved by --yes


@dataclass(frozen=True, slots=True)
class _Scope:
    root: Path
    home: Path
    blocked: Callable[[Path], bool]
    ignore_active: bool


def command_reach(
    command: str,
    *,
    root: Path,
    cwd: Path,
    home: Path,
    blocked: Callable[[Path], bool],
    ignore_active: bool,
) -> Reach:
    scope = _Scope(root.resolve(), home.resolve(), blocked, ignore_active)
    risk, outside = _walk(command, cwd, scope, 0)
    return Reach(risk, outside)


def _walk(command: str, cwd: Path, scope: _Scope, depth: int) -> tuple[str | None, str | None]:
    if depth > _MAX_DEPTH:
        return "nests commands too deeply to check", None
    try:
        parts = split_commands(tokenize(command))
    except ShellSyntaxError:
        return "cannot be parsed (unbalanced quotes or parentheses)", None
    risk: str | None = None
    outside: str | None = None
    for part in parts:
        if isinstance(part, Subshell):
            inner = _walk(part.inner, cwd, scope, depth + 1)
        else:
            assert isinstance(part, Segment)
            inner = _segment(part, cwd, scope)
            for sub in part.substitutions:
                nested = _walk(sub, cwd, scope, depth + 1)
                inner = (inner[0] or nested[0], inner[1] or nested[1])
            words = strip_wrappers(part.words)
            for i in range(1, len(words)):
                if words[i - 1] == "-c" or program_name(words[i - 1]) == "eval":
                    nested = _walk(words[i], cwd, scope, depth + 1)
                    inner = (inner[0] or nested[0], inner[1] or nested[1])
        risk = risk or inner[0]
        outside = outside or inner[1]
        if risk and outside:
            break
    return risk, outside


def _segment(segment: Segment, cwd: Path, scope: _Scope) -> tuple[str | None, str | None]:
    words = strip_wrappers(segment.words)
    risk: str | None = None
    outside: str | None = None
    prefix_risk = _variables(" ".join(segment.words[: len(segment.words) - len(words)]))
    if not words:  # `env` alone (or `env -0`, `nohup env`) prints the environment
        if any(program_name(w) == "env" for w in segment.words):
            return "reads the environment", None
        return prefix_risk, None
    name = program_name(words[0])
    args = words[1:]
    if name in _ENV_PRINTERS and all(a.startswith("-") or is_assignment(a) for a in args):
        risk = "reads the environment"
    elif (name in SHELLS or _INTERPRETER.match(name)) and _INLINE_FLAGS & set(args):
        risk = "runs inline code, which can read any file"
    elif name in ("eval", "source", ".") or (name in SHELLS and not args):
        risk = "runs code from a string or file"
    elif scope.ignore_active and (
        name in _BULK_READERS
        or (name == "git" and _GIT_READERS & set(args))
        or (name == "cp" and {"-r", "-R", "-a", "--recursive"} & set(args))
    ):
        risk = "may read files hidden by .clineignore"
    if name in ("cd", "pushd") and args and _outside(args[0], cwd, scope):
        outside = "works in a folder outside the workspace"
        risk = risk or outside
    for word in args:
        value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
        if word.startswith("-") and value is word:
            continue
        found = _word_risk(value, cwd, scope)
        risk = risk or found
        if found and name in _WRITERS and _outside(value, cwd, scope):
            outside = outside or f"writes to {value}, outside the workspace"
    for op, target in segment.redirects:
        found = _word_risk(target, cwd, scope) if target else None
        risk = risk or found
        if ">" in op and target not in _HARMLESS_TARGETS and _outside(target, cwd, scope):
            outside = outside or f"writes to {target}, outside the workspace"
    return risk or prefix_risk, outside


def _variables(text: str) -> str | None:
    for name in _VARIABLE.findall(text):
        if name not in _PLAIN_VARIABLES:
            return f"reads the environment variable ${name}"
    return None


def _resolve(word: str, cwd: Path) -> Path | None:
    text = os.path.expanduser(os.path.expandvars(word))
    if not text or "\x00" in text:
        return None
    try:
        return Path(os.path.abspath(Path(cwd, text))).resolve(strict=False)
    except (OSError, RuntimeError, ValueError):
        return None


def _looks_like_path(word: str) -> bool:
    return "/" in word or word.startswith(("~", ".", "$")) or word in ("..", "~")


def _outside(word: str, cwd: Path, scope: _Scope) -> bool:
    if not _looks_like_path(word):
        return False
    path = _resolve(word, cwd)
    return path is not None and not path.is_relative_to(scope.root)


def _word_risk(word: str, cwd: Path, scope: _Scope) -> str | None:
    variables = _variables(word)
    if variables:
        return variables
    if "/proc" in word or "/sys/" in word:
        return "reads process or system state (/proc, /sys)"
    path = _resolve(word, cwd) if _looks_like_path(word) or scope.ignore_active else None
    if path is None:
        return None
    if path == scope.home or path.is_relative_to(scope.home) or str(scope.home) in word:
        return "names pycline's home folder (settings, keys, history)"
    if _looks_like_path(word) and not path.is_relative_to(scope.root):
        return f"names {word}, outside the workspace"
    if scope.ignore_active and path.is_relative_to(scope.root) and scope.blocked(path):
        return f"names {word}, which .clineignore hides"
    return None
