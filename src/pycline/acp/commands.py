"""Slash commands typed in the editor: `/plan`, `/act`, `/compact`. Workflows and Cline's
commands go on to the agent core, which expands them."""

from __future__ import annotations

import acp
from acp.schema import PromptResponse

from pycline.acp.inputs import UserInput
from pycline.acp.session import AcpSession
from pycline.commands import Compact
from pycline.errors import PyclineError


def _split(text: str) -> tuple[str, str] | None:
    stripped = text.lstrip()
    if not stripped.startswith("/"):
        return None
    name, _, rest = stripped[1:].partition(" ")
    return name.strip(), rest.strip()


async def run_command(session: AcpSession, given: UserInput) -> PromptResponse | None:
    """Handle a built-in command; None when the prompt is not one."""
    parts = _split(given.text)
    if parts is None:
        return None
    name, _ = parts
    match name:
        case "plan" | "act":
            await session.set_mode(name)
            session.outbox.send(acp.update_agent_message_text(f"Switched to {name.title()} mode."))
        case "compact":
            handle = session.handle
            if handle is None or session.fresh or session.busy:
                note = "Nothing to condense now (no conversation is waiting)."
            else:
                try:
                    await handle.send(Compact())
                    note = "The conversation was condensed."
                except PyclineError as exc:
                    note = f"It was not condensed: {exc}"
            session.outbox.send(acp.update_agent_message_text(note))
        case _:
            return None
    await session.outbox.drain()
    return PromptResponse(stop_reason="end_turn")
