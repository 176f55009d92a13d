"""What an "always allow" rule for commands is, and which command lines a set of rules covers.

A rule is a program and its subcommand (`npm test`, `git status`), or a program alone (`pytest`);
it covers a command starting with those words (`npm test -- --watch`). A command line is covered
only when every simple command in it is: `npm test && git status` with both rules, never
`npm test; rm -rf ~` with one. Redirections into files, substitutions (`$(…)`, backticks) and
subshells are never covered, since they do what no rule names; `2>&1` and `>/dev/null` are.
Programs that run whatever their arguments say (shells, interpreters, `sudo`, `env`, `xargs`)
never make a rule.

Dangerous commands are the caller's concern: `workspace.danger` decides those before any rule.
"""

from __future__ import annotations

import re

from pycline.workspace.danger import is_dangerous, runs_other_programs
from pycline.workspace.shell import (
    Operator,
    ShellSyntaxError,
    Subshell,
    split_commands,
    tokenize,
)

_SUBCOMMAND = re.compile(r"^[a-z][a-z0-9._-]*$")
_PROGRAM = re.compile(r"^[A-Za-z0-9._+/-]+$")
# A command sent to the background (`&`) outlives the tool's wait; a rule never covers that.
_UNCOVERED_OPERATORS = frozenset({"&", ";;"})
# Redirections that only join or drop output streams (`2>&1`, `>/dev/null`) write no file.
_FD_DUP = re.compile(r"^[0-9]*>&$")
_OUTPUT = re.compile(r"^(?:[0-9]*>|&>)$")


def command_prefix(command: str) -> str | None:
    """The rule "always allow" would remember for a single simple command (`npm test` for
    `npm test -- --watch`), or None when the line is not one plain command."""
    try:
        parts = split_commands(tokenize(command))
    except ShellSyntaxError:
        return None
    if len(parts) != 1:
        return None
    [part] = parts
    if isinstance(part, Subshell) or part.redirects or part.substitutions:
        return None
    return _prefix(part.words)


def _prefix(words: tuple[str, ...]) -> str | None:
    if not words or not _PROGRAM.match(words[0]):
        return None
    if len(words) > 1 and _SUBCOMMAND.match(words[1]):
        return f"{words[0]} {words[1]}"
    return words[0]


def rule_refusal(rule: str) -> str | None:
    """Why `rule` cannot be a rule, or None when it can."""
    text = " ".join(rule.split())
    if command_prefix(text) != text:
        return (
            f"{rule!r} is not a program and subcommand (like `npm test` or `pytest`); "
            "rules never name shell syntax, quotes or arguments."
        )
    if runs_other_programs(text.split()[0]):
        return (
            f"`{text.split()[0]}` runs whatever its arguments say, so it cannot be always allowed."
        )
    reason = is_dangerous(text)
    if reason:
        return f"`{text}` is dangerous ({reason}) and is asked about every time."
    return None


def rememberable(command: str) -> str | None:
    """The rule to offer for `command` ("always allow `npm test`"), or None when none fits."""
    prefix = command_prefix(command)
    if prefix is None or is_dangerous(command) or rule_refusal(prefix) is not None:
        return None
    return prefix


def covered(command: str, rules: tuple[str, ...] | list[str] | set[str]) -> bool:
    """Every simple command of `command` starts with the words of one of `rules`, and nothing
    in the line does more than those commands (writes a file, substitutes, backgrounds)."""
    if not rules:
        return False
    try:
        tokens = tokenize(command)
        parts = split_commands(tokens)
    except ShellSyntaxError:
        return False
    if not parts or any(isinstance(t, Operator) and t.op in _UNCOVERED_OPERATORS for t in tokens):
        return False
    ruled = [tuple(rule.split()) for rule in rules]
    for part in parts:
        if isinstance(part, Subshell) or part.substitutions:
            return False
        if not all(_harmless(op, target) for op, target in part.redirects):
            return False
        # Quotes are gone from the words here, so `git commit -m "a b"` starts `git commit`.
        words = part.words
        if not words or not _PROGRAM.match(words[0]):
            return False
        if not any(r and words[: len(r)] == r for r in ruled):
            return False
    return True


def _harmless(op: str, target: str) -> bool:
    if _FD_DUP.match(op):
        return target.isdigit()
    return bool(_OUTPUT.match(op)) and target == "/dev/null"


def prefix_covers(prefix: str, command: str) -> bool:
    return covered(command, (prefix,))
