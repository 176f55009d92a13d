"""Native tool-call assembly: any split of the streamed arguments assembles the same call."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from pycline.parsing.native import ArgumentScanner, NativeCallAssembler, arguments_to_params


def _split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    parts, last = [], 0
    for p in points:
        parts.append(text[last:p])
        last = p
    parts.append(text[last:])
    return parts


def test_string_and_non_string_arguments_become_string_params() -> None:
    raw = '{"path": "a.py", "recursive": true, "timeout": 30, "options": ["a", "b"]}'
    assert arguments_to_params(raw) == {
        "path": "a.py",
        "recursive": "true",
        "timeout": "30",
        "options": '["a", "b"]',
    }


def test_arguments_that_are_not_an_object_are_reported_as_an_error() -> None:
    assembler = NativeCallAssembler()
    assembler.feed(0, id="c1", name="read_file", arguments='["not", "an object"]')
    (call,) = assembler.finish()
    assert call.id == "c1" and call.error and call.params == {}


def test_partial_arguments_show_each_value_as_far_as_it_arrived() -> None:
    assembler = NativeCallAssembler()
    assembler.feed(0, id="c1", name="write_to_file", arguments='{"path": "a.py", "content": "li')
    (block,) = assembler.blocks
    assert block.partial and block.name == "write_to_file"
    assert block.params == {"path": "a.py", "content": "li"}
    assembler.feed(0, id=None, name=None, arguments='ne\\n\\u00e9"}')
    (done,) = assembler.finish()
    assert done.params == {"path": "a.py", "content": "line\né"}


def test_two_calls_in_one_reply_keep_their_order_by_index() -> None:
    assembler = NativeCallAssembler()
    assembler.feed(1, id="b", name="list_files", arguments='{"path": "."}')
    assembler.feed(0, id="a", name="read_file", arguments='{"path": "x"}')
    assert [c.id for c in assembler.finish()] == ["a", "b"]


_values = st.one_of(
    st.text(),
    st.booleans(),
    st.integers(),
    st.lists(st.text(max_size=5), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)


@settings(max_examples=200, deadline=None)
@given(
    args=st.dictionaries(st.text(min_size=1, max_size=12), _values, max_size=5),
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=20),
    ascii_only=st.booleans(),
)
def test_any_chunking_assembles_the_same_call_and_partials_are_prefixes(
    args: dict[str, object], cuts: list[int], ascii_only: bool
) -> None:
    raw = json.dumps(args, ensure_ascii=ascii_only)
    whole = arguments_to_params(raw)
    assert whole is not None
    assembler = NativeCallAssembler()
    scanner = ArgumentScanner()
    for part in _split(raw, cuts):
        assembler.feed(0, id="c", name="t", arguments=part)
        scanner.feed(part)
        for key, value in scanner.partial().items():
            if key in whole and isinstance(args.get(key), str):
                assert whole[key].startswith(value)
    (call,) = assembler.finish()
    assert call.params == whole
    strings = {k: v for k, v in whole.items() if isinstance(args[k], str)}
    assert {k: scanner.values[k] for k in strings} == strings
