"""Plan and Act modes (SPEC §11): what each mode may do, and the model/prompt each mode uses."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from pycline.providers.base import Provider
from pycline.tools.base import Tool, ToolCall

Mode: TypeAlias = Literal["act", "plan"]
MODES: tuple[Mode, ...] = ("act", "plan")

# Tools that change files; refused outright in Plan mode.
_EDIT_TOOLS = frozenset({"write_to_file", "replace_in_file", "new_rule"})
PLAN_ONLY_TOOLS = frozenset({"plan_mode_respond"})


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
    return [t for t in tools if t.spec.name not in PLAN_ONLY_TOOLS]


def refusal(mode: Mode, call: ToolCall) -> str | None:
    """Why `call` may not run in `mode`, or None."""
    if mode == "act":
        if call.name in PLAN_ONLY_TOOLS:
            return (
                "plan_mode_respond is only available in PLAN MODE. You are in ACT MODE: carry the "
                "task out with the tools, and use attempt_completion when done."
            )
        return None
    if call.name in _EDIT_TOOLS:
        return (
            f"{call.name} is not allowed in PLAN MODE: files cannot be changed while planning. "
            "Present your plan with plan_mode_respond, and ask the user to switch to ACT MODE "
            "when it is ready."
        )
    if call.name == "execute_command" and (call.get("requires_approval") or "").lower() != "false":
        return (
            "Commands that change state are not allowed in PLAN MODE; only read-only commands "
            "(requires_approval=false) may run. Present your plan with plan_mode_respond, and ask "
            "the user to switch to ACT MODE to run it."
        )
    return None
