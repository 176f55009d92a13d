"""The parts of the built-in tools that a front end's own runner reuses: an editor that reads
files and runs commands itself (ACP's fs and terminal) keeps the local tools' specs, approval,
paging and refusal messages, and shows the `task_progress` checklist as its plan."""

from __future__ import annotations

from pycline.parsing.checklist import items as checklist_items
from pycline.terminal.process import prepared
from pycline.terminal.sandbox import SandboxUnavailable
from pycline.tools.command import (
    EXECUTE_COMMAND_SPEC,
    approve_command,
    git_checked,
    sandbox_in,
)
from pycline.tools.read import (
    IMAGE_SUFFIXES,
    READ_FILE_SPEC,
    ReadFileTool,
    format_page,
    parse_range,
    take_page,
)
from pycline.tools.read_documents import converter_for
from pycline.workspace.ignore import blocked_message

__all__ = [
    "EXECUTE_COMMAND_SPEC",
    "IMAGE_SUFFIXES",
    "READ_FILE_SPEC",
    "ReadFileTool",
    "SandboxUnavailable",
    "approve_command",
    "blocked_message",
    "checklist_items",
    "converter_for",
    "format_page",
    "git_checked",
    "parse_range",
    "prepared",
    "sandbox_in",
    "take_page",
]
