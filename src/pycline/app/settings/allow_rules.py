"""The commands a user always allows in a workspace (`pycline config allow`, the terminal's
"always" answer, an editor's allow-always choice): the rules kept in the user's pycline home,
and how a command line is cut to the rule it would add."""

from __future__ import annotations

from pycline.workspace.allow_rules import command_prefix, prefix_covers
from pycline.workspace.command_rules import add_rule, all_rules, remove_rule, workspace_rules

__all__ = [
    "add_rule",
    "all_rules",
    "command_prefix",
    "prefix_covers",
    "remove_rule",
    "workspace_rules",
]
