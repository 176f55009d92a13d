"""The files a task names, shown to the model with the task (the compact profile's small models).

At the start of a task, the workspace files its text names (`workspace.named_files`) follow the
task as `@/` mentions would, so the model's first edit copies lines it has seen. The user is told
which files were attached. Resumed tasks and later messages attach nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from pycline.core.capability import Capability, RunContext, Stop
from pycline.events import Notice
from pycline.messages import Content, TextContent
from pycline.workspace.access import AccessRules
from pycline.workspace.named_files import attachment, named_files

LEAD = "The files the task names, as they are now:"


class NamedFiles(Capability):
    def __init__(self, access: AccessRules) -> None:
        self._access = access

    async def before_run(self, ctx: RunContext, content: Sequence[Content]) -> list[Content] | Stop:
        if ctx.history:
            return []
        text = "\n".join(c.text for c in content if isinstance(c, TextContent))
        root = ctx.workspace.root
        files = await asyncio.to_thread(named_files, text, root, self._access)
        if not files:
            return []
        blocks = await asyncio.to_thread(attachment, root, files, self._access)
        shown = ", ".join(files)
        ctx.say(Notice(f"Shown to the model with the task (it names them): {shown}"))
        return [TextContent(f"{LEAD}\n\n{blocks}")]
