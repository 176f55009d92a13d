"""A small POSIX-shell tokenizer: enough to split a command line into the commands it runs.

`shlex` knows quoting but not operators, so `a&&b`, `a|b`, `(a)` or `$(a)` would stay one word.
Here every operator that starts another command (`&&`, `||`, `|`, `;`, `&`, newlines, subshells,
`$(…)`, backticks, process substitution) is recognised, and redirects are reported, so a
permission check can look at each command on its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias


class ShellSyntaxError(ValueError):
    """Unbalanced quotes or parentheses: the command cannot be split safely."""


@dataclass(frozen=True, slots=True)
class Word:
    text: str  # quotes removed; a substitution keeps its raw `$(…)` text
    substitutions: tuple[str, ...] = ()  # the commands inside `$(…)`, backticks, `<(…)`


@dataclass(frozen=True, slots=True)
class Operator:
    op: str  # "&&", "||", "|", "|&", ";", "&", "\n", or a redirect such as ">", "2>&", "<<<"

    @property
    def is_redirect(self) -> bool:
        return self.op.lstrip("0123456789")[:1] in {"<", ">"} or self.op.startswith("&>")


@dataclass(frozen=True, slots=True)
class Subshell:
    inner: str  # the text between `(` and `)`


Token: TypeAlias = Word | Operator | Subshell

SEPARATORS = frozenset({"&&", "||", "|", "|&", ";", ";;", "&", "\n"})
# Longest first, so `>>` wins over `>`.
_OPERATORS = (
    "&>>",
    "<<<",
    "&&",
    "||",
    "|&",
    ";;",
    ">>",
    ">&",
    ">|",
    "<<",
    "<&",
    "<>",
    "&>",
    "|",
    ";",
    "&",
    ">",
    "<",
)
# Characters that end a command line for the shell, like a newline does.
LINE_BREAKS = frozenset({"\n", "\r", "\u2028", "\u2029", "\u0085"})


@dataclass(slots=True)
class _WordBuilder:
    chars: list[str] = field(default_factory=list)
    subs: list[str] = field(default_factory=list)
    started: bool = False

    def add(self, text: str) -> None:
        self.chars.append(text)
        self.started = True

    def take(self) -> Word | None:
        if not self.started:
            return None
        word = Word("".join(self.chars), tuple(self.subs))
        self.chars.clear()
        self.subs.clear()
        self.started = False
        return word


def _balanced(s: str, start: int) -> int:
    """Index just past the `)` that closes the `(` at `start`, skipping quoted text."""
    depth = 0
    i = start
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            end = s.find("'", i + 1)
            if end < 0:
                raise ShellSyntaxError("unterminated single quote")
            i = end + 1
            continue
        if c == '"':
            i = _end_of_double(s, i + 1)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ShellSyntaxError("unbalanced parenthesis")


def _end_of_double(s: str, i: int) -> int:
    """Index just past the `"` closing a double-quoted string whose body starts at `i`."""
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i + 1
        if c == "$" and s.startswith("$(", i):
            i = _balanced(s, i + 1)
            continue
        i += 1
    raise ShellSyntaxError("unterminated double quote")


def _backtick_end(s: str, i: int) -> int:
    """Index of the closing backtick for the one at `i`."""
    j = i + 1
    while j < len(s):
        if s[j] == "\\":
            j += 2
            continue
        if s[j] == "`":
            return j
        j += 1
    raise ShellSyntaxError("unterminated backtick")


def tokenize(command: str) -> list[Token]:
    """Split a command line into words, operators and subshells.

    Raises `ShellSyntaxError` when quotes or parentheses do not balance, or nest too deeply to
    follow.
    """
    try:
        return _tokenize(command)
    except RecursionError:
        raise ShellSyntaxError("substitutions nested too deeply") from None


def _tokenize(command: str) -> list[Token]:
    tokens: list[Token] = []
    word = _WordBuilder()
    s = command
    n = len(s)
    i = 0

    def flush() -> None:
        w = word.take()
        if w is not None:
            tokens.append(w)

    while i < n:
        c = s[i]
        if c in LINE_BREAKS:
            flush()
            tokens.append(Operator("\n"))
            i += 1
        elif c.isspace():
            flush()
            i += 1
        elif c == "#" and not word.started:
            # A comment runs to the end of the line; the shell never executes it.
            while i < n and s[i] not in LINE_BREAKS:
                i += 1
        elif c == "\\":
            if i + 1 < n:
                nxt = s[i + 1]
                if nxt not in LINE_BREAKS:
                    word.add(nxt)
                i += 2
            else:
                word.add(c)
                i += 1
        elif c == "'":
            end = s.find("'", i + 1)
            if end < 0:
                raise ShellSyntaxError("unterminated single quote")
            word.add(s[i + 1 : end])
            i = end + 1
        elif c == '"':
            i = _read_double(s, i + 1, word)
        elif c == "`":
            end = _backtick_end(s, i)
            word.add(s[i : end + 1])
            word.subs.append(s[i + 1 : end])
            i = end + 1
        elif c == "$" and s.startswith("$(", i):
            end = _balanced(s, i + 1)
            word.add(s[i:end])
            word.subs.append(s[i + 2 : end - 1])
            i = end
        elif c in "<>" and not word.started and s.startswith("(", i + 1):
            # Process substitution `<(cmd)` / `>(cmd)`: a command, not a redirect.
            end = _balanced(s, i + 1)
            word.add(s[i:end])
            word.subs.append(s[i + 2 : end - 1])
            i = end
        elif c == "(":
            flush()
            end = _balanced(s, i)
            tokens.append(Subshell(s[i + 1 : end - 1]))
            i = end
        elif c == ")":
            raise ShellSyntaxError("unbalanced parenthesis")
        elif c.isdigit() and not word.started and _fd_redirect_at(s, i):
            j = i
            while s[j].isdigit():
                j += 1
            op = _operator_at(s, j)
            assert op is not None
            tokens.append(Operator(s[i:j] + op))
            i = j + len(op)
        else:
            op = _operator_at(s, i)
            if op is None:
                word.add(c)
                i += 1
            else:
                flush()
                tokens.append(Operator(op))
                i += len(op)
    flush()
    return tokens


def _fd_redirect_at(s: str, i: int) -> bool:
    j = i
    while j < len(s) and s[j].isdigit():
        j += 1
    return j < len(s) and s[j] in "<>"


def _operator_at(s: str, i: int) -> str | None:
    for op in _OPERATORS:
        if s.startswith(op, i):
            return op
    return None


def _read_double(s: str, i: int, word: _WordBuilder) -> int:
    """Read a double-quoted string body starting at `i`; return the index after the quote."""
    word.started = True
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\" and i + 1 < n:
            nxt = s[i + 1]
            # Inside double quotes a backslash only escapes these characters.
            word.add(nxt if nxt in '"\\$`' else c + nxt)
            i += 2
        elif c == '"':
            return i + 1
        elif c == "$" and s.startswith("$(", i):
            end = _balanced(s, i + 1)
            word.add(s[i:end])
            word.subs.append(s[i + 2 : end - 1])
            i = end
        elif c == "`":
            end = _backtick_end(s, i)
            word.add(s[i : end + 1])
            word.subs.append(s[i + 1 : end])
            i = end + 1
        else:
            word.add(c)
            i += 1
    raise ShellSyntaxError("unterminated double quote")


@dataclass(frozen=True, slots=True)
class Segment:
    """One simple command: its words, its redirects, and the commands substituted into it."""

    words: tuple[str, ...]
    redirects: tuple[tuple[str, str], ...]  # (operator, target)
    substitutions: tuple[str, ...]
    piped: bool = False  # a pipe (`|`, `|&`) feeds it

    @property
    def text(self) -> str:
        parts = list(self.words)
        for op, target in self.redirects:
            parts.append(f"{op} {target}" if target else op)
        return " ".join(parts)


def split_commands(tokens: list[Token]) -> list[Segment | Subshell]:
    """Group tokens into simple commands; subshells stand on their own."""
    out: list[Segment | Subshell] = []
    words: list[str] = []
    redirects: list[tuple[str, str]] = []
    subs: list[str] = []
    piped = False

    def close(next_piped: bool) -> None:
        nonlocal piped
        if words or redirects:
            out.append(Segment(tuple(words), tuple(redirects), tuple(subs), piped))
        words.clear()
        redirects.clear()
        subs.clear()
        piped = next_piped

    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if isinstance(tok, Subshell):
            close(False)
            out.append(tok)
        elif isinstance(tok, Operator):
            if tok.is_redirect:
                target = ""
                if i + 1 < len(tokens) and isinstance(tokens[i + 1], Word):
                    nxt = tokens[i + 1]
                    assert isinstance(nxt, Word)
                    target = nxt.text
                    subs.extend(nxt.substitutions)
                    i += 1
                redirects.append((tok.op, target))
            else:
                close(tok.op in ("|", "|&"))
        else:
            words.append(tok.text)
            subs.extend(tok.substitutions)
        i += 1
    close(False)
    return out
