"""The fixed tag vocabulary of XML tool calls (SPEC §3).

Only these names are tags; anything else in angle brackets is text. The lists are Cline's (v3.89.2,
`ClineDefaultTool` and `toolParamNames`), so a reply parses the same as it would there even when it
names a tool pycline does not implement: the loop then answers "unknown tool" instead of the model
seeing its call silently treated as prose.
"""

from __future__ import annotations

TOOL_NAMES: frozenset[str] = frozenset(
    {
        "execute_command",
        "read_file",
        "write_to_file",
        "replace_in_file",
        "search_files",
        "list_files",
        "list_code_definition_names",
        "browser_action",
        "use_mcp_tool",
        "access_mcp_resource",
        "load_mcp_documentation",
        "ask_followup_question",
        "attempt_completion",
        "plan_mode_respond",
        "act_mode_respond",
        "new_task",
        "focus_chain",
        "web_fetch",
        "web_search",
        "condense",
        "summarize_task",
        "report_bug",
        "new_rule",
        "apply_patch",
        "generate_explanation",
        "use_skill",
        "use_subagents",
    }
)

# A custom agent's tool: `use_subagent_<name>`, the name lowercase letters, digits and `_`.
AGENT_TOOL_PREFIX = "use_subagent_"
MAX_AGENT_NAME = 40


def is_tool_name(name: str) -> bool:
    if name in TOOL_NAMES:
        return True
    agent = name.removeprefix(AGENT_TOOL_PREFIX)
    return (
        agent != name
        and 0 < len(agent) <= MAX_AGENT_NAME
        and all(c.isascii() and (c.islower() or c.isdigit() or c == "_") for c in agent)
    )


PARAM_NAMES: frozenset[str] = frozenset(
    {
        "command",
        "requires_approval",
        "timeout",
        "path",
        "absolutePath",
        "content",
        "diff",
        "regex",
        "file_pattern",
        "recursive",
        "action",
        "url",
        "coordinate",
        "text",
        "query",
        "allowed_domains",
        "blocked_domains",
        "prompt",
        "server_name",
        "tool_name",
        "arguments",
        "uri",
        "question",
        "options",
        "response",
        "result",
        "context",
        "title",
        "what_happened",
        "steps_to_reproduce",
        "api_request_output",
        "additional_context",
        "needs_more_exploration",
        "task_progress",
        "input",
        "from_ref",
        "to_ref",
        "skill_name",
        "prompt_1",
        "prompt_2",
        "prompt_3",
        "prompt_4",
        "prompt_5",
        "start_line",
        "end_line",
        # pycline's own: execute_command's request for the network in auto mode
        "escalate",
    }
)

# What JavaScript's String.prototype.trim removes (ECMAScript WhiteSpace + LineTerminator). Python's
# str.strip() differs (it also strips U+001C..U+001F and U+0085 but keeps U+FEFF), and values must
# come out exactly as Cline's do.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
