"""`list_code_definition_names`: classes, functions and methods of the files in a folder."""

from __future__ import annotations

import asyncio

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
from pycline.workspace.definitions import list_definitions
from pycline.workspace.ignore import blocked_message

LIST_DEFINITIONS_SPEC = ToolSpec(
    name="list_code_definition_names",
    facts=ToolFacts(
        effect="read",
        title="Cline wants to view source code definitions:",
        done_title="Cline viewed source code definitions:",
        label="Definitions in {path}",
        kind="read",
        read_only=True,
    ),
    description=(
        "List the definitions (classes, functions, methods, types…) in the source files directly "
        "in a directory (not its subdirectories), to see its structure without reading them."
    ),
    params=(ParamSpec("path", "The directory."),),
    example=("<list_code_definition_names>\n<path>src</path>\n</list_code_definition_names>"),
)


class ListCodeDefinitionNamesTool:
    spec = LIST_DEFINITIONS_SPEC

    def summary(self, call: ToolCall) -> str:
        return describe(self.spec.name, call.get("path"))

    async def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        target = ctx.resolve(call.require("path"))
        if ctx.access.blocked(target.path):
            raise ToolError(blocked_message(target.display))
        missing = None
        if not target.path.exists():
            missing = f"The directory {target.display} does not exist."

        async def definitions() -> str:
            return await asyncio.to_thread(list_definitions, target.path, access=ctx.access)

        summary = self.summary(call)
        return await approved_read(ctx, self.spec.name, summary, target, missing, definitions)
