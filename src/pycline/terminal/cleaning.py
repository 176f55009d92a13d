"""Turn raw terminal output into plain text: escapes stripped, redrawn lines collapsed.

Programs that see a terminal colour their output and redraw progress bars and spinners in place
with carriage returns, backspaces and "erase line" escapes. The model should see each line as it
finally looked, not every intermediate frame. The cleaner works incrementally, chunk by chunk, so
output can be shown while the command runs and memory stays bounded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Stands for "erase to end of line" between stripping escapes and rendering a line. A unit
# separator never matters in command output, so any literal one is dropped first.
ERASE = "\x1f"

_ESCAPE = re.compile(
    r"\x1b\[([0-?]*)[ -/]*([@-~])"  # CSI: colours, cursor moves, erase
    r"|\x9b([0-?]*)[ -/]*([@-~])"  # the 8-bit form of CSI
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: window titles, hyperlinks
    r"|\x1b[PX^_][^\x1b]*\x1b\\"  # DCS, SOS, PM, APC strings
    r"|\x1b[ -/]+[0-~]"  # character set selection and the like
    r"|\x1b[0-OQ-WYZ\\`-~]"  # single-character escapes (keypad mode, save cursor...)
)
# What may be left at the end of a chunk when an escape was split across two reads.
_PARTIAL_ESCAPE = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*\x1b?|[PX^_][^\x1b]*\x1b?|[ -/]*)?|\x9b[0-?]*[ -/]*"
)
_CONTROLS = re.compile("[\x00-\x07\x0b\x0c\x0e-\x1e\x7f]")
_CR_BEFORE_NL = re.compile(r"\r+\n")
_REDRAW = re.compile("[\r\b\x1f]")
_MAX_PARTIAL_ESCAPE = 4096


def _escape_replacement(match: re.Match[str]) -> str:
    params = match.group(1) if match.group(1) is not None else match.group(3)
    final = match.group(2) if match.group(2) is not None else match.group(4)
    if final == "K" and params in ("", "0", "2"):
        return ERASE
    if final == "G" and params in ("", "0", "1"):
        return "\r"  # "cursor to column 1" is how some tools redraw instead of \r
    return ""


def strip_ansi(text: str) -> str:
    """Remove escape sequences and stray control characters (keeps \\n, \\t, \\r, \\b)."""
    text = _ESCAPE.sub(_escape_replacement, text.replace(ERASE, ""))
    return _CONTROLS.sub("", text.replace("\x1b", "")).replace(ERASE, "")


def _render_raw(line: str) -> str:
    """The line as a terminal would finally show it (before trimming trailing spaces)."""
    if "\b" in line or ERASE in line:
        cells: list[str] = []
        cursor = 0
        for ch in line:
            if ch == "\r":
                cursor = 0
            elif ch == "\b":
                cursor = max(0, cursor - 1)
            elif ch == ERASE:
                del cells[cursor:]
            elif cursor < len(cells):
                cells[cursor] = ch
                cursor += 1
            else:
                cells.append(ch)
                cursor += 1
        return "".join(cells)
    if "\r" in line:
        state = ""
        for segment in line.split("\r"):
            state = segment + state[len(segment) :]
        return state
    return line


def render_line(line: str) -> str:
    """One line (no newline in it) after carriage returns, backspaces and erases are applied."""
    if _REDRAW.search(line) is None:
        return line
    return _render_raw(line).rstrip()


def _render_block(block: str) -> str:
    """Complete lines, each ending in \\n."""
    if _REDRAW.search(block) is None:
        return block
    return "\n".join(render_line(line) for line in block[:-1].split("\n")) + "\n"


def _continuation(shown: str, final: str) -> str:
    """What to show after `shown` (already on screen) so the screen ends with the final line."""
    if final.startswith(shown):
        return final[len(shown) :]
    if shown.startswith(final) and not shown[len(final) :].strip():
        return ""
    return "\n" + final


@dataclass(frozen=True, slots=True)
class Cleaned:
    """`display` is for the user now (may end mid-line); `lines` is finished text for the model."""

    display: str
    lines: str


class StreamCleaner:
    """Feed decoded text chunks; get back what to show and which lines are final.

    A partial line is shown eagerly while it has no redraw characters, so a prompt or a slow line
    appears at once; a line being redrawn is shown only when it is finished. `max_line` bounds the
    memory one endless line may take.
    """

    def __init__(self, *, max_line: int = 64 * 1024) -> None:
        self._max_line = max_line
        self._raw_hold = ""  # the start of an escape sequence cut by the read boundary
        self._cr_hold = ""  # trailing \r that may be the first half of \r\n
        self._line = ""  # the unfinished current line
        self._shown = ""  # the part of the current line already displayed

    def feed(self, text: str) -> Cleaned:
        text = self._raw_hold + text.replace(ERASE, "")
        self._raw_hold = ""
        text = _ESCAPE.sub(_escape_replacement, text)
        esc = max(text.rfind("\x1b"), text.rfind("\x9b"))
        partial = (
            esc != -1
            and len(text) - esc <= _MAX_PARTIAL_ESCAPE
            and _PARTIAL_ESCAPE.fullmatch(text, esc) is not None
        )
        if partial:
            self._raw_hold = text[esc:]
            text = text[:esc]
        text = _CONTROLS.sub("", text.replace("\x1b", "").replace("\x9b", ""))
        text = _CR_BEFORE_NL.sub("\n", self._cr_hold + text)
        stripped = text.rstrip("\r")
        self._cr_hold = text[len(stripped) :]
        return self._lines(stripped)

    def finish(self) -> Cleaned:
        """The end of the stream: the last, unfinished line becomes final."""
        self._raw_hold = ""
        self._cr_hold = ""
        final = render_line(self._line)
        display = _continuation(self._shown, final)
        self._line = ""
        self._shown = ""
        return Cleaned(display, final)

    def _lines(self, text: str) -> Cleaned:
        buf = self._line + text
        newline = buf.rfind("\n")
        display: list[str] = []
        lines = ""
        if newline != -1:
            lines = _render_block(buf[: newline + 1])
            self._line = buf[newline + 1 :]
            if self._shown:
                first = lines[: lines.index("\n")]
                display.append(_continuation(self._shown, first) + lines[len(first) :])
                self._shown = ""
            else:
                display.append(lines)
        else:
            self._line = buf
        if len(self._line) > self._max_line:
            lines += self._shorten_line(display)
        if self._line and _REDRAW.search(self._line) is None:
            display.append(self._line[len(self._shown) :])
            self._shown = self._line
        return Cleaned("".join(display), lines)

    def _shorten_line(self, display: list[str]) -> str:
        """Keep an endless line bounded; returns text that became final."""
        cr = self._line.rfind("\r")
        if cr > 0:
            # Everything before the last \r has been drawn over already; keep only its result.
            self._line = _render_raw(self._line[:cr]) + self._line[cr:]
        if len(self._line) <= self._max_line:
            return ""
        # A single line this long is data, not a display: pass it on in pieces.
        piece = render_line(self._line)
        display.append(_continuation(self._shown, piece))
        self._line = ""
        self._shown = ""
        return piece


def clean_output(text: str) -> str:
    """Clean a complete output at once (what the model would see, before bounding)."""
    cleaner = StreamCleaner()
    first = cleaner.feed(text)
    return first.lines + cleaner.finish().lines
