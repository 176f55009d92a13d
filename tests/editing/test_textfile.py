"""Decoding and re-encoding keeps encoding, BOM, line endings and the final newline."""

from __future__ import annotations

import codecs

import pytest

from pycline.editing.textfile import BinaryFile, TextFile, decode
from pycline.errors import ToolError


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (b"a = 1\nb = 2\n", "utf-8"),
        (codecs.BOM_UTF8 + "é = 1\r\nb = 2\r\n".encode(), "utf-8"),
        (codecs.BOM_UTF16_LE + "x\r\ny".encode("utf-16-le"), "utf-16-le"),
        (codecs.BOM_UTF16_BE + "x\ny\n".encode("utf-16-be"), "utf-16-be"),
        ("café\nnaïve".encode("cp1252"), "cp1252"),
        (b"\x81\x8d raw bytes\n", None),  # no telling what it is: any lossless reading
    ],
)
def test_unchanged_text_round_trips_byte_for_byte(data: bytes, encoding: str | None) -> None:
    file = decode(data)
    assert encoding is None or file.encoding == encoding
    assert "\r" not in file.text or not file.crlf
    assert file.encode(file.text) == data


def test_crlf_files_are_edited_as_lf_and_written_back_as_crlf() -> None:
    file = decode(b"a\r\nb\r\n")
    assert file.crlf and file.text == "a\nb\n"
    assert file.encode("a\nB\nc\n") == b"a\r\nB\r\nc\r\n"


def test_mixed_line_endings_are_left_as_they_are() -> None:
    file = decode(b"a\r\nb\nc\r\n")
    assert not file.crlf
    assert file.encode(file.text) == b"a\r\nb\nc\r\n"


def test_final_newline_convention_is_kept() -> None:
    without = decode(b"a\nb")
    assert without.conform("a\nB\n") == "a\nB"
    with_newline = decode(b"a\nb\n")
    assert with_newline.conform("a\nB") == "a\nB\n"
    assert TextFile("").conform("new") == "new\n"


def test_binary_files_are_refused() -> None:
    with pytest.raises(BinaryFile):
        decode(b"\x89PNG\r\n\x1a\n\x00\x00\x00")


def test_characters_the_encoding_cannot_hold_are_a_clear_error() -> None:
    file = decode("café\n".encode("cp1252"))
    with pytest.raises(ToolError) as caught:
        file.encode("café €uro ✓\n")
    assert "cp1252" in str(caught.value)
