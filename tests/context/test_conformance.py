"""Every case of Cline's context_manager.json, run against our context modules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pycline.context.budget import should_compact
from pycline.context.dedupe import find_duplicate_reads
from pycline.context.truncation import next_truncation_range, truncated
from tests.context.cline_adapter import to_messages, total_tokens

CASES_FILE = Path(__file__).parents[1] / "conformance" / "context_manager.json"
CASES: list[dict[str, Any]] = json.loads(CASES_FILE.read_text(encoding="utf-8"))


def test_all_cases_are_loaded_and_every_op_is_known() -> None:
    assert len(CASES) == 26
    assert {c["op"] for c in CASES} == {
        "getNextTruncationRange",
        "getTruncatedMessages",
        "shouldCompactContextWindow",
        "applyContextOptimizations",
    }


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_cline_context_manager_case(case: dict[str, Any]) -> None:
    given, expected = case["input"], case["expected"]
    match case["op"]:
        case "getNextTruncationRange":
            current = given["currentDeletedRange"]
            got = next_truncation_range(
                given["roles"], tuple(current) if current else None, given["keep"]
            )
            assert list(got) == expected
        case "getTruncatedMessages":
            deleted = given["deletedRange"]
            got_messages = truncated(
                to_messages(given["messages"]), tuple(deleted) if deleted else None
            )
            assert got_messages == to_messages(expected)
        case "shouldCompactContextWindow":
            used = total_tokens(given["clineMessages"], given["previousApiReqIndex"])
            assert should_compact(used, given["contextWindow"], given["thresholdPercentage"]) is (
                expected
            )
        case "applyContextOptimizations":
            plan = find_duplicate_reads(to_messages(given["apiMessages"]), given["startFromIndex"])
            assert [plan.updated, plan.message_indices] == expected
        case other:
            pytest.fail(f"unknown op {other}")
