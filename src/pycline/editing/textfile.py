"""Reading and writing a text file without changing what the edit did not change.

The model sees and writes `\\n` text. Whatever the file had on disk is kept on write: its
encoding (legacy ones detected, see encodings.py), byte-order mark, CRLF line breaks and whether
it ends with a newline.
"""

from __future__ import annotations

import codecs
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from pycline.editing import encodings
from pycline.errors import ToolError

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
NEW_FILE_MODE = 0o644


class BinaryFile(ToolError):
    """The file is not text; an edit would damage it."""


@dataclass(frozen=True, slots=True)
class TextFile:
    text: str  # with `\n` line breaks when the file uses CRLF throughout
    encoding: str = "utf-8"
    bom: bytes = b""
    crlf: bool = False
    final_newline: bool = True
    mode: int | None = None  # permission bits of the file on disk

    def conform(self, text: str) -> str:
        """Give new `\\n` text this file's final-newline convention."""
        if not text:
            return text
        if self.final_newline and not text.endswith("\n"):
            return text + "\n"
        if not self.final_newline and text.endswith("\n"):
            return text[:-1]
        return text

    def encode(self, text: str) -> bytes:
        if self.crlf:
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        try:
            return self.bom + text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            bad = exc.object[exc.start : exc.end]
            raise ToolError(
                f"The new content cannot be saved in the file's encoding ({self.encoding}): "
                f"{bad!r} has no representation in it. Use characters that {self.encoding} has, "
                "or an escape sequence of the file's language."
            ) from exc


def decode(data: bytes, mode: int | None = None) -> TextFile:
    """The text in `data`; `mode` is the permission bits of the file it came from."""
    bom, encoding = b"", ""
    for mark, name in _BOMS:
        if data.startswith(mark):
            bom, encoding = mark, name
            break
    body = data[len(bom) :]
    if encoding:
        try:
            text = body.decode(encoding)
        except UnicodeDecodeError as exc:
            raise BinaryFile(f"The file is not valid {encoding} text; it was not changed.") from exc
    else:
        if b"\x00" in body:
            raise BinaryFile("The file looks binary (it contains NUL bytes); it was not changed.")
        text, encoding = _decode_plain(body)
    crlf = "\r\n" in text and text.count("\r\n") == text.count("\n")
    if crlf:
        text = text.replace("\r\n", "\n")
    final_newline = text.endswith("\n") or not text
    return TextFile(text, encoding, bom, crlf, final_newline, mode)


def _decode_plain(body: bytes) -> tuple[str, str]:
    try:
        return body.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return encodings.detect(body)


def read_bytes(path: Path) -> tuple[bytes, int]:
    """The file's bytes and permission bits, refusing what is not a regular file."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode) and not stat.S_ISDIR(info.st_mode):
            # A FIFO would block the read forever; a device may never end.
            raise ToolError(f"{path} is not a regular file (a pipe, device or socket).")
        return path.read_bytes(), stat.S_IMODE(info.st_mode)
    except IsADirectoryError as exc:
        raise ToolError(f"{path} is a directory, not a file.") from exc
    except PermissionError as exc:
        raise ToolError(f"{path} cannot be read: permission denied.") from exc
    except OSError as exc:
        raise ToolError(f"{path} cannot be read: {exc.strerror or exc}.") from exc


def read(path: Path) -> TextFile:
    data, mode = read_bytes(path)
    return decode(data, mode)


def write(path: Path, data: bytes, *, mode: int | None) -> None:
    """Atomically: a crash leaves the old file or the new one, never half of each."""
    from pycline.storage.atomic import atomic_write_bytes

    if path.exists() and not os.access(path, os.W_OK):
        # Replacing it through a rename would succeed where writing it would not: refuse as the
        # operating system refuses a write to a read-only file.
        raise ToolError(f"{path} is read-only; it was not changed.")
    try:
        atomic_write_bytes(path, data, mode=NEW_FILE_MODE if mode is None else mode)
    except PermissionError as exc:
        raise ToolError(f"{path} cannot be written: permission denied.") from exc
    except OSError as exc:
        raise ToolError(f"{path} cannot be written: {exc.strerror or exc}.") from exc
