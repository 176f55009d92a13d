"""Any reply, cut into chunks anywhere, parses as the whole does; feeding never raises."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pycline.parsing.blocks import AssistantBlock, TextBlock, ToolUseBlock
from pycline.parsing.stream import StreamingParser, parse_assistant_message
from pycline.parsing.vocab import JS_WHITESPACE
from tests.parsing.reference import reference_parse

_TOOLS = ["read_file", "write_to_file", "execute_command", "new_rule", "attempt_completion"]
_PARAMS = ["path", "content", "command", "result", "diff", "task_progress"]

# Pieces a model reply is made of, plus the fragments that trip parsers up: half tags, tags of
# unknown names, tags with attributes, stray brackets, content tags out of place, and the kinds
# of whitespace on which JavaScript's trim and Python's strip disagree.
_FRAGMENT = st.one_of(
    st.sampled_from([f"<{t}>" for t in _TOOLS] + [f"</{t}>" for t in _TOOLS]),
    st.sampled_from([f"<{p}>" for p in _PARAMS] + [f"</{p}>" for p in _PARAMS]),
    st.sampled_from(["<content>", "</content>", "</write_to_file>", "<thinking>", "</thinking>"]),
    st.sampled_from(["<", ">", "</", "<read_fi", "le>", "<foo>", "</foo>", '<read_file a="1">']),
    st.sampled_from(["\n", " ", "\r\n", "\t", "\u00a0", "\ufeff", "\x85", "\x1c", "\u2028"]),
    st.sampled_from(["Let me look.", "a < b > c", "x -> y", "é", "日本", "🙂", "if (a<b)"]),
    st.text(max_size=8),
)
_VALUE = st.lists(_FRAGMENT, max_size=6).map("".join)


@st.composite
def _tool_call(draw: st.DrawFn) -> str:
    """A well-formed call, whose values may hold any fragment (nested tags included)."""
    tool = draw(st.sampled_from(_TOOLS))
    params = draw(st.lists(st.tuples(st.sampled_from(_PARAMS), _VALUE), max_size=3))
    body = "".join(f"\n<{p}>{v}</{p}>" for p, v in params)
    return f"<{tool}>{body}\n</{tool}>"


_REPLY = st.lists(st.one_of(_FRAGMENT, _tool_call()), max_size=30).map("".join)


def _feed_at(text: str, cuts: list[int]) -> tuple[StreamingParser, list[list[AssistantBlock]]]:
    """Feed `text` split at `cuts`; also return the blocks read after every chunk."""
    parser = StreamingParser()
    seen: list[list[AssistantBlock]] = []
    bounds = [0, *sorted(set(cuts)), len(text)]
    for a, b in itertools.pairwise(bounds):
        parser.feed(text[a:b])
        seen.append(parser.blocks)
    return parser, seen


def _cuts(text: str) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, len(text)), max_size=30)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), text=_REPLY)
def test_any_chunking_gives_the_blocks_of_the_whole_reply(data: st.DataObject, text: str) -> None:
    parser, _ = _feed_at(text, data.draw(_cuts(text)))
    assert parser.blocks == parse_assistant_message(text) == reference_parse(text)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), text=_REPLY)
def test_blocks_read_mid_stream_are_the_parse_of_the_prefix(data: st.DataObject, text: str) -> None:
    cuts = sorted(set(data.draw(_cuts(text))))
    _, seen = _feed_at(text, cuts)
    for end, blocks in zip([*cuts, len(text)], seen, strict=True):
        assert blocks == reference_parse(text[:end]), end


@settings(max_examples=300)
@given(data=st.data(), text=st.text(max_size=300))
def test_arbitrary_text_never_raises_and_parses_as_the_oracle(
    data: st.DataObject, text: str
) -> None:
    parser, _ = _feed_at(text, data.draw(_cuts(text)))
    assert parser.blocks == reference_parse(text)
    parser.finish()


@settings(max_examples=200)
@given(text=_REPLY)
def test_only_the_last_block_is_ever_partial(text: str) -> None:
    blocks = parse_assistant_message(text)
    assert all(not b.partial for b in blocks[:-1])


_PLAIN = st.text(st.characters(blacklist_characters="<>"), max_size=12)


@settings(max_examples=200)
@given(
    data=st.data(),
    calls=st.lists(
        # write_to_file re-cuts a repeated `content` (see test_stream.py), so it is left out here.
        st.tuples(
            st.sampled_from([t for t in _TOOLS if t != "write_to_file"]),
            st.lists(st.tuples(st.sampled_from(_PARAMS), _PLAIN)),
        ),
        min_size=1,
        max_size=3,
    ),
)
def test_well_formed_calls_come_out_complete_in_any_chunking(
    data: st.DataObject, calls: list[tuple[str, list[tuple[str, str]]]]
) -> None:
    text = "Intro." + "".join(
        f"<{t}>" + "".join(f"\n<{p}>{v}</{p}>" for p, v in ps) + f"\n</{t}>" for t, ps in calls
    )
    expected: list[AssistantBlock] = [TextBlock("Intro.", partial=False)]
    expected += [
        ToolUseBlock(t, {p: v.strip(JS_WHITESPACE) for p, v in ps}, partial=False)
        for t, ps in calls
    ]
    parser, _ = _feed_at(text, data.draw(_cuts(text)))
    assert parser.blocks == expected


@settings(max_examples=200)
@given(text=_REPLY)
def test_finish_is_the_parse_with_every_block_complete(text: str) -> None:
    parser = StreamingParser()
    parser.feed(text)
    finished = parser.finish()
    live = parser.blocks
    assert len(finished) == len(live)
    for done, now in zip(finished, live, strict=True):
        assert not done.partial
        match done, now:
            case TextBlock(content=a), TextBlock(content=b):
                assert a == b
            case ToolUseBlock(name=n1, params=p1), ToolUseBlock(name=n2, params=p2):
                assert (n1, p1) == (n2, p2)
            case _:
                raise AssertionError((done, now))
