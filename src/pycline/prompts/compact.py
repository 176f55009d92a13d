"""The compact prompt profile, for small models: the few tools a coding task needs, each said in
a line or two with one worked example, and the rules that keep a small model on its feet.

A small model reads every word of its prompt as an instruction and loses the thread in a long
one; it also picks the wrong tool more often when it is offered many. So this profile offers the
core tools only (reading, searching, editing, running, finishing; any tool the user added, such
as an MCP server's, stays), and says how to call them by showing it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal

from pycline.editing.markers import EXAMPLE_BLOCK
from pycline.prompts.system import Mode, SystemInfo, ToolDoc

PromptProfile = Literal["auto", "full", "compact"]

# The built-in tools the compact profile offers, in the order it lists them; a tool not built in
# (MCP, skills, custom agents) is offered as the user configured it.
CORE_TOOLS: Final = (
    "read_file",
    "search_files",
    "list_files",
    "replace_in_file",
    "write_to_file",
    "execute_command",
    "attempt_completion",
    "plan_mode_respond",
)
# Built-in tools left out: rarely needed for a coding task, and each one a wrong turn a small
# model can take.
LEFT_OUT: Final = frozenset(
    {
        "list_code_definition_names",
        "ask_followup_question",
        "web_fetch",
        "browser_action",
        "new_rule",
        "condense",
        "new_task",
        "use_subagents",
    }
)

# One line each; the parameters follow from the example.
_SHORT: Final[dict[str, str]] = {
    "read_file": "Read a file (start_line and end_line, optional, read a part).",
    "search_files": "Find a regex in the files under a folder (file_pattern optional, e.g. *.py).",
    "list_files": "List a folder (recursive true for the whole tree).",
    "replace_in_file": (
        "Change part of a file. In diff, each SEARCH block must copy the file's current lines "
        "exactly (indentation too); REPLACE holds the new lines."
    ),
    "write_to_file": "Create a file, or replace ALL of it: give the complete content.",
    "execute_command": (
        "Run a shell command (tests, builds). requires_approval: true only for risky commands."
    ),
    "attempt_completion": "Finish: say what you did, once the change is made and checked.",
    "plan_mode_respond": "Answer the user with your plan (PLAN MODE only).",
}


# The examples, with paths a model cannot take for this project's own: a small model copies an
# example's folder (`src/`) into every path it writes.
_EXAMPLES: Final[dict[str, str]] = {
    "read_file": "<read_file>\n<path>main.py</path>\n</read_file>",
    "search_files": (
        "<search_files>\n<path>.</path>\n<regex>def \\w+_handler</regex>\n"
        "<file_pattern>*.py</file_pattern>\n</search_files>"
    ),
    "list_files": "<list_files>\n<path>.</path>\n<recursive>true</recursive>\n</list_files>",
    "replace_in_file": (
        f"<replace_in_file>\n<path>app.py</path>\n<diff>\n{EXAMPLE_BLOCK}\n</diff>\n</replace_in_file>"
    ),
    "write_to_file": (
        "<write_to_file>\n<path>config.json</path>\n<content>\n"
        '{\n  "port": 8080\n}\n</content>\n</write_to_file>'
    ),
    # A placeholder, not an example: a small model copies an example's claim as its own.
    "attempt_completion": (
        "<attempt_completion>\n<result>(what you changed, and how you checked it)</result>\n"
        "</attempt_completion>"
    ),
}


def offered(names: Sequence[str]) -> list[str]:
    """The tool names (from `names`) the compact profile offers, in its order."""
    built_in = [n for n in CORE_TOOLS if n in names]
    added = [n for n in names if n not in CORE_TOOLS and n not in LEFT_OUT]
    return built_in + added


def _render(tool: ToolDoc) -> str:
    description = _SHORT.get(tool.name) or tool.description.strip().split("\n")[0]
    example = _EXAMPLES.get(tool.name, tool.example).strip()
    if not example:
        params = "\n".join(f"<{p.name}>…</{p.name}>" for p in tool.params)
        example = f"<{tool.name}>\n{params}\n</{tool.name}>"
    return f"## {tool.name}\n{description}\n{example}"


_MODES: Final = {
    "act": "You are in ACT MODE: make the change with the tools.",
    "plan": "You are in PLAN MODE: explore, then present a plan with plan_mode_respond; do not edit.",
}


def build_compact_prompt(
    tools: Sequence[ToolDoc],
    info: SystemInfo,
    *,
    mode: Mode = "act",
    custom_instructions: str = "",
    native: bool = False,
) -> str:
    calling = (
        "Each reply: at most two sentences of thought, then ONE tool call. Wait for its result."
        if native
        else (
            "Each reply: at most two sentences of thought, then ONE tool call written as XML, "
            "exactly like the examples below (the tool name as the outer tag, one tag per "
            "parameter, every tag closed). Write nothing after the call: its result comes in "
            "the next message."
        )
    )
    parts = [
        "You are pycline, a careful software engineer. You work in the user's project only "
        "through tools.",
        "# How to work\n" + calling + "\n"
        "Write paths exactly as the file list in environment_details shows them. "
        "First find and read the code the task is about (never guess a file's content). Then "
        "change it with replace_in_file, copying the SEARCH lines from what read_file showed. "
        "Then check it: run the project's tests, or a short command that runs the changed code "
        "on the task's own example, and fix what fails. When the check passes, call "
        "attempt_completion.",
        _MODES[mode],
    ]
    if not native:
        parts.append("# Tools\n\n" + "\n\n".join(_render(t) for t in tools))
    parts.append(
        f"# System\nOS: {info.os_name}. Shell: {info.shell}. Working directory: {info.cwd} "
        "(paths are relative to it)."
    )
    if custom_instructions.strip():
        parts.append("# User's custom instructions\n" + custom_instructions.strip())
    return "\n\n".join(parts) + "\n"
