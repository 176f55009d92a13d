"""Model text made safe to print on the user's terminal.

A reply (or a file, or a command's output) can carry escape sequences: OSC 52 writes the user's
clipboard, others clear the screen, switch to the alternate screen, retitle the window or hide
what follows. Before a front end prints such text, every escape sequence and control character is
removed, except newline and tab; lone surrogates become U+FFFD.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TypeVar

from pycline.parsing.surrogates import clean

# ESC-introduced sequences: CSI (`ESC [`), OSC / DCS / APC / PM / SOS strings up to their
# terminator (BEL or ST), and two-character escapes; then C0 (but \t, \n) and C1 controls.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[ -/]*[0-~]?"
    r"|\x9b[0-?]*[ -/]*[@-~]?"
    r"|[\x9d\x90\x98\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x9c)?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)

T = TypeVar("T")


def printable(text: str) -> str:
    """`text` without escape sequences or control characters (newlines and tabs stay)."""
    text = text.replace("\r\n", "\n")
    return _ESCAPES.sub("", clean(text))


def for_terminal(item: T) -> T:
    """A copy of an event or question (a dataclass) whose text fields are `printable`."""
    if not dataclasses.is_dataclass(item) or isinstance(item, type):
        return item
    changes = {
        f.name: printable(value)
        for f in dataclasses.fields(item)
        if isinstance(value := getattr(item, f.name), str) and value != printable(value)
    }
    return dataclasses.replace(item, **changes) if changes else item
