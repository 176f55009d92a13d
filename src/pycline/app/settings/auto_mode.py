"""Auto mode ("auto (sandboxed)"): fewer questions without giving up the sandbox.

Every command runs unasked inside the sandbox with the network off and writes kept to the
workspace, and edits inside the workspace run unasked (checkpointed as always); the network,
paths outside, MCP tools and the browser beyond loopback still ask, and the model may ask for
the network on its call (`escalate`). It is only ever had with the sandbox: where bubblewrap is
missing or the sandbox is turned off, auto mode refuses to start, saying why and what to
install, and never falls back to running commands unsandboxed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pycline.app.settings.settings_model import Settings
from pycline.app.settings.task_settings import sandbox_policy
from pycline.core.capability import Capability, RunContext, Stop
from pycline.errors import ConfigError
from pycline.events import Notice
from pycline.messages import Content
from pycline.terminal.sandbox import unavailable_reason

STATUS = "auto (sandboxed)"
NOTICE = (
    f"{STATUS}: commands run unasked in the sandbox with the network off and writes kept to the "
    "workspace; edits inside the workspace run unasked (checkpointed); the network, paths "
    "outside, MCP tools and the browser beyond loopback ask."
)


def refusal(settings: Settings, home: Path, workspace: Path) -> str | None:
    """Why auto mode cannot run here (None: the sandbox is on and works)."""
    reason = unavailable_reason()
    if reason is not None:
        why = reason.removeprefix("Commands run without a sandbox: ")
        return f"auto mode needs the command sandbox, and it is not available: {why}"
    if not sandbox_policy(settings, home, workspace).enabled:
        return (
            "auto mode needs the command sandbox, and it is turned off (--sandbox off or the "
            "sandbox setting); turn it on (workspace-write) to use auto mode"
        )
    return None


def check(home: Path, workspace: Path) -> None:
    """ConfigError saying why, when auto mode cannot run in `workspace`."""
    from pycline.app.settings.config import load

    refused = refusal(load(home, workspace), home, workspace)
    if refused is not None:
        raise ConfigError(f"{refused}.")


class AutoModeNotice(Capability):
    """Says at the start of each run that the task is in auto mode, in every front end."""

    async def before_run(self, ctx: RunContext, content: Sequence[Content]) -> list[Content] | Stop:
        ctx.say(Notice(NOTICE))
        return []
