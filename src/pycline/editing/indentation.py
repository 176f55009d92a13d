"""Re-indenting replacement lines into the frame of the block they replace.

A model often gets indentation wrong as a whole: the block copied without its leading spaces,
spaces where the file uses tabs, two-space steps where the file uses four. When the lines it
matched show one consistent relation between the model's indentation and the file's, the same
relation is applied to the new lines. Without a clear majority nothing is changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

TAB_WIDTH = 4


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def width(indent: str) -> int:
    columns = 0
    for char in indent:
        columns = (columns // TAB_WIDTH + 1) * TAB_WIDTH if char == "\t" else columns + 1
    return columns


def uses_tabs(lines: Sequence[str]) -> bool | None:
    """True/False when the indented lines mostly use tabs/spaces; None when nothing is indented."""
    tabs = spaces = 0
    for line in lines:
        if not line.strip():
            continue
        if line.startswith("\t"):
            tabs += 1
        elif line.startswith(" "):
            spaces += 1
    if tabs == spaces == 0:
        return None
    return tabs > spaces


@dataclass(frozen=True, slots=True)
class IndentMap:
    """file_width = scale * model_width + shift, rendered with tabs or spaces."""

    scale: float = 1.0
    shift: int = 0
    tabs: bool | None = None  # the file's style; None = keep the model's characters

    @property
    def identity(self) -> bool:
        return self.scale == 1.0 and self.shift == 0

    def apply(self, line: str) -> str:
        if not line.strip():
            return line
        indent = indent_of(line)
        body = line[len(indent) :]
        same_style = self.tabs is None or not indent or (("\t" in indent) == self.tabs)
        if self.identity and same_style:
            return line
        columns = max(0, round(self.scale * width(indent) + self.shift))
        return render(columns, tabs=bool(self.tabs)) + body


def render(columns: int, *, tabs: bool) -> str:
    if tabs:
        return "\t" * (columns // TAB_WIDTH) + " " * (columns % TAB_WIDTH)
    return " " * columns


def estimate(pairs: Sequence[tuple[str, str]], file_style: bool | None) -> IndentMap:
    """Find the map from model lines to file lines (each pair: model line, file line).

    The winner must explain a strict majority of the non-blank pairs. A one-column shift towards
    an odd number of spaces in the file is a stray space, not an indentation level: it is not
    copied to new lines (Cline's conformance case ` line2 ` keeps its replacement flush).
    """
    usable = [
        (width(indent_of(m)), width(indent_of(f))) for m, f in pairs if m.strip() and f.strip()
    ]
    if not usable:
        return IndentMap(tabs=file_style)
    hypotheses: set[tuple[float, int]] = {(1.0, fw - mw) for mw, fw in usable}
    if len({mw for mw, _ in usable}) >= 2:
        hypotheses |= {(2.0, 0), (0.5, 0)}
    scored = [
        (sum(1 for mw, fw in usable if round(scale * mw + shift) == fw), scale, shift)
        for scale, shift in hypotheses
    ]
    count, scale, shift = max(scored, key=lambda t: (t[0], t[1] == 1.0, t[2] == 0, -abs(t[2])))
    if count * 2 <= len(usable):
        return IndentMap(tabs=file_style)
    any_tabs = any("\t" in indent_of(m) + indent_of(f) for m, f in pairs)
    odd_file = all(fw % 2 == 1 for _, fw in usable if fw)
    if scale == 1.0 and abs(shift) == 1 and not any_tabs and odd_file:
        return IndentMap(tabs=file_style)
    return IndentMap(scale, shift, file_style)
