"""Which project MCP files the user has trusted.

A project's `.pycline/mcp.json` names commands to run, so a cloned repository could otherwise
start programs the moment pycline opens it. Its servers start only once the user has trusted that
file's exact content (`pycline mcp trust`, or yes to the interactive question); a later change,
e.g. from `git pull`, has to be trusted again. The record, `PYCLINE_HOME/settings/trusted_mcp.json`,
maps each file's path, as used from its workspace, to the SHA-256 of the content trusted.
"""

from __future__ import annotations

import hashlib
import shlex
from pathlib import Path

from pycline.mcp.settings import StdioServer, load_file, workspace_settings_path
from pycline.storage.atomic import atomic_write_json, locked
from pycline.workspace.confined import MAX_SETTINGS_BYTES, read_file, read_json

TRUST_FILE_NAME = "trusted_mcp.json"


def _digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def _key(file: Path) -> str:
    """The file as seen from the workspace using it: the workspace folder is resolved, the
    `.pycline` folder and the file are not, so a repository whose `.pycline` links to a trusted
    project's (whose relative `server.py` would then be its own) is a different key."""
    file = file.expanduser()
    return str(file.parent.parent.resolve() / file.parent.name / file.name)


class McpTrust:
    def __init__(self, home: Path) -> None:
        self.path = home / "settings" / TRUST_FILE_NAME

    def _load(self) -> dict[str, str]:
        try:
            data = read_json(self.path, MAX_SETTINGS_BYTES)
        except (OSError, ValueError):
            return {}  # absent or damaged: nothing is trusted, which is the safe reading
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}

    def key(self, file: Path) -> str:
        """What a trust record is for: the file as seen from its workspace."""
        return _key(file)

    def is_trusted(self, file: Path, content: bytes) -> bool:
        return self._load().get(self.key(file)) == _digest(content)

    def trust(self, file: Path, content: bytes | None = None) -> None:
        """Trust the file as it is now (or `content`, the bytes the user was shown)."""
        if content is None:
            content = read_file(file, MAX_SETTINGS_BYTES, whole=True)
        with locked(self.path):
            data = self._load()
            data[self.key(file)] = _digest(content)
            atomic_write_json(self.path, data)

    def untrusted_file(self, workspace: Path) -> Path | None:
        """The workspace's MCP file when it exists and its current content is not trusted."""
        file = workspace_settings_path(workspace)
        try:
            content = read_file(file, MAX_SETTINGS_BYTES, whole=True)
        except OSError:
            return None
        return None if self.is_trusted(file, content) else file


def describe(file: Path, content: bytes) -> list[str]:
    """One line per server in the file: what trusting it would start or connect to."""
    settings = load_file(file, "workspace", content)
    lines = [f"  (unreadable: {error})" for error in settings.errors]
    for name, entry in settings.servers.items():
        config = entry.config
        if config is None:
            lines.append(f"  {name}: invalid entry ({entry.error})")
        elif isinstance(config, StdioServer):
            where = f" (in {config.cwd})" if config.cwd else ""
            lines.append(f"  {name}: runs {shlex.join([config.command, *config.args])}{where}")
        else:
            lines.append(f"  {name}: connects to {config.url} ({config.type})")
        if config is not None and config.disabled:
            lines[-1] += " [disabled]"
    return lines or ["  (no servers)"]
