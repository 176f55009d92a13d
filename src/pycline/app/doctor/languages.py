"""The language servers this folder's files call for: each one found is started for real."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from pycline.app.doctor.check import Check
from pycline.app.settings.task_settings import DiagnosticsSettings, diagnostics_settings
from pycline.workspace.diagnostics import provision
from pycline.workspace.diagnostics.connection import Connection, ServerFailed
from pycline.workspace.diagnostics.registry import locate
from pycline.workspace.diagnostics.servers import DEFAULT_SERVERS, Launch, spec_for
from pycline.workspace.listing import list_workspace

FILE_LIMIT = 20_000  # files looked at to tell which languages the folder holds
START_LIMIT = 45.0

# How to get a server pycline cannot install itself.
_HOW_TO_GET = {
    "python": "reinstall pycline (it brings basedpyright)",
    "go": "go install golang.org/x/tools/gopls@latest (and put ~/go/bin on PATH)",
    "rust": "rustup component add rust-analyzer",
}


def languages_in(workspace: Path) -> list[str]:
    """The languages (settings keys) with a server whose files are in the folder, in the
    servers' order. Ignored and heavy folders (node_modules, .venv, …) are not looked at."""
    entries, _ = list_workspace(workspace, recursive=True, limit=FILE_LIMIT)
    found = {
        spec.language
        for entry in entries
        if not entry.is_dir and (spec := spec_for(Path(entry.path))) is not None
    }
    return [spec.language for spec in DEFAULT_SERVERS if spec.language in found]


async def check_language_servers(home: Path, workspace: Path) -> list[Check]:
    languages = await asyncio.to_thread(languages_in, workspace)
    if not languages:
        return [
            Check(
                "language servers",
                "ok",
                "no Python, TypeScript/JavaScript, Go or Rust files here to check",
            )
        ]
    settings = diagnostics_settings(home, workspace)
    return list(
        await asyncio.gather(*(_check_one(language, settings, workspace) for language in languages))
    )


async def _check_one(language: str, settings: DiagnosticsSettings, workspace: Path) -> Check:
    name = f"{language} server"
    spec = next(s for s in DEFAULT_SERVERS if s.language == language)
    sample = Path(f"sample{next(iter(spec.language_ids))}")
    if settings.commands.get(language) == ():
        return Check(name, "off", "turned off (languageServers, or PYCLINE_LANGUAGE_SERVERS=off)")
    found = locate(sample, settings.commands, settings.install_home)
    if found is not None and found[1] is not None:
        return await _starts(name, found[1], workspace)
    configured = settings.commands.get(language)
    if configured:
        return Check(
            name,
            "fail",
            f"{configured[0]} (from languageServers) was not found",
            f"install it, or fix languageServers.{language} in the settings",
        )
    server = provision.INSTALLABLE.get(language)
    if server is None:
        return Check(name, "warn", f"{spec.commands[0][0]} not found", _HOW_TO_GET[language])
    if settings.install_home is None:
        return Check(
            name,
            "warn",
            f"{server.label} is not installed, and installing is off (installLanguageServers)",
            "npm install -g typescript-language-server typescript, "
            "or set installLanguageServers: true",
        )
    if (reason := provision.missing_reason(language)) is not None:
        return Check(name, "fail", reason, "install Node.js 20 or newer (with npm)")
    where = provision.install_root(settings.install_home)
    return Check(
        name,
        "ok",
        f"not installed yet: the first {server.title} edit installs {server.label} "
        f"into {where} (from npm)",
    )


async def _starts(name: str, launch: Launch, workspace: Path) -> Check:
    connection = Connection(launch, workspace)
    started = time.monotonic()
    try:
        async with asyncio.timeout(START_LIMIT):
            await connection.start()
    except (ServerFailed, TimeoutError) as exc:
        reason = str(exc) or f"no answer within {START_LIMIT:g}s"
        return Check(
            name,
            "fail",
            f"{launch.command[0]} does not start: {reason.splitlines()[0][:200]}",
            f"`{' '.join(launch.command)}` should start; fix it or set languageServers",
        )
    finally:
        await connection.close()
    seconds = time.monotonic() - started
    return Check(name, "ok", f"{_shown(launch.command)} starts ({seconds:.1f}s)")


def _shown(command: tuple[str, ...]) -> str:
    # An installed server runs as `node …/cli.mjs --stdio`: name the script, not node.
    program = next((part for part in command if part.endswith((".js", ".mjs"))), command[0])
    return program
