"""SEARCH/REPLACE application (SPEC §4): all blocks or none, also on a streaming prefix.

`apply_search_replace` is pure: it returns the new content or raises SearchReplaceError; the
caller writes nothing on error, so a failed edit leaves the file byte-identical.

With `is_final=False` the diff is a prefix of what the model is still sending; the result is
the file as far as the edit has got (Cline's streaming view): everything up to the block being
written, plus that block's replacement lines so far.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pycline.editing import fuzzy, report
from pycline.editing.indentation import tab_width_of, uses_tabs
from pycline.editing.markers import Block, ParsedDiff, parse_diff
from pycline.editing.matching import LINE_STAGES, Ambiguous, Variant, choose, stage_matches
from pycline.editing.merge import MergeConflict, indent_map, merge
from pycline.editing.normalize import strip_line_numbers, strip_numbers_like
from pycline.editing.regions import Candidate, FileLines, Stage
from pycline.errors import ToolError

ORDERED_STAGES: tuple[Stage, ...] = (*LINE_STAGES, "anchor", "elided")


class SearchReplaceError(ToolError):
    """A block could not be applied; the message names the block and is meant for the model."""

    def __init__(self, message: str, *, block_index: int) -> None:
        super().__init__(message)
        self.block_index = block_index


@dataclass(frozen=True, slots=True)
class EditOutcome:
    content: str  # the whole new file content
    match_indices: tuple[int, ...]  # character offset in the original where each block matched


@dataclass(frozen=True, slots=True)
class _Edit:
    block: int
    start: int  # file lines [start, stop) are replaced by `lines`
    stop: int
    lines: tuple[str, ...]


class _NoMatch(Exception):
    def __init__(self, overlapping_block: int | None = None) -> None:
        super().__init__("no match")
        self.overlapping_block = overlapping_block


def apply_search_replace(original: str, diff: str, *, is_final: bool = True) -> EditOutcome:
    """Apply every block of `diff` to `original`, all or nothing."""
    crlf = "\r\n" in original and original.count("\r\n") == original.count("\n")
    text = original.replace("\r\n", "\n") if crlf else original
    parsed = parse_diff(diff, is_final=is_final)
    if is_final and not parsed.blocks and parsed.malformed is None:
        raise SearchReplaceError(
            report.malformed(
                "No SEARCH/REPLACE block was found in the diff.", 0, 1, parsed.stray_markers
            ),
            block_index=0,
        )
    run = _Run(FileLines(text), parsed, strict=is_final)
    run.apply_blocks()
    if is_final:
        content, indices = run.assemble_final()
    else:
        content, indices = run.assemble_partial()
    if crlf:
        content = content.replace("\n", "\r\n")
        indices = tuple(i + text.count("\n", 0, i) for i in indices)
    return EditOutcome(content, indices)


class _Run:
    def __init__(self, file: FileLines, parsed: ParsedDiff, *, strict: bool) -> None:
        self.file = file
        self.parsed = parsed
        self.strict = strict
        self.total = len(parsed.blocks) + (1 if parsed.malformed else 0)
        self.edits: list[_Edit] = []
        self.cursor = 0  # the line after the last block matched in file order
        self.current: _Edit | None = None  # the block still streaming (partial mode only)
        self.current_in_order = True
        self.file_tabs = uses_tabs(file.lines)
        self.file_tab = tab_width_of(file.lines)

    # --- the blocks ------------------------------------------------------------------------

    def apply_blocks(self) -> None:
        for block in self.parsed.blocks:
            if not block.has_separator:
                break  # still streaming its SEARCH: nothing to show for it yet
            self._apply(block)
        if self.parsed.malformed is not None:
            bad = self.parsed.malformed
            raise SearchReplaceError(
                report.malformed(
                    bad.message, bad.block_index, self.total, self.parsed.stray_markers
                ),
                block_index=bad.block_index,
            )

    def _apply(self, block: Block) -> None:
        if not block.search:
            if self.file.text:
                raise SearchReplaceError(
                    report.empty_search(block.index, self.total, self.parsed.stray_markers),
                    block_index=block.index,
                )
            self._record(block, Candidate(0, 0, (), "exact"), Variant((), tuple(block.replace)))
            return
        variants = _variants(block)
        try:
            candidate, variant = self._locate(block, variants)
        except Ambiguous as exc:
            raise SearchReplaceError(
                report.ambiguous(block.search, block.index, self.total, self.file, exc.candidates),
                block_index=block.index,
            ) from None
        except _NoMatch as exc:
            closest = fuzzy.similar_regions(self.file, variants[-1].search, limit=1)
            raise SearchReplaceError(
                report.no_match(
                    block.search,
                    block.index,
                    self.total,
                    self.file,
                    closest[0] if closest else None,
                    overlapping_block=exc.overlapping_block,
                    replace=block.replace,
                ),
                block_index=block.index,
            ) from None
        self._record(block, candidate, variant)

    def _record(self, block: Block, candidate: Candidate, variant: Variant) -> None:
        in_order = candidate.start >= self.cursor
        if block.closed:
            lines = self._new_lines(block, candidate, variant)
            self.edits.append(_Edit(block.index, candidate.start, candidate.stop, lines))
            if in_order:
                self.cursor = candidate.stop
        else:
            self.current = _Edit(
                block.index, candidate.start, candidate.stop, self._preview(candidate, variant)
            )
            self.current_in_order = in_order

    def _new_lines(self, block: Block, candidate: Candidate, variant: Variant) -> tuple[str, ...]:
        if candidate.stage == "exact":
            return variant.replace
        region = self.file.lines[candidate.start : candidate.stop]
        pairs = {s: r - candidate.start for s, r in candidate.pairs}
        modified = {s: r - candidate.start for s, r in candidate.modified}
        try:
            return tuple(
                merge(
                    variant.search,
                    variant.replace,
                    region,
                    pairs,
                    modified=modified,
                    file_style=self.file_tabs,
                    tab=self.file_tab,
                )
            )
        except MergeConflict as exc:
            if not self.strict:
                return self._preview(candidate, variant)
            raise SearchReplaceError(
                report.conflict(
                    block.search,
                    block.index,
                    self.total,
                    self.file,
                    candidate,
                    exc.conflict.reason,
                    _conflict_detail(self.file, candidate, variant, exc),
                ),
                block_index=block.index,
            ) from None

    def _preview(self, candidate: Candidate, variant: Variant) -> tuple[str, ...]:
        """The replacement as streamed so far, re-indented like the final result will be."""
        if candidate.stage == "exact":
            return variant.replace
        region = self.file.lines[candidate.start : candidate.stop]
        pairs = {s: r - candidate.start for s, r in candidate.pairs}
        mapping = indent_map(
            variant.search,
            region,
            pairs,
            file_style=self.file_tabs,
            tab=self.file_tab,
            replace=variant.replace,
        )
        return tuple(mapping.apply(line) for line in variant.replace)

    # --- where a block goes ----------------------------------------------------------------

    def _claimed(self, candidate: Candidate) -> _Edit | None:
        return next((e for e in self.edits if candidate.overlaps(e.start, e.stop)), None)

    def _locate(self, block: Block, variants: list[Variant]) -> tuple[Candidate, Variant]:
        same = sum(1 for b in self.parsed.blocks[block.index :] if b.search == block.search)
        overlapping: int | None = None
        for in_order in (True, False):
            for stage in ORDERED_STAGES:
                for variant in variants:
                    pool: list[Candidate] = []
                    for candidate in stage_matches(self.file, stage, variant):
                        if (candidate.start >= self.cursor) != in_order:
                            continue
                        claimed = self._claimed(candidate)
                        if claimed is not None:
                            overlapping = claimed.block if overlapping is None else overlapping
                            continue
                        pool.append(candidate)
                    if pool:
                        chosen = choose(
                            pool,
                            stage=stage,
                            variant=variant,
                            same_search_blocks=same,
                            in_order=in_order,
                            strict=self.strict,
                        )
                        return chosen, variant
        for variant in variants:
            found = fuzzy.similar_regions(
                self.file, variant.search, excluded=lambda c: self._claimed(c) is not None
            )
            verdict = fuzzy.pick(found, variant.search)
            if isinstance(verdict, Candidate):
                return verdict, variant
            if verdict is not None:
                if self.strict:
                    raise Ambiguous(verdict)
                return verdict[0], variant
        raise _NoMatch(overlapping)

    # --- the result ------------------------------------------------------------------------

    def _splice(self, edits: list[_Edit], end: int) -> tuple[str, tuple[int, ...]]:
        file = self.file
        ordered = sorted(edits, key=lambda e: (e.start, e.stop > e.start))
        parts: list[str] = []
        pos = 0
        for edit in ordered:
            parts.append(file.text[pos : file.offset(edit.start)])
            lines = edit.lines
            # A region that took the empty "line" after the final newline reached the end of
            # the file, not a blank line: a kept blank last line must not add one.
            at_end = edit.stop == len(file.lines) > edit.start and file.text.endswith("\n")
            if at_end and lines and lines[-1] == "":
                lines = lines[:-1]
            parts.append("".join(line + "\n" for line in lines))
            pos = max(pos, file.offset(edit.stop))
        parts.append(file.text[pos:end])
        return "".join(parts), tuple(file.offset(e.start) for e in ordered)

    def assemble_final(self) -> tuple[str, tuple[int, ...]]:
        return self._splice(self.edits, len(self.file.text))

    def assemble_partial(self) -> tuple[str, tuple[int, ...]]:
        current = self.current
        if current is not None and self.current_in_order:
            frontier = self.file.offset(current.start)
        elif self.edits:
            frontier = self.file.offset(self.cursor)
        else:
            frontier = 0
        done = [e for e in self.edits if self.file.offset(e.stop) <= frontier or e.stop <= e.start]
        content, _ = self._splice(done, frontier)
        if current is not None and self.current_in_order:
            content += "".join(line + "\n" for line in current.lines)
        indices = tuple(sorted(self.file.offset(e.start) for e in self.edits))
        return content, indices


def _variants(block: Block) -> list[Variant]:
    """The SEARCH as written, then forms other agents' formats and habits give it: line numbers
    copied from read_file output, a Roo-style `:start_line:N` / `-------` header, blank lines
    around the block that the file does not have there."""
    raw = Variant(tuple(block.search), tuple(block.replace))
    variants = [raw]
    numbered = strip_line_numbers(block.search)
    if numbered is not None:
        variants.append(
            Variant(numbered.lines, tuple(strip_numbers_like(block.replace)), numbered.first_line)
        )
    for make in (_without_line_header, _without_blank_edges):
        made = make(raw)
        if made is not None:
            variants.append(made)
    return variants


_LINE_HEADER = re.compile(r"^:(start|end)_line:\s*\[?\s*(\d+)\s*\]?\s*$")


def _without_line_header(variant: Variant) -> Variant | None:
    """`:start_line:12` (and `:end_line:`) then `-------` opening a SEARCH, as Roo Code's format
    writes it: the number places the block like a copied line number."""
    search = variant.search
    first_line: int | None = None
    k = 0
    while k < len(search) and (found := _LINE_HEADER.match(search[k].strip())):
        if found.group(1) == "start":
            first_line = int(found.group(2))
        k += 1
    if k == 0 or k >= len(search) or search[k].strip() != "-------" or k + 1 >= len(search):
        return None
    return Variant(search[k + 1 :], variant.replace, first_line)


def _without_blank_edges(variant: Variant) -> Variant | None:
    """The SEARCH without its leading and trailing blank lines (and the REPLACE without as many
    of its own), tried only after the SEARCH failed with them."""
    search, replace = variant.search, variant.replace
    lead = _blank_run(search)
    trail = _blank_run(search[::-1])
    if (not lead and not trail) or lead + trail >= len(search):
        return None
    replace_lead = min(lead, _blank_run(replace))
    replace_trail = min(trail, _blank_run(replace[::-1]), len(replace) - replace_lead)
    return Variant(
        search[lead : len(search) - trail],
        replace[replace_lead : len(replace) - replace_trail],
        variant.first_line,
    )


def _blank_run(lines: Sequence[str]) -> int:
    count = 0
    for line in lines:
        if line.strip():
            break
        count += 1
    return count


def _conflict_detail(
    file: FileLines, candidate: Candidate, variant: Variant, exc: MergeConflict
) -> str:
    conflict = exc.conflict
    lines: list[str] = []
    if conflict.search_index is not None and conflict.search_index < len(variant.search):
        lines.append(f"Your SEARCH has:  {variant.search[conflict.search_index].strip()!r}")
    if conflict.region_index is not None:
        line_no = candidate.start + conflict.region_index
        if line_no < len(file.lines):
            lines.append(f"The file has (line {line_no + 1}):  {file.lines[line_no].strip()!r}")
    return "\n".join(lines)
