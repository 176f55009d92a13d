"""Re-indenting replacement lines into the frame of the block they replace.

A model often gets indentation wrong as a whole: the block copied without its leading spaces,
spaces where the file uses tabs, two-space steps where the file uses four. When the lines it
matched show one consistent relation between the model's indentation and the file's, the same
relation is applied to the new lines. Without a clear majority nothing is changed.

Widths are columns, with the file's tab stops: four, or eight for a file that mixes tabs and
spaces the way Emacs and GNU code do (steps of four columns, a tab for every eight), where a tab
stands for two levels and a new line at three levels is a tab and four spaces.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

TAB_WIDTH = 4
_OPENERS = ("{", ":", "(", "[", "then", "do", "else")


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def width(indent: str, tab: int = TAB_WIDTH) -> int:
    columns = 0
    for char in indent:
        columns = (columns // tab + 1) * tab if char == "\t" else columns + 1
    return columns


def tab_width_of(lines: Sequence[str]) -> int:
    """8 when the file indents in steps of four with a tab for every eight columns (a block
    opened at a tab prefix continues at that prefix plus four spaces, or a four-space line opens
    a block whose body is one tab), else 4. Alignment after tabs (`\t    arg,`) is no evidence:
    only the first line of a block counts."""
    eight = four = 0
    previous = ""
    for line in lines:
        if not line.strip():
            continue
        if previous.rstrip().endswith(_OPENERS):
            outer, inner = indent_of(previous), indent_of(line)
            if (inner == outer + "    " and "\t" in outer) or (outer == "    " and inner == "\t"):
                eight += 1
            elif inner == outer + "\t" and outer.strip(" ") == outer:
                four += 1
        previous = line
    return 8 if eight > four else TAB_WIDTH


def model_step(lines: Sequence[str], tab: int = TAB_WIDTH) -> int | None:
    """The model's indentation step in columns (its smallest difference between two indented
    lines' widths), when its lines show one."""
    widths = sorted({width(indent_of(line), tab) for line in lines if line.strip()})
    steps = [b - a for a, b in itertools.pairwise(widths) if b > a]
    return min(steps) if steps else None


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
    tab: int = TAB_WIDTH  # the file's tab stops

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
        columns = max(0, round(self.scale * width(indent, self.tab) + self.shift))
        return render(columns, tabs=bool(self.tabs), tab=self.tab) + body


def render(columns: int, *, tabs: bool, tab: int = TAB_WIDTH) -> str:
    if tabs:
        return "\t" * (columns // tab) + " " * (columns % tab)
    return " " * columns


def estimate(
    pairs: Sequence[tuple[str, str]],
    file_style: bool | None,
    *,
    tab: int = TAB_WIDTH,
    model_lines: Sequence[str] = (),
) -> IndentMap:
    """Find the map from model lines to file lines (each pair: model line, file line).

    The winner must explain a strict majority of the non-blank pairs. A one-column shift towards
    an odd number of spaces in the file is a stray space, not an indentation level: it is not
    copied to new lines (Cline's conformance case ` line2 ` keeps its replacement flush).

    Spaces written for a tab-indented file: a tab is one level, so the model's own step (seen in
    all its lines, `model_lines`) is what one tab stands for. A model writing eight spaces a
    level for a file of tabs four columns wide is scaled by a half, or its new nested lines would
    land a level too deep for each level they add.
    """
    usable = [
        (width(indent_of(m), tab), width(indent_of(f), tab))
        for m, f in pairs
        if m.strip() and f.strip()
    ]
    if not usable:
        return IndentMap(tabs=file_style, tab=tab)
    hypotheses: set[tuple[float, int]] = {(1.0, fw - mw) for mw, fw in usable}
    if len({mw for mw, _ in usable}) >= 2:
        hypotheses |= {(2.0, 0), (0.5, 0)}
    preferred = _tab_scale(pairs, model_lines, file_style, tab)
    if preferred is not None:
        hypotheses |= {(preferred, round(fw - preferred * mw)) for mw, fw in usable}
    scored = [
        (sum(1 for mw, fw in usable if round(scale * mw + shift) == fw), scale, shift)
        for scale, shift in hypotheses
    ]
    count, scale, shift = max(
        scored,
        key=lambda t: (t[0], t[1] == (preferred or 1.0), t[1] == 1.0, t[2] == 0, -abs(t[2])),
    )
    if count * 2 <= len(usable):
        return IndentMap(tabs=file_style, tab=tab)
    any_tabs = any("\t" in indent_of(m) + indent_of(f) for m, f in pairs)
    odd_file = all(fw % 2 == 1 for _, fw in usable if fw)
    if scale == 1.0 and abs(shift) == 1 and not any_tabs and odd_file:
        return IndentMap(tabs=file_style, tab=tab)
    return IndentMap(scale, shift, file_style, tab)


def _tab_scale(
    pairs: Sequence[tuple[str, str]],
    model_lines: Sequence[str],
    file_style: bool | None,
    tab: int,
) -> float | None:
    """File columns per model column when the model wrote spaces for a file of tabs one level
    each (tab stops of four): one tab for each of the model's steps."""
    if not file_style or tab != TAB_WIDTH:
        return None
    if any("\t" in indent_of(m) for m, _ in pairs) or any(
        "\t" in indent_of(m) for m in model_lines
    ):
        return None
    step = model_step([*(m for m, _ in pairs), *model_lines], tab)
    if step is None or step == tab:
        return None
    return tab / step
