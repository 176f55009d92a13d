"""Slash commands typed in the editor: `/plan`, `/act`, `/compact`, `/verify CMD`. Workflows and Cline's
commands go on to the agent core, which expands them."""

from __future__ import annotations

import acp
from acp.schema import PromptResponse

from pycline.acp.inputs import UserInput
from pycline.acp.session import AcpSession
from pycline.commands import Compact, SetGoal
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
    name, rest = parts
    match name:
        case "verify":
            session.outbox.send(acp.update_agent_message_text(await _verify(session, rest)))
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


async def _verify(session: AcpSession, rest: str) -> str:
    """`/verify CMD`: the session's tasks complete only when CMD exits 0 (`off` removes it)."""
    if not rest:
        return f"Goal check: `{session.goal}`" if session.goal else "No goal check (/verify CMD)."
    session.goal = "" if rest == "off" else rest
    handle = session.handle
    if handle is not None and not handle.done:
        try:
            await handle.send(SetGoal(session.goal))
        except PyclineError as exc:
            return f"The goal was not set: {exc}"
    if not session.goal:
        return "No goal check: the model's completion is taken as it is."
    return f"Completion is verified by `{session.goal}` (run in the sandbox; exit 0 passes)."
