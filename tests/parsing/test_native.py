"""Native tool-call assembly: any split of the streamed arguments assembles the same call."""

from __future__ import annotations

import json

import pytest
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


def test_lone_surrogates_in_id_name_and_values_become_replacement_characters() -> None:
    assembler = NativeCallAssembler()
    assembler.feed(0, id="c\ud83d", name="read\udc80", arguments='{"path": "a\\ud83d.py", "x')
    _, block = assembler.partial(0)
    assert block.params == {"path": "a\ufffd.py"}
    assembler.feed(0, id=None, name=None, arguments='": "\\ude00"}')
    (call,) = assembler.finish()
    assert (call.id, call.name) == ("c\ufffd", "read\ufffd")
    assert call.params == {"path": "a\ufffd.py", "x": "\ufffd"}


def test_arguments_nested_without_end_are_an_error_not_a_recursion() -> None:
    assembler = NativeCallAssembler()
    deep = "[" * 100_000 + "]" * 100_000
    assembler.feed(0, id="c1", name="write_to_file", arguments='{"content": ' + deep + "}")
    (call,) = assembler.finish()
    assert call.params == {} and "nested more than" in call.error


def test_arguments_beyond_the_bound_are_dropped_with_an_error() -> None:
    from pycline.parsing import native

    assembler = NativeCallAssembler()
    piece = "x" * 1_000_000
    assembler.feed(0, id="c1", name="write_to_file", arguments='{"content": "')
    for _ in range(native.MAX_ARGUMENT_CHARS // len(piece) + 1):
        assembler.feed(0, id=None, name=None, arguments=piece)
    (call,) = assembler.finish()
    assert call.params == {} and "longer than" in call.error


def test_json_depth_is_measured_without_decoding_and_ignores_brackets_in_strings() -> None:
    from pycline.parsing import json_limits

    assert json_limits.depth('{"a": [1, {"b": "[[[["}]}') == 3
    assert json_limits.depth('"just [ text"') == 0
    assert json_limits.depth('{"a": "\\"[["}') == 1
    assert json_limits.loads('{"a": [[1]]}', max_depth=3) == {"a": [[1]]}
    with pytest.raises(json_limits.TooDeep):
        json_limits.loads('{"a": [[1]]}', max_depth=2)
