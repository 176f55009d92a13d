"""Properties of the engine over generated files and diffs (Hypothesis)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pycline.editing.search_replace import SearchReplaceError, apply_search_replace
from pycline.errors import ToolError
from pycline.tools.edit import ReplaceInFileTool
from tests.editing.tooling import call, make_context

LINE_CHARS = st.characters(codec="utf-8", exclude_categories=["Cs"], exclude_characters="\n\r")
LINE = st.text(LINE_CHARS, max_size=12) | st.sampled_from(
    ["", "    x = 1", "\tif a {", "}", "return None", "=======", "------- SEARCH", "“q”", "  "]
)
FILE_LINES = st.lists(LINE, min_size=1, max_size=25)


@st.composite
def file_and_span(draw: st.DrawFn) -> tuple[str, list[str], str]:
    lines = draw(FILE_LINES)
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    text = ending.join(lines) + draw(st.sampled_from(["", ending]))
    start = draw(st.integers(0, len(lines) - 1))
    stop = draw(st.integers(start + 1, len(lines)))
    return text, lines[start:stop], ending


def _is_marker_like(line: str) -> bool:
    stripped = line.lstrip()
    return bool(stripped) and stripped[0] in "-<=+>"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(file_and_span())
def test_search_equal_to_replace_gives_back_the_original(case: tuple[str, list[str], str]) -> None:
    text, span, ending = case
    if any(_is_marker_like(line) for line in span) or not any(line.strip() for line in span):
        return  # marker lines cannot be SEARCH content in this format
    body = "\n".join(span)
    diff = f"------- SEARCH\n{body}\n=======\n{body}\n+++++++ REPLACE"
    try:
        result = apply_search_replace(text, diff).content
    except SearchReplaceError:
        return  # an ambiguous SEARCH is refused: also fine
    if text.endswith(ending):
        assert result == text
    else:
        # Like Cline, a block that takes the last line ends it with a newline; the file tools
        # restore the file's own final-newline convention when they write.
        assert result in (text, text + ("\r\n" if "\r\n" in text else "\n"))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200), st.text(max_size=300), st.booleans())
def test_no_input_crashes_the_engine(original: str, diff: str, is_final: bool) -> None:
    try:
        outcome = apply_search_replace(original, diff, is_final=is_final)
    except SearchReplaceError:
        return
    assert isinstance(outcome.content, str)


MARKERS = st.sampled_from(
    ["------- SEARCH", "=======", "+++++++ REPLACE", "<<<<<<< SEARCH", ">>>>>>> REPLACE", "==="]
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(FILE_LINES, st.lists(MARKERS | LINE, max_size=20), st.booleans())
def test_structured_diffs_either_apply_or_raise(
    lines: list[str], diff_lines: list[str], is_final: bool
) -> None:
    original = "\n".join(lines)
    try:
        outcome = apply_search_replace(original, "\n".join(diff_lines), is_final=is_final)
    except SearchReplaceError as exc:
        assert str(exc)
        assert exc.block_index >= 0
        return
    assert isinstance(outcome.content, str)
    assert all(0 <= i <= len(original) for i in outcome.match_indices)


ENCODINGS = st.sampled_from(
    [("utf-8", b""), ("utf-8", b"\xef\xbb\xbf"), ("utf-16-le", b"\xff\xfe"), ("cp1252", b"")]
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(file_and_span(), ENCODINGS, st.text(LINE_CHARS, max_size=10))
def test_a_failed_edit_never_changes_a_byte_of_the_file(
    case: tuple[str, list[str], str], encoding: tuple[str, bytes], junk: str
) -> None:
    text, span, _ending = case
    codec, bom = encoding
    try:
        data = bom + text.encode(codec)
    except UnicodeEncodeError:
        return
    body = "\n".join(line for line in span if not _is_marker_like(line))
    diff = f"------- SEARCH\n{body}\nzz{junk} not in the file zz\n=======\nnew\n+++++++ REPLACE"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "target.txt"
        path.write_bytes(data)
        try:
            result = asyncio.run(
                ReplaceInFileTool().run(
                    call("replace_in_file", path="target.txt", diff=diff),
                    make_context(Path(folder)),
                )
            )
        except ToolError:  # e.g. a file with NUL bytes is refused as binary
            failed, saved = True, ""
        else:
            failed, saved = result.is_error, result.text
        if failed:
            assert path.read_bytes() == data
        else:  # the junk line was tolerated as stale context: a real, approved edit
            assert saved.startswith("The content was saved")
