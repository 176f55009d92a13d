"""read_file: a file's content for the model, paged when large.

Text comes back as it is (no line numbers); a line range or a page of a large file comes with a
`Lines a-b of n:` header. PDF, Word and notebooks are converted to text; images go to models that
can see them.
"""

from __future__ import annotations

import asyncio
import base64
import codecs
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pycline.editing.encodings import detect_prefix
from pycline.errors import ToolError
from pycline.events import ApprovalQuestion
from pycline.messages import ImageContent
from pycline.prompts.responses import DENIED, with_feedback
from pycline.tools.base import (
    ParamSpec,
    ToolCall,
    ToolContext,
    ToolFacts,
    ToolResult,
    ToolSpec,
    describe,
)
from pycline.tools.read_documents import converter_for
from pycline.workspace.ignore import blocked_message
from pycline.workspace.paths import ResolvedPath
from pycline.workspace.suggest import not_found_hint

READ_FILE_SPEC = ToolSpec(
    name="read_file",
    facts=ToolFacts(
        effect="read",
        title="Cline wants to read this file:",
        done_title="Cline read this file:",
        label="Read {path}",
        kind="read",
        read_only=True,
    ),
    description=(
        "Read a file (PDF, DOCX and Jupyter notebooks come as text). Large files come one page at "
        "a time; start_line and end_line read a part. Not for directories (use list_files)."
    ),
    params=(
        ParamSpec("path", "The file's path."),
        ParamSpec("start_line", "First line (1-based).", required=False),
        ParamSpec("end_line", "Last line (inclusive).", required=False),
    ),
    example="<read_file>\n<path>src/main.py</path>\n</read_file>",
)

PAGE_LINES = 500  # about 7,000 characters of code: a large file costs what Cline's cut of it does
PAGE_CHARS = 24_000  # a page of long lines stays bounded too
MAX_IMAGE_BYTES = 5 * 1024 * 1024
_SAMPLE_BYTES = 64 * 1024
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".webp"}
_IMAGE_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


class ReadFileTool:
    spec = READ_FILE_SPEC

    def summary(self, call: ToolCall) -> str:
        return describe(self.spec.name, call.get("path"))

    async def ask(
        self, call: ToolCall, ctx: ToolContext, target: ResolvedPath
    ) -> ToolResult | None:
        """The user's approval of reading `target` (reads of any origin ask the same question):
        None to go ahead, else the refusal to return."""
        approval = await ctx.approve(
            ApprovalQuestion(self.spec.name, self.summary(call), outside_workspace=target.outside),
            "read",
            outside_workspace=target.outside,
        )
        if approval.approved:
            return None
        return ToolResult(with_feedback(DENIED, approval.feedback), denied=True)

    async def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        target = ctx.resolve(call.require("path"))
        start, end = parse_range(call.get("start_line"), call.get("end_line"))
        if ctx.access.blocked(target.path):
            raise ToolError(blocked_message(target.display))
        # Outside the workspace, whether the path exists is itself for the user to release.
        if not target.outside:
            _check_readable(target, ctx)
        refused = await self.ask(call, ctx, target)
        if refused is not None:
            return refused
        if target.outside:
            _check_readable(target, ctx)
        if target.path.suffix.lower() in IMAGE_SUFFIXES:
            return await asyncio.to_thread(_read_image, target, ctx.supports_images)
        convert = converter_for(target.path)
        if convert is not None:
            text = await asyncio.to_thread(convert, target.path)
            lines = text.splitlines(keepends=True)
            page = take_page(lines, start, end)
            return ToolResult(format_page(page, len(lines), start, end))
        return ToolResult(await asyncio.to_thread(read_text, target, start, end))


def parse_range(start_raw: str | None, end_raw: str | None) -> tuple[int, int | None]:
    start = _line_number("start_line", start_raw) or 1
    end = _line_number("end_line", end_raw)
    if end is not None and end < start:
        raise ToolError(f"end_line ({end}) is before start_line ({start}).")
    return start, end


def _line_number(name: str, raw: str | None) -> int | None:
    if raw is None:
        return None
    try:
        value = int(raw.strip())
    except ValueError:
        raise ToolError(f"{name} must be a line number, not {raw.strip()!r}.") from None
    if value < 1:
        raise ToolError(f"{name} must be 1 or more (lines are numbered from 1), not {value}.")
    return value


def _check_readable(target: ResolvedPath, ctx: ToolContext) -> None:
    path = target.path
    if path.is_dir():
        raise ToolError(
            f"{target.display} is a directory, not a file. Use list_files to see what it contains."
        )
    if not path.exists():
        # Inside the workspace only: whether files exist outside it is not the model's to probe.
        hint = "" if target.outside else not_found_hint(ctx.cwd, target.display, ctx.access)
        raise ToolError(
            f"File not found: {target.display}.{hint or ' Check the path; list_files shows what exists.'}"
        )
    if not path.is_file():  # a pipe or device would block or never end
        raise ToolError(f"{target.display} is not a regular file and cannot be read.")


@dataclass(frozen=True, slots=True)
class Page:
    text: str
    first: int  # line numbers shown (1-based, inclusive); last < first when nothing was shown
    last: int
    more: bool  # lines of the requested range remain unshown (the page limits were reached)
    line_cut: bool = False  # the last line shown was too long and shows only its beginning
    total: int | None = None  # the file's line count, when the whole file was gone through


