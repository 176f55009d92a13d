"""`list_files`: the entries of a folder, optionally recursive (SPEC §2)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from pycline.errors import ToolError
from pycline.events import ApprovalQuestion
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
from pycline.workspace.ignore import blocked_message
from pycline.workspace.listing import format_listing, list_workspace
from pycline.workspace.paths import ResolvedPath

LIST_FILES_SPEC = ToolSpec(
    name="list_files",
    facts=ToolFacts(
        effect="read",
        title="Cline wants to view the files in this directory:",
        done_title="Cline viewed the files in this directory:",
        label="List {path}",
        kind="read",
        read_only=True,
    ),
    description=(
        "List a directory's files and folders; recursive true walks the tree breadth-first (about "
        "200 entries, truncation is noted). Files in .gitignore are left out; a lock marks "
        "entries hidden by .clineignore. Not needed to check a file you created exists."
    ),
    params=(
        ParamSpec("path", "The directory to list."),
        ParamSpec(
            "recursive",
            "true: the whole tree; false (default): the top level.",
            required=False,
        ),
    ),
    example="<list_files>\n<path>src</path>\n<recursive>true</recursive>\n</list_files>",
)

_PREVIEW_CHARS = 4000


def directory_problem(target: ResolvedPath) -> str | None:
    """Why `target` cannot be listed (missing, or a file), else None."""
    if not target.path.exists():
        return f"The directory {target.display} does not exist."
    if not target.path.is_dir():
        return f"{target.display} is a file, not a directory."
    return None


async def approved_read(
    ctx: ToolContext,
    tool: str,
    summary: str,
    target: ResolvedPath,
    problem: str | None,
    produce: Callable[[], Awaitable[str]],
) -> ToolResult:
    """A read tool's result. `problem` (a missing path…) is told at once inside the workspace;
    outside it, only once the read is approved: until then the model learns nothing about
    what exists there, a missing path being refused exactly as an existing one."""
    if problem is not None and not target.outside:
        raise ToolError(problem)
    text = problem if problem is not None else await produce()
    verdict = await approve_read(ctx, tool, summary, target, text)
    if isinstance(verdict, ToolResult):
        return verdict
    if problem is not None:
        raise ToolError(problem)
    return ToolResult(with_feedback(text, verdict))


async def approve_read(
    ctx: ToolContext, tool: str, summary: str, target: ResolvedPath, preview: str
) -> ToolResult | str:
    """Ask (or auto-approve) a read. Returns the denial result, or the user's feedback text."""
    if len(preview) > _PREVIEW_CHARS:
        preview = preview[:_PREVIEW_CHARS] + "\n…"
    question = ApprovalQuestion(tool, summary, preview, outside_workspace=target.outside)
    approval = await ctx.approve(question, "read", outside_workspace=target.outside)
    if not approval.approved:
        return ToolResult(with_feedback(DENIED, approval.feedback), denied=True)
    return approval.feedback


class ListFilesTool:
    spec = LIST_FILES_SPEC

    def summary(self, call: ToolCall) -> str:
        return describe(self.spec.name, call.get("path"))

    async def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        target = ctx.resolve(call.require("path"))
        if ctx.access.blocked(target.path):
            raise ToolError(blocked_message(target.display))
        recursive = (call.get("recursive") or "").strip().lower() == "true"

        async def listing() -> str:
            entries, truncated = await asyncio.to_thread(
                list_workspace, target.path, recursive=recursive, ignore=ctx.access
            )
            return format_listing(entries, truncated) if entries else "No files found."

        summary = self.summary(call)
        return await approved_read(
            ctx, self.spec.name, summary, target, directory_problem(target), listing
        )
