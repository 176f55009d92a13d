"""`search_files`: a regex search with context, grouped per file (SPEC §2)."""

from __future__ import annotations

from pycline.errors import ToolError
from pycline.tools.base import (
    ParamSpec,
    ToolCall,
    ToolContext,
    ToolFacts,
    ToolResult,
    ToolSpec,
    describe,
)
from pycline.tools.listing import approved_read
from pycline.workspace.ignore import blocked_message
from pycline.workspace.search import MAX_RESULTS, format_results, run_search

SEARCH_FILES_SPEC = ToolSpec(
    name="search_files",
    facts=ToolFacts(
        effect="read",
        title="Cline wants to search this directory:",
        done_title="Cline searched this directory:",
        label="Search {regex} in {path}",
        kind="search",
        read_only=True,
    ),
    description=(
        "Search the files under a directory for a regex (Rust syntax): each match with its line "
        f"number and a line of context, at most {MAX_RESULTS}. Files in .gitignore are skipped."
    ),
    params=(
        ParamSpec("path", "The directory (or file) to search."),
        ParamSpec("regex", "The regular expression."),
        ParamSpec(
            "file_pattern",
            "A glob for the files to search, e.g. '*.ts' (default: all).",
            required=False,
        ),
    ),
    example=(
        "<search_files>\n<path>src</path>\n<regex>def \\w+_handler</regex>\n"
        "<file_pattern>*.py</file_pattern>\n</search_files>"
    ),
)


# Longer patterns do not fit in a command line, and no real search needs one.
MAX_REGEX_CHARS = 10_000


class SearchFilesTool:
    spec = SEARCH_FILES_SPEC

    def summary(self, call: ToolCall) -> str:
        return describe(self.spec.name, call.get("regex"))

    async def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        raw_path = call.require("path")
        regex = call.require("regex")
        file_pattern = call.get("file_pattern")
        if "\x00" in regex or (file_pattern and "\x00" in file_pattern):
            raise ToolError("The regex contains a NUL byte; search for text without it.")
        if len(regex) > MAX_REGEX_CHARS:
            raise ToolError(
                f"The regex is {len(regex):,} characters long; keep it under "
                f"{MAX_REGEX_CHARS:,} (search for a distinctive part instead)."
            )
        target = ctx.resolve(raw_path)
        if ctx.access.blocked(target.path):
            raise ToolError(blocked_message(target.display))
        missing = None if target.path.exists() else f"The path {target.display} does not exist."

        async def search() -> str:
            outcome = await run_search(
                ctx.cwd,
                target.path,
                regex,
                file_pattern=file_pattern.strip() if file_pattern else None,
                access=ctx.access,
            )
            return format_results(outcome)

        summary = self.summary(call)
        return await approved_read(ctx, self.spec.name, summary, target, missing, search)
