"""Permission requests: the four ACP options, and what "always" is remembered for.

"Always" lasts for the ACP session. It is kept per tool kind (every edit, every read), and for
commands per command prefix (`npm test`), never for a whole kind of command.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from pycline.app.settings.allow_rules import command_prefix, prefix_covers
from pycline.tools.base import ToolKind

OptionKind: TypeAlias = Literal["allow_once", "allow_always", "reject_once", "reject_always"]
Verdict: TypeAlias = Literal["allow", "reject"]


@dataclass(frozen=True, slots=True)
class Choice:
    option_id: str
    name: str
    kind: OptionKind


def choices(kind: ToolKind, command: str | None) -> list[Choice]:
    """The options offered; "always" names what it will cover."""
    if kind == "execute":
        prefix = command_prefix(command or "")
        scope = f"`{prefix}` commands" if prefix else None
    else:
        scope = f"{kind} actions"
    offered = [Choice("allow_once", "Allow", "allow_once")]
    if scope is not None:
        offered.append(Choice("allow_always", f"Always allow {scope}", "allow_always"))
    offered.append(Choice("reject_once", "Reject", "reject_once"))
    if scope is not None:
        offered.append(Choice("reject_always", f"Always reject {scope}", "reject_always"))
    return offered


@dataclass
class Remembered:
    """The session's "always" answers."""

    kinds: dict[ToolKind, Verdict] = field(default_factory=dict)
    prefixes: dict[str, Verdict] = field(default_factory=dict)

    def verdict(self, kind: ToolKind, command: str | None) -> Verdict | None:
        if kind == "execute":
            for prefix, verdict in self.prefixes.items():
                if prefix_covers(prefix, command or ""):
                    return verdict
            return None
        return self.kinds.get(kind)

    def remember(self, option: OptionKind, kind: ToolKind, command: str | None) -> None:
        if option not in ("allow_always", "reject_always"):
            return
        verdict: Verdict = "allow" if option == "allow_always" else "reject"
        if kind == "execute":
            prefix = command_prefix(command or "")
            if prefix is not None:
                self.prefixes[prefix] = verdict
            return
        self.kinds[kind] = verdict
