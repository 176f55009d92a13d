"""What a task lends its tools beyond the workspace: one typed, optional field per service.

The wiring (`pycline.app.builders.wiring`) fills it when it builds a task; a tool finds a field unset when
this build or this front end does not offer that service (no MCP server configured, no browser,
a front end without "Proceed While Running"), and says so to the model or goes without it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pycline.browser.session import BrowserSession
    from pycline.mcp.hub import McpHub
    from pycline.terminal.background import BackgroundProcesses
    from pycline.terminal.sandbox import SandboxPolicy
    from pycline.workspace.diagnostics.registry import LanguageServers


@dataclass(slots=True)
class ToolServices:
    """Set once by the wiring, except the one-time sandbox notice the command tool records."""

    mcp_hub: McpHub | None = None
    # The settings' `mcpAutoApprove`: {server: tool names} run without asking, added to each
    # server's own `autoApprove` list.
    mcp_auto_approve: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # Saves the user's "Always allow" of one MCP tool (server, tool) in their global settings.
    remember_mcp_tool: Callable[[str, str], None] | None = None
    browser: BrowserSession | None = None
    # The task's background processes; the task stops them all when it ends.
    background: BackgroundProcesses | None = None
    # A command still running at its timeout is handed to `background` instead of being killed.
    allow_background: bool = False
    # The session's language servers: edits report the errors they introduce, `@problems` lists.
    language_servers: LanguageServers | None = None
    # The `linters` setting: glob -> command, e.g. {"*.py": ("ruff", "check", "{file}")}.
    linters: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    sandbox: SandboxPolicy | None = None  # None: commands run unsandboxed
    sandbox_notice_shown: bool = False
    # Set by a front end ("Proceed While Running"): the command tool stops waiting for the
    # command, which keeps running in the background.
    proceed: asyncio.Event | None = None
