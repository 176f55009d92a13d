"""What the user types, made ready for the model: `@mentions` expanded (SPEC §12)."""

from __future__ import annotations

from pathlib import Path

from pycline.core.services import TaskServices
from pycline.workspace.mentions import expand_mentions, find_mentions


def terminal_text(services: TaskServices) -> str:
    """Recent output of the task's background processes, for `@terminal`."""
    registry = services.tools.background
    if registry is None or not len(registry):
        return "No terminal output: no command is running in the background."
    parts = []
    for info in registry.list():
        state = "running" if info.running else f"exited with code {info.exit_code}"
        output = registry.new_output(info.id).strip() or "(no new output)"
        parts.append(f"$ {info.command}  ({state})\n{output}")
    return "\n\n".join(parts)


async def problems_text(root: Path, services: TaskServices) -> str:
    """What the task's language servers report, for `@problems`: about the files changed in the
    working tree and those the task has checked."""
    from pycline.workspace.git_context import changed_files

    servers = services.tools.language_servers
    if servers is None:
        return ""
    await servers.check_files(await changed_files(root, ignore=services.access))
    return servers.workspace_problems()


async def expand(text: str, root: Path, services: TaskServices) -> str:
    """`text` with its mentions expanded; unchanged when it mentions nothing."""
    if not find_mentions(text):
        return text

    async def fetch(url: str) -> str:
        from pycline.tools.web_fetch import fetch_markdown

        return await fetch_markdown(url)

    return await expand_mentions(
        text,
        root,
        ignore=services.access,
        fetch_url=fetch,
        problems=lambda: problems_text(root, services),
        terminal=lambda: terminal_text(services),
    )
