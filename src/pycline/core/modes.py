"""Plan and Act modes (SPEC §11): what each mode may do, and the model/prompt each mode uses."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from pycline.providers.base import Provider
from pycline.tools.base import Tool, ToolCall, ToolFacts

Mode: TypeAlias = Literal["act", "plan"]
MODES: tuple[Mode, ...] = ("act", "plan")


def as_mode(value: str) -> Mode:
    if value == "plan":
        return "plan"
    if value == "act":
        return "act"
    raise ValueError(f"unknown mode {value!r}: use 'plan' or 'act'")


@dataclass(frozen=True, slots=True)
class ModeProfile:
    """The provider, tools and system prompt one mode runs with."""

    provider: Provider
    tools: Sequence[Tool]
    system_prompt: str
    native_prompt: str = ""  # the prompt when tools go as native definitions ("": the same)


def tools_for(mode: Mode, tools: Sequence[Tool]) -> list[Tool]:
    """Act mode does not offer plan_mode_respond; Plan mode offers everything (edits are refused
    when called, with a message, so the model learns why instead of seeing a shorter tool list)."""
    if mode == "plan":
        return list(tools)
    return [t for t in tools if t.spec.facts.effect != "plan"]


def refusal(mode: Mode, call: ToolCall, facts: ToolFacts) -> str | None:
    """Why `call` (of a tool with these `facts`) may not run in `mode`, or None."""
    if mode == "act":
        if facts.effect == "plan":
            return (
                f"{call.name} is only available in PLAN MODE. You are in ACT MODE: carry the "
                "task out with the tools, and use attempt_completion when done."
            )
        return None
    if facts.effect == "edit":
        return (
            f"{call.name} is not allowed in PLAN MODE: files cannot be changed while planning. "
            "Present your plan with plan_mode_respond, and ask the user to switch to ACT MODE "
            "when it is ready."
        )
    if facts.effect == "execute" and (call.get("requires_approval") or "").lower() != "false":
        return (
            "Commands that change state are not allowed in PLAN MODE; only read-only commands "
            "(requires_approval=false) may run. Present your plan with plan_mode_respond, and ask "
            "the user to switch to ACT MODE to run it."
        )
    return None
