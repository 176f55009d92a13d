"""Which language server checks which files, and which command starts it.

Commands come from the user's global settings (`languageServers`: language -> command, an empty
command turns a language off) or from the defaults below. An executable is looked up on PATH and
next to the running Python (where pycline's install put basedpyright), never inside the
workspace: a repository's own binaries are not run without the user choosing them. A server
found nowhere may be installed into pycline's data folder (`provision`).
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class ServerFailed(Exception):
    """The server could not be started, or it stopped."""


@dataclass(frozen=True, slots=True)
class ServerSpec:
    language: str  # the settings key
    language_ids: Mapping[str, str]  # file suffix -> LSP languageId
    commands: tuple[tuple[str, ...], ...]  # tried in order; the first one installed is used
    init_options: Mapping[str, Any] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)


_TS_IDS = {
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescriptreact",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascriptreact",
}

DEFAULT_SERVERS: tuple[ServerSpec, ...] = (
    ServerSpec(
        "python",
        {".py": "python", ".pyi": "python"},
        (("basedpyright-langserver", "--stdio"), ("pyright-langserver", "--stdio")),
    ),
    ServerSpec("typescript", _TS_IDS, (("typescript-language-server", "--stdio"),)),
    # No network for the Go toolchain: a go.mod asking for another toolchain must not download one.
    ServerSpec("go", {".go": "go"}, (("gopls",),), env={"GOTOOLCHAIN": "local", "GOPROXY": "off"}),
    # Build scripts and proc macros are code from the repository: rust-analyzer must not run them.
    ServerSpec(
        "rust",
        {".rs": "rust"},
        (("rust-analyzer",),),
        init_options={
            "cargo": {"buildScripts": {"enable": False}},
            "procMacro": {"enable": False},
            "checkOnSave": False,
        },
    ),
)


@dataclass(frozen=True, slots=True)
class Launch:
    spec: ServerSpec
    command: tuple[str, ...]  # with the executable resolved to an absolute path
    # Initialization options of this install (paths inside it), over the spec's own.
    init_options: Mapping[str, Any] = field(default_factory=dict)

    def initialization_options(self) -> dict[str, Any]:
        return {**self.spec.init_options, **self.init_options}


def spec_for(path: Path, servers: Sequence[ServerSpec] = DEFAULT_SERVERS) -> ServerSpec | None:
    suffix = path.suffix.lower()
    return next((s for s in servers if suffix in s.language_ids), None)


def find_executable(name: str) -> str | None:
    if Path(name).is_absolute():
        return name if Path(name).is_file() else None
    beside_python = str(Path(sys.executable).parent)
    return shutil.which(name) or shutil.which(name, path=beside_python)


def launch_for(
    path: Path,
    overrides: Mapping[str, Sequence[str]],
    servers: Sequence[ServerSpec] = DEFAULT_SERVERS,
) -> Launch | None:
    """How to start the server for `path`, or None (no server for it, off, or not installed)."""
    spec = spec_for(path, servers)
    if spec is None:
        return None
    override = overrides.get(spec.language)
    choices = (tuple(override),) if override is not None else spec.commands
    for command in choices:
        if not command:
            return None  # turned off in the settings
        executable = find_executable(command[0])
        if executable is not None:
            return Launch(spec, (executable, *command[1:]))
    return None
