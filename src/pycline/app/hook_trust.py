"""Which workspace hook files the user has trusted (by exact content), like project MCP files."""

from __future__ import annotations

from pathlib import Path

from pycline.core.hooks import HOOK_NAMES
from pycline.mcp.trust import McpTrust

TRUST_FILE_NAME = "trusted_hooks.json"


class HookTrust(McpTrust):
    """The same record as MCP trust (path → SHA-256 of the trusted content), in its own file."""

    def __init__(self, home: Path) -> None:
        super().__init__(home)
        self.path = home / "settings" / TRUST_FILE_NAME


def workspace_hook_files(workspace: Path) -> list[Path]:
    folder = workspace / ".clinerules" / "hooks"
    return [folder / name for name in sorted(HOOK_NAMES) if (folder / name).is_file()]
