"""Command permission rules: Cline's `CLINE_COMMAND_PERMISSIONS` (SPEC §7).

The variable holds JSON `{"allow": [globs], "deny": [globs], "allowRedirects": bool}`. Every simple
command in a command line (split at `&&`, `||`, `|`, `;`, subshells and substitutions) must pass:
a deny match refuses, and when allow patterns exist one of them must match. Redirects are refused
unless `allowRedirects` is true. Without the variable every command is allowed.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import lru_cache

from pycline.workspace.shell import (
    LINE_BREAKS,
    Segment,
    ShellSyntaxError,
    Subshell,
    split_commands,
    tokenize,
)

ENV_VAR = "CLINE_COMMAND_PERMISSIONS"
_MAX_NESTING = 16


@dataclass(frozen=True, slots=True)
class PermissionRules:
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    allow_redirects: bool = False


@dataclass(frozen=True, slots=True)
class PermissionResult:
    allowed: bool
    # no_config | allowed | denied | no_match_deny_default | segment_denied | segment_no_match |
    # shell_operator_detected | redirect_detected | parse_error
    reason: str
    matched_pattern: str | None = None
    failed_segment: str | None = None
    detected_operator: str | None = None


def parse_rules(raw: str | None) -> PermissionRules | None:
    """The rules in `raw`, or None when it is unset, empty or not a JSON object."""
    if raw is None or not raw.strip():
        return None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None

    def patterns(key: str) -> tuple[str, ...]:
        value = data.get(key)
        if not isinstance(value, list):
            return ()
        return tuple(p for p in value if isinstance(p, str))

    return PermissionRules(patterns("allow"), patterns("deny"), data.get("allowRedirects") is True)


def rules_from_env() -> PermissionRules | None:
    return parse_rules(os.environ.get(ENV_VAR))


def check_command(command: str, rules_json: str | None) -> PermissionResult:
    """Whether `command` may run under the rules in `rules_json` (the raw variable's value)."""
    return check_with_rules(command, parse_rules(rules_json))


def check_with_rules(command: str, rules: PermissionRules | None) -> PermissionResult:
    if rules is None:
        return PermissionResult(True, "no_config")
    return _validate(command.strip(), rules, 0)


def describe_refusal(command: str, result: PermissionResult) -> str:
    """A message for the model explaining why the command was not run."""
    head = f"The command '{command.strip()}' is not allowed by {ENV_VAR}"
    match result.reason:
        case "shell_operator_detected":
            return f"{head}: it contains the shell operator {result.detected_operator!r}."
        case "redirect_detected":
            return f"{head}: redirects are not allowed (set allowRedirects to permit them)."
        case "denied" | "segment_denied":
            part = f" ('{result.failed_segment}')" if result.failed_segment else ""
            return (
                f"{head}: a part of it{part} matches the deny pattern '{result.matched_pattern}'."
            )
        case "no_match_deny_default" | "segment_no_match":
            part = f"'{result.failed_segment}'" if result.failed_segment else "it"
            return f"{head}: {part} matches no allowed pattern."
        case "parse_error":
            return f"{head}: it could not be parsed (unbalanced quotes or parentheses)."
        case _:
            return f"{head} ({result.reason})."


def _validate(command: str, rules: PermissionRules, depth: int) -> PermissionResult:
    if depth > _MAX_NESTING:
        return PermissionResult(False, "parse_error")
    dangerous = find_dangerous_operator(command)
    if dangerous is not None:
        return PermissionResult(False, "shell_operator_detected", detected_operator=dangerous)
    try:
        parts = split_commands(tokenize(command))
    except ShellSyntaxError:
        return PermissionResult(False, "parse_error")
    if not rules.allow_redirects and any(isinstance(p, Segment) and p.redirects for p in parts):
        return PermissionResult(False, "redirect_detected")
    several = len(parts) > 1
    for part in parts:
        if isinstance(part, Subshell):
            inner = _validate(part.inner.strip(), rules, depth + 1)
            if not inner.allowed:
                return inner
            continue
        result = _match_one(part.text, rules)
        if not result.allowed:
            if not several:
                return result
            reason = "segment_denied" if result.reason == "denied" else "segment_no_match"
            return PermissionResult(
                False, reason, matched_pattern=result.matched_pattern, failed_segment=part.text
            )
        for sub in part.substitutions:
            inner = _validate(sub.strip(), rules, depth + 1)
            if not inner.allowed:
                return inner
    return PermissionResult(True, "allowed")


def _match_one(segment: str, rules: PermissionRules) -> PermissionResult:
    for pattern in rules.deny:
        if _glob(pattern).fullmatch(segment):
            return PermissionResult(False, "denied", matched_pattern=pattern)
    if not rules.allow:
        return PermissionResult(True, "allowed")
    if any(_glob(pattern).fullmatch(segment) for pattern in rules.allow):
        return PermissionResult(True, "allowed")
    return PermissionResult(False, "no_match_deny_default")


@lru_cache(maxsize=512)
def _glob(pattern: str) -> re.Pattern[str]:
    """`*` matches any text (slashes and spaces too), `?` one character; case-sensitive."""
    out = []
    for ch in pattern:
        if ch == "*":
            out.append(".*")
        elif ch == "?":
            out.append(".")
        else:
            out.append(re.escape(ch))
    return re.compile("".join(out), re.DOTALL)


_NAMED = {"\n": "\\n", "\r": "\\r", "\u2028": "U+2028", "\u2029": "U+2029", "\u0085": "U+0085"}


def find_dangerous_operator(command: str) -> str | None:
    """The first command-chaining character outside quotes: a line break, or a backtick
    (which also runs inside double quotes)."""
    quote: str | None = None
    i = 0
    n = len(command)
    while i < n:
        c = command[i]
        if quote == "'":
            if c == "'":
                quote = None
        elif c == "\\" and i + 1 < n and command[i + 1] not in LINE_BREAKS:
            i += 2
            continue
        elif c == "`":
            return "`"
        elif quote == '"':
            if c == '"':
                quote = None
        elif c in ("'", '"'):
            quote = c
        elif c in LINE_BREAKS:
            return _NAMED[c]
        i += 1
    return None
