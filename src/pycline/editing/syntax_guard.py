"""Edits that would break a file's syntax are not applied.

A file that parses now and would not after the edit is almost always a wrong edit: most often a
SEARCH that covers only the first line of what the model rewrites (its REPLACE then leaves the old
body behind), or a block cut short. Saving it and reporting the error after (Cline's way) leaves
the file broken while the model tries again, and each retry of the same block breaks it further.
So the edit is refused before anyone is asked, with the error and the lines around it; the file
stays as it was. (SWE-agent's editor does the same.) A file that does not parse now, a new file,
and a language without a grammar are saved as before.
"""

from __future__ import annotations

from pycline.editing.markers import parse_diff
from pycline.editing.syntax import parse, supported, syntax_problems

CONTEXT_LINES = 3


def refusal(path: str, old: str | None, new: str) -> str | None:
    """Why the edit from `old` (None: a new file) to `new` is not applied, or None."""
    if old is None or not old.strip() or not supported(path):
        return None
    introduced = syntax_problems(path, new)
    if not introduced or syntax_problems(path, old):
        return None
    first = introduced[0]
    lines = new.split("\n")
    start = max(1, first.line - CONTEXT_LINES)
    stop = min(len(lines), first.line + CONTEXT_LINES)
    width = len(str(stop))
    shown = "\n".join(f"{n:>{width}} | {lines[n - 1]}" for n in range(start, stop + 1))
    more = f" (and {len(introduced) - 1} more)" if len(introduced) > 1 else ""
    return (
        f"The edit was not applied: {path} parses now, and after it would not: line "
        f"{first.line}: {first.message}{more}. The file is unchanged. Lines {start}-{stop} as the "
        f"edit would leave them:\n{shown}\n"
        "Fix the edit: a SEARCH must hold every line it replaces (to rewrite a function, all of "
        "its lines, not only the first), and each REPLACE must be complete code."
    )


def whole_rewrite(path: str, old: str, diff: str, match_at: tuple[int, ...]) -> str:
    """For one block whose REPLACE starts with its SEARCH's first line, where that line opens a
    construct (a function, a class) of the file: the block that rewrites all of it; else ""."""
    blocks = parse_diff(diff, is_final=True).blocks
    if len(blocks) != 1 or len(match_at) != 1:
        return ""
    search = [s for s in blocks[0].search if s.strip()]
    replace = blocks[0].replace
    first = next((r for r in replace if r.strip()), "")
    if not search or len(search) > 2 or search[0].strip() != first.strip():
        return ""
    line = old.count("\n", 0, match_at[0]) + 1
    span = _construct_at(path, old, line)
    if span is None:
        return ""
    lines = old.split("\n")
    body = lines[span[0] - 1 : span[1]]
    block = "\n".join(["------- SEARCH", *body, "=======", *replace, "+++++++ REPLACE"])
    return (
        f"Your SEARCH is only the first line of what starts at line {span[0]} and ends at line "
        f"{span[1]}. To rewrite all of it, send this block:\n{block}"
    )


def _construct_at(path: str, text: str, line: int) -> tuple[int, int] | None:
    """The lines (1-based, inclusive) of the outermost construct of several lines that starts
    on `line`, as the file's grammar sees it."""
    node = parse(path, text)
    if node is None:
        return None
    while True:
        inner = next(
            (c for c in node.named_children if c.start_point[0] <= line - 1 <= c.end_point[0]),
            None,
        )
        if inner is None:
            return None
        if inner.start_point[0] == line - 1 and inner.end_point[0] > inner.start_point[0]:
            return (inner.start_point[0] + 1, inner.end_point[0] + 1)
        node = inner
