"""Cline's own SEARCH/REPLACE vectors (conformance/cline/), as tables.

Deliberate differences, kept visible here:
- Error messages START with Cline's text and then add what Cline leaves out (which block, the
  closest region with line numbers, how it differs). Models and users know Cline's wording; the
  rest is what makes the next attempt succeed. So errors are compared with `startswith`.
- The `v2_*` fields describe Cline's experimental second algorithm, which is not the behaviour
  of the classic core; only the v1 fields are checked.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pycline.editing.search_replace import SearchReplaceError, apply_search_replace

VECTORS = Path(__file__).parents[1] / "conformance"


def _load(name: str) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    return data


DIFF_CASES = _load("diff_search_replace.json")
STREAM_CASES = _load("diff_streaming_v1.generated.json")


@pytest.mark.parametrize("case", DIFF_CASES, ids=[c["id"] for c in DIFF_CASES])
def test_cline_diff_vector(case: dict[str, Any]) -> None:
    diff = case["diff"].strip()  # the tool trims the parameter before applying it, like Cline
    if case["expect_error"]:
        with pytest.raises(SearchReplaceError) as caught:
            apply_search_replace(case["original"], diff, is_final=case["is_final"])
        assert str(caught.value).startswith(case["error_message_v1"])
        return
    outcome = apply_search_replace(case["original"], diff, is_final=case["is_final"])
    assert outcome.content == case["expected"]
    assert list(outcome.match_indices) == case["match_indices_v1"]


def _streaming_points() -> list[tuple[str, dict[str, Any], int, dict[str, Any]]]:
    points = []
    for case in STREAM_CASES:
        for segment in case["streaming_segments"]:
            for n in range(segment["from_len"], segment["to_len"] + 1):
                points.append((case["id"], case, n, segment["expected"]))
    return points


STREAM_POINTS = _streaming_points()


@pytest.mark.parametrize(
    ("case_id", "case", "length", "expected"),
    STREAM_POINTS,
    ids=[f"{p[0]}-{p[2]}" for p in STREAM_POINTS],
)
def test_every_streamed_prefix_shows_the_partial_file(
    case_id: str, case: dict[str, Any], length: int, expected: dict[str, Any]
) -> None:
    prefix = case["diff"][:length].strip()
    if "error" in expected:
        with pytest.raises(SearchReplaceError) as caught:
            apply_search_replace(case["original"], prefix, is_final=False)
        assert str(caught.value).startswith(expected["error"])
        return
    outcome = apply_search_replace(case["original"], prefix, is_final=False)
    assert outcome.content == expected["newContent"]
    assert list(outcome.match_indices) == expected["matchIndices"]


@pytest.mark.parametrize("case", STREAM_CASES, ids=[c["id"] for c in STREAM_CASES])
def test_streamed_diff_final_call(case: dict[str, Any]) -> None:
    expected = case["final_is_final_true"]
    if "error" in expected:
        with pytest.raises(SearchReplaceError) as caught:
            apply_search_replace(case["original"], case["diff"].strip())
        assert str(caught.value).startswith(expected["error"])
        return
    outcome = apply_search_replace(case["original"], case["diff"].strip())
    assert outcome.content == expected["newContent"]
    assert list(outcome.match_indices) == expected["matchIndices"]
