"""Regex search over the workspace with ripgrep (SPEC §2 `search_files`).

ripgrep honours `.gitignore`; `.clineignore`d files are handed to it as an extra ignore file so
they are never read, and filtered again from its output so nothing hidden can leak. Results are
grouped per file with line numbers and one line of context, and capped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import tempfile
from base64 import b64decode
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pycline.errors import ToolError
from pycline.workspace.access import AccessRules
from pycline.workspace.ignore import IgnoreRules
from pycline.workspace.listing import HEAVY_DIRS
from pycline.workspace.names import shown_name
from pycline.workspace.ripgrep import ripgrep_path

MAX_RESULTS = 300
MAX_LINE = 500
_STREAM_LIMIT = 1 << 24  # ripgrep's JSON lines can be long (minified files)


@dataclass(slots=True)
class _FileHits:
    lines: dict[int, tuple[bool, str]] = field(default_factory=dict)  # line -> (is_match, text)


@dataclass(slots=True)
class SearchOutcome:
    files: dict[str, _FileHits]
    matches: int
    capped: bool
    timed_out: bool = False


def _text(obj: dict[str, Any] | None) -> str:
    if not obj:
        return ""
    if "text" in obj:
        return str(obj["text"])
    return b64decode(obj.get("bytes", "")).decode("utf-8", errors="replace")


def _clip(text: str, start: int | None) -> str:
    text = text.rstrip("\r\n").rstrip()
    if len(text) <= MAX_LINE:
        return text
    begin = max(0, (start or 0) - 100)
    piece = text[begin : begin + MAX_LINE]
    return ("…" if begin else "") + piece + "…"


def _display(path_text: str) -> str:
    return path_text[2:] if path_text.startswith("./") else path_text


def _arguments(
    regex: str, target: str, file_pattern: str | None, ignore_file: str | None, skip_heavy: bool
) -> list[str]:
    args = [
        ripgrep_path(),
        "--json",
        "--context",
        "1",
        "--hidden",
        "--no-require-git",
        "--no-messages",
        "--max-filesize",
        "20M",
    ]
    if file_pattern:
        args += ["--glob", file_pattern]
    # Later globs win in ripgrep, so these exclusions hold even when file_pattern matches.
    args += ["--glob", "!.git/"]
    if skip_heavy:
        for name in sorted(HEAVY_DIRS):
            args += ["--glob", f"!{name}/"]
    if ignore_file:
        args += ["--ignore-file", ignore_file]
    args += ["-e", regex, "--", target]
    return args


@contextlib.contextmanager
def _clineignore_file(access: AccessRules, cwd: Path) -> Iterator[str | None]:
    """A temporary copy of the expanded `.clineignore` patterns, for ripgrep."""
    if not isinstance(access, IgnoreRules) or access.root != cwd or not access.active:
        yield None
        return
    fd, name = tempfile.mkstemp(prefix="pycline-ignore-", suffix=".txt")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write("\n".join(access.patterns()) + "\n")
        yield name
    finally:
        with contextlib.suppress(OSError):
            os.unlink(name)


async def run_search(
    cwd: Path,
    target: Path,
    regex: str,
    *,
    file_pattern: str | None = None,
    access: AccessRules,
    limit: int = MAX_RESULTS,
    timeout: float = 60.0,
) -> SearchOutcome:
    """Search `target` (a folder or file) for `regex`; paths are shown relative to `cwd`."""
    try:
        shown = target.relative_to(cwd).as_posix() or "."
        inside = True
    except ValueError:
        shown, inside = str(target), False
    skip_heavy = not (set(Path(shown).parts) & HEAVY_DIRS) if inside else True
    with _clineignore_file(access, cwd) as ignore_file:
        args = _arguments(regex, shown, file_pattern, ignore_file, skip_heavy)
        proc = await asyncio.create_subprocess_exec(
            *args,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            limit=_STREAM_LIMIT,
        )
        assert proc.stdout is not None and proc.stderr is not None
        stderr_task = asyncio.ensure_future(proc.stderr.read())
        outcome = SearchOutcome({}, 0, False)
        finished = False  # ripgrep ran to its end (not stopped at the cap, a timeout or a cancel)
        try:
            async with asyncio.timeout(timeout):
                finished = not await _collect(proc.stdout, cwd, access, limit, outcome)
        except TimeoutError:
            outcome.timed_out = True
        finally:
            if not finished and proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
            await proc.wait()
            err = (await stderr_task).decode("utf-8", errors="replace").strip()
    if finished and proc.returncode == 2 and outcome.matches == 0 and err:
        if "regex parse error" in err:
            raise ToolError(f"The regex is invalid (ripgrep uses Rust regex syntax):\n{err}")
        raise ToolError(f"The search failed: {err}")
    return outcome


async def _collect(
    stream: asyncio.StreamReader, cwd: Path, access: AccessRules, limit: int, out: SearchOutcome
) -> bool:
    """Read ripgrep's JSON events into `out`; True when it stopped early at the cap."""
    hidden: set[str] = set()
    last: tuple[str, int] | None = None
    while True:
        try:
            raw = await stream.readline()
        except ValueError:  # a line longer than the stream limit: skip it, keep reading
            continue
        if not raw:
            return False
        try:
            event = json.loads(raw)
        except json.JSONDecodeError:
            continue
        kind = event.get("type")
        if kind not in ("match", "context", "begin"):
            continue
        data = event["data"]
        path = _text(data.get("path"))
        if kind == "begin":
            if access.blocked(cwd / path):
                hidden.add(path)
            continue
        if path in hidden:
            continue
        number = int(data.get("line_number") or 0)
        if out.capped:
            # After the last counted match, keep only its trailing context line.
            if kind == "context" and last == (path, number - 1):
                out.files[_display(path)].lines[number] = (False, _clip(_text(data["lines"]), 0))
            return True
        subs = data.get("submatches") or [{}]
        text = _clip(_text(data.get("lines")), subs[0].get("start"))
        hits = out.files.setdefault(_display(path), _FileHits())
        if kind == "match":
            hits.lines[number] = (True, text)
            out.matches += 1
            out.capped = out.matches >= limit
        else:
            hits.lines.setdefault(number, (False, text))
        last = (path, number)


def format_results(outcome: SearchOutcome, *, limit: int = MAX_RESULTS) -> str:
    if outcome.capped:
        head = (
            f"Showing first {limit} of {limit}+ results. Use a more specific search if necessary."
        )
    else:
        n = outcome.matches
        head = f"Found {n:,} result{'' if n == 1 else 's'}."
    if outcome.timed_out:
        head += " (The search timed out; results may be incomplete.)"
    parts = [head, ""]
    for path in sorted(outcome.files):
        hits = outcome.files[path].lines
        if not any(is_match for is_match, _ in hits.values()):
            continue
        parts.append(shown_name(path))
        parts.append("│----")
        previous = None
        for number in sorted(hits):
            is_match, text = hits[number]
            if previous is not None and number > previous + 1:
                parts.append("│----")
            parts.append(f"│{number}{':' if is_match else '-'}{text}")
            previous = number
        parts.append("│----")
        parts.append("")
    return "\n".join(parts).rstrip() + "\n"
