"""Fixed texts sent to the model: tool-result headers, errors, reminders."""

from __future__ import annotations

from collections.abc import Collection

NO_TOOL_USED = """[ERROR] You did not use a tool in your previous response! Please retry with a tool use.

# Reminder: tool use format
<tool_name>
<parameter1_name>value1</parameter1_name>
</tool_name>

# Next steps
If you have completed the task, use attempt_completion. If you need more information from the user, use ask_followup_question. Otherwise, continue with the next step using a tool.
(This is an automated message; do not reply to it conversationally.)"""
_ASK_USER = " If you need more information from the user, use ask_followup_question."


def no_tool_used(offered: Collection[str]) -> str:
    """Cline's reminder; it names ask_followup_question only where that tool is offered."""
    return (
        NO_TOOL_USED if "ask_followup_question" in offered else NO_TOOL_USED.replace(_ASK_USER, "")
    )


def output_limit(tokens: int) -> str:
    """The reply stopped at the output limit before a complete tool call."""
    size = f" of {tokens:,} tokens" if tokens > 0 else ""
    return (
        f"[ERROR] Your previous response reached the output limit{size} before it finished a "
        "tool call, so nothing in it was run. Reply with less: think in a sentence or two, then "
        "make one tool call. Change a large file with replace_in_file, a few lines at a time, "
        "instead of rewriting it.\n(This is an automated message; do not reply to it "
        "conversationally.)"
    )


ONE_TOOL_PER_MESSAGE = (
    "Only one tool may be used per message. Everything after the first tool call was ignored; "
    "wait for its result before the next step."
)

DENIED = "The user denied this operation."

INTERRUPTED = (
    "The task was interrupted before this tool finished, so its result is unknown. "
    "Check the current state of any file or process it touched before continuing."
)


def tool_header(summary: str) -> str:
    return f"[{summary}] Result:"


def tool_error(tool: str, message: str) -> str:
    return f"The tool execution failed with the following error:\n<error>\n{message}\n</error>"


def unknown_tool(name: str, offered: Collection[str] = ()) -> str:
    listed = f" They are: {', '.join(offered)}." if offered else ""
    return f"Unknown tool '{name}'. Use only the tools described in the system prompt.{listed}"


def with_feedback(text: str, feedback: str) -> str:
    if not feedback.strip():
        return text
    return f"{text}\nThe user provided the following feedback:\n<feedback>\n{feedback.strip()}\n</feedback>"


def sent_while_working(text: str) -> str:
    """A message the user queued while the model worked, delivered with the next request."""
    return (
        "The user sent this message while you were working:\n"
        f"<user_message>\n{text.strip()}\n</user_message>"
    )


def too_many_mistakes(guidance: str) -> str:
    base = (
        "You seem to be having trouble proceeding. The user has provided the following feedback "
        "to help guide you:"
    )
    return (
        f"{base}\n<feedback>\n{guidance.strip()}\n</feedback>"
        if guidance.strip()
        else (
            "You seem to be having trouble proceeding. Step back, re-read the task and the last results, "
            "and try a different approach."
        )
    )


def task_resumption(ago: str, cwd: str) -> str:
    return (
        f"[TASK RESUMPTION] This task was interrupted {ago}. It may or may not be complete, so "
        f"reassess the task context. The current working directory is now '{cwd}'; the project "
        "state may have changed since then. If the last tool use was not completed, decide whether "
        "to retry it. If the task was not finished, continue it."
    )