def take_page(
    lines: Iterable[str],
    start: int,
    end: int | None,
    *,
    max_lines: int = PAGE_LINES,
    max_chars: int = PAGE_CHARS,
) -> Page:
    """Lines start..end (or to the end of the file), within the page limits."""
    taken: list[str] = []
    size = 0
    last = start - 1
    number = 0
    for number, line in enumerate(lines, 1):
        if number < start:
            continue
        if end is not None and number > end:
            return Page("".join(taken), start, last, more=False)
        if len(taken) == max_lines or size + len(line) > max_chars:
            if taken:
                return Page("".join(taken), start, last, more=True)
            # A single enormous line (minified code, data): show its beginning.
            return Page(line[:max_chars], start, number, more=False, line_cut=True)
        taken.append(line)
        size += len(line)
        last = number
    return Page("".join(taken), start, last, more=False, total=number)


def format_page(page: Page, total: int, start: int, end: int | None) -> str:
    if total == 0:
        return "(The file is empty.)"
    if start > total:
        raise ToolError(f"start_line {start} is past the end of the file ({total} lines).")
    if start == 1 and end is None and page.total is not None:
        return page.text  # the whole file
    text = page.text if page.text.endswith("\n") or not page.text else page.text + "\n"
    notes: list[str] = []
    if page.line_cut:
        notes.append(
            f"[Line {page.last} is longer than {PAGE_CHARS} characters; only its start is shown.]"
        )
    wanted_end = total if end is None else min(end, total)
    if page.last < wanted_end:
        nxt = page.last + 1
        notes.append(
            f"[Shown: lines {page.first}-{page.last} of {total}; the rest did not fit in one read. "
            f"Continue with start_line={nxt} end_line={min(wanted_end, nxt + PAGE_LINES - 1)}.]"
        )
    header = f"Lines {page.first}-{page.last} of {total}:\n"
    return header + (text + "\n".join(notes) if notes else page.text)


def read_text(target: ResolvedPath, start: int, end: int | None) -> str:
    path = target.path
    try:
        encoding = sniff_encoding(path)
        if encoding is None:
            size = path.stat().st_size
            raise ToolError(
                f"{target.display} is a binary file ({size} bytes) and cannot be shown as text. "
                "read_file handles text, PDF, DOCX, notebooks and images."
            )
        with path.open(encoding=encoding, errors="replace") as handle:
            page = take_page(handle, start, end)
            # Only a partial read needs the total, and counting it costs a pass over the file.
            total = page.total if page.total is not None else _count_lines(path, encoding)
    except OSError as exc:
        raise ToolError(f"Could not read {target.display}: {exc.strerror or exc}") from exc
    return format_page(page, total, start, end)


def sniff_encoding(path: Path) -> str | None:
    """The text encoding to read `path` with, or None when it is binary."""
    with path.open("rb") as handle:
        sample = handle.read(_SAMPLE_BYTES)
    if sample.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "utf-32"
    if sample.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    if sample.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if b"\x00" in sample:
        return None
    try:
        # Not final: the sample may end in the middle of a multi-byte character.
        codecs.getincrementaldecoder("utf-8")().decode(sample, final=False)
    except UnicodeDecodeError:
        pass
    else:
        return "utf-8"
    # Not UTF-8: legacy 8-bit text has few control characters; binary data has many.
    controls = sum(1 for byte in sample if byte < 32 and byte not in b"\t\n\r\f\x1b")
    if controls > len(sample) // 100:
        return None
    return detect_prefix(sample)


def _count_lines(path: Path, encoding: str) -> int:
    if encoding.startswith(("utf-16", "utf-32")):
        with path.open(encoding=encoding, errors="replace") as handle:
            return sum(1 for _ in handle)
    newlines = 0
    last = b""
    for block in _blocks(path):
        newlines += block.count(b"\n")
        last = block
    return newlines + (1 if last and not last.endswith(b"\n") else 0)


def _blocks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as handle:
        while block := handle.read(1024 * 1024):
            yield block


def _image_type(head: bytes) -> str | None:
    for signature, media_type in _IMAGE_SIGNATURES:
        if head.startswith(signature):
            return media_type
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def _read_image(target: ResolvedPath, supports_images: bool) -> ToolResult:
    try:
        size = target.path.stat().st_size
        with target.path.open("rb") as handle:
            head = handle.read(16)
    except OSError as exc:
        raise ToolError(f"Could not read {target.display}: {exc.strerror or exc}") from exc
    media_type = _image_type(head)
    if media_type is None:
        raise ToolError(f"{target.display} is not a valid PNG, JPEG, GIF or WebP image.")
    kb = max(1, round(size / 1024))
    if not supports_images:
        return ToolResult(
            f"{target.display} is an image ({media_type}, {kb} KB). The current model cannot "
            "see images, so its content cannot be shown."
        )
    if size > MAX_IMAGE_BYTES:
        raise ToolError(
            f"{target.display} is too large to send ({kb} KB; the limit is "
            f"{MAX_IMAGE_BYTES // (1024 * 1024)} MB)."
        )
    try:
        data = target.path.read_bytes()
    except OSError as exc:
        raise ToolError(f"Could not read {target.display}: {exc.strerror or exc}") from exc
    encoded = base64.b64encode(data).decode("ascii")
    return ToolResult(
        f"Image {target.display} ({media_type}, {kb} KB) is attached.",
        images=(ImageContent(media_type, encoded),),
    )
