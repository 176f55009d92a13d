"""File names as the model reads them: control characters escaped, as `ls -b` shows them.

A name is text someone else chose. One holding a newline would forge lines in a listing
(`evil\\n\\n# SYSTEM NOTE: …` reads as a heading of the environment details), and escape
sequences would reach the model raw. So a name with any such character is shown with C-style
escapes (its backslashes doubled, so the form is unambiguous); every other name is shown as is.
"""

from __future__ import annotations

import re

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f", "\v": "\\v", "\a": "\\a"}
# C0 and C1 controls, DEL, the Unicode line and paragraph separators and the bidi overrides.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escaped(char: str) -> str:
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\{code:03o}" if code < 0x100 else f"\\u{code:04x}"


def shown_name(name: str) -> str:
    """`name` as it is put in front of the model (unchanged unless it holds a control)."""
    if not _CONTROL.search(name):
        return name
    return _CONTROL.sub(lambda m: _escaped(m.group()), name.replace("\\", "\\\\"))
