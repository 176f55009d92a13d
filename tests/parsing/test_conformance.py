"""Cline's recorded parser behaviour (parseAssistantMessageV2, v3.89.2), case by case.

Every case is checked three ways: the one-shot parse, a parser fed the same text in small chunks,
and (for the streaming cases) every prefix, both parsed in one go and as the live `blocks` of a
parser fed one character at a time. We differ from Cline in none of these cases.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pycline.parsing.stream import StreamingParser, parse_assistant_message
from tests.parsing.blocks_json import as_json
from tests.parsing.reference import reference_parse

DATA = Path(__file__).parents[1] / "conformance" / "parse_assistant_message_v2.generated.json"


def _cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads(DATA.read_text(encoding="utf-8"))
    return cases


WHOLE = [c for c in _cases() if "expected" in c]
STREAMING = [c for c in _cases() if "streaming_segments" in c]


def _fed_in_chunks(text: str, size: int) -> StreamingParser:
    parser = StreamingParser()
    for i in range(0, len(text), size):
        parser.feed(text[i : i + size])
    return parser


def test_the_recorded_data_is_all_used() -> None:
    assert len(WHOLE) + len(STREAMING) == len(_cases()) == 43
    assert len(STREAMING) == 3


@pytest.mark.parametrize("case", WHOLE, ids=[c["id"] for c in WHOLE])
def test_whole_reply_parses_as_cline_does(case: dict[str, Any]) -> None:
    assert as_json(parse_assistant_message(case["input"])) == case["expected"], case["description"]


@pytest.mark.parametrize("size", [1, 2, 3, 7, 16])
@pytest.mark.parametrize("case", WHOLE, ids=[c["id"] for c in WHOLE])
def test_whole_reply_fed_in_chunks_parses_the_same(case: dict[str, Any], size: int) -> None:
    assert as_json(_fed_in_chunks(case["input"], size).blocks) == case["expected"]


@pytest.mark.parametrize("case", WHOLE, ids=[c["id"] for c in WHOLE])
def test_reference_oracle_agrees_with_cline(case: dict[str, Any]) -> None:
    # The oracle backs the property tests; it must itself match the recorded behaviour.
    assert as_json(reference_parse(case["input"])) == case["expected"]


def _segments(case: dict[str, Any]) -> list[tuple[int, list[dict[str, Any]]]]:
    return [
        (n, seg["expected"])
        for seg in case["streaming_segments"]
        for n in range(seg["from_len"], seg["to_len"] + 1)
    ]


@pytest.mark.parametrize("case", STREAMING, ids=[c["id"] for c in STREAMING])
def test_streaming_segments_cover_every_prefix(case: dict[str, Any]) -> None:
    assert [n for n, _ in _segments(case)] == list(range(len(case["input"]) + 1))


@pytest.mark.parametrize("case", STREAMING, ids=[c["id"] for c in STREAMING])
def test_every_prefix_parsed_in_one_go_matches_cline(case: dict[str, Any]) -> None:
    text = case["input"]
    for n, expected in _segments(case):
        assert as_json(parse_assistant_message(text[:n])) == expected, n
        assert as_json(reference_parse(text[:n])) == expected, n


@pytest.mark.parametrize("size", [1, 2, 5])
@pytest.mark.parametrize("case", STREAMING, ids=[c["id"] for c in STREAMING])
def test_live_blocks_after_every_chunk_match_cline(case: dict[str, Any], size: int) -> None:
    text = case["input"]
    expected_at = dict(_segments(case))
    parser = StreamingParser()
    assert as_json(parser.blocks) == expected_at[0]
    for start in range(0, len(text), size):
        end = min(start + size, len(text))
        parser.feed(text[start:end])
        assert as_json(parser.blocks) == expected_at[end], end


@pytest.mark.parametrize("size", [1, 4, 16])
@pytest.mark.parametrize("case", STREAMING, ids=[c["id"] for c in STREAMING])
def test_every_prefix_fed_in_chunks_matches_cline(case: dict[str, Any], size: int) -> None:
    text = case["input"]
    for n, expected in _segments(case):
        assert as_json(_fed_in_chunks(text[:n], size).blocks) == expected, n
