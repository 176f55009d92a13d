"""Thousands of generated (broken, hostile) replies fed to the real task loop: no exception ever
escapes it, and the saved history always loads."""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pycline.core.approval import AutoApprove
from pycline.core.task import TaskSettings
from pycline.events import Answer, ApprovalQuestion, FollowupQuestion, Question
from tests.core.harness import RecordingHost, complete, make_task

TOOLS = (
    "read_file", "write_to_file", "replace_in_file", "search_files", "list_files",
    "list_code_definition_names", "ask_followup_question", "attempt_completion",
    "execute_command", "plan_mode_respond", "web_fetch", "browser_action", "use_mcp_tool",
    "no_such_tool",
)  # fmt: skip
PARAMS = (
    "path", "content", "diff", "regex", "file_pattern", "recursive", "question", "options",
    "result", "command", "requires_approval", "timeout", "start_line", "end_line", "url",
)  # fmt: skip
NASTY = st.sampled_from(
    [
        "", " ", "a.txt", "pipe", "../outside.txt", "/proc/self/environ", "/dev/zero",
        "a" * 5000, "x\x00y", "\ud83d", "\ude00tail", "\x1b]52;c;ZQ==\x07", "[" * 3000,
        '["a", "b"]', "-1", "99999999999999999999", "true", "nan", "*", "(a|", "\\",
        "------- SEARCH\nx\n=======\ny\n+++++++ REPLACE", "------- SEARCH\n", "<path>",
        "</content>", "http://169.254.169.254/latest", "\u2028\u2029\x85", "é😀",
    ]
)  # fmt: skip
VALUE = st.one_of(NASTY, st.text(max_size=60))


@st.composite
def tool_call(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(TOOLS))
    params = draw(st.dictionaries(st.sampled_from(PARAMS), VALUE, max_size=4))
    body = "".join(f"<{k}>{v}</{k}>\n" for k, v in params.items())
    text = f"{draw(st.text(max_size=20))}<{name}>\n{body}</{name}>"
    cut = draw(st.integers(min_value=0, max_value=len(text)))
    return text[:cut] if draw(st.booleans()) and cut else text


REPLIES_FED: list[int] = []  # for the report: how many replies the run fed
REPLY = st.one_of(tool_call(), VALUE, st.text(max_size=200))


def _answer(question: Question) -> Answer:
    match question:
        case ApprovalQuestion(outside_workspace=False, tool=tool) if tool not in (
            "execute_command",
            "web_fetch",
            "browser_action",
        ):
            return Answer("yes")
        case ApprovalQuestion():
            return Answer("no")
        case FollowupQuestion():
            return Answer("text", "carry on")
        case _:
            return Answer("yes")


async def _run(home: Path, workspace: Path, replies: list[str]) -> None:
    host = RecordingHost(default=_answer)
    policy = AutoApprove(execute_safe_commands=False, use_mcp=False)
    task, _ = make_task(
        home,
        workspace,
        [*replies, complete()],
        host,
        settings=TaskSettings(auto_approve=policy, max_retries=0, max_mistakes=50),
    )
    REPLIES_FED.append(len(replies))
    try:
        await task.start("fuzz")
    finally:
        await task.services.close()
    folder = next((home / "tasks").iterdir())
    for name in ("api_conversation_history.json", "ui_messages.json"):
        path = folder / name
        if path.exists():
            assert isinstance(json.loads(path.read_text(encoding="utf-8")), list)


# CI runs a few hundred replies; PYCLINE_FUZZ_EXAMPLES=300 feeds thousands (about 13 a task).
@settings(
    max_examples=int(os.environ.get("PYCLINE_FUZZ_EXAMPLES", "30")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(replies=st.lists(REPLY, min_size=1, max_size=25))
def test_generated_replies_never_crash_the_loop_and_history_always_loads(
    replies: list[str],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home, workspace = Path(tmp, "home"), Path(tmp, "project")
        home.mkdir()
        workspace.mkdir()
        os.mkfifo(workspace / "pipe")
        (workspace / "a.txt").write_text("x\n", encoding="utf-8")
        asyncio.run(_run(home, workspace, replies))
