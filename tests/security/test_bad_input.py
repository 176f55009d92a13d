"""Hostile or broken replies end as clear tool errors the model can read, never as a traceback,
a hang or lost history."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.security.attack import COMPLETE, command, model_saw, scripted

LONG = "a" * 5_000
NESTED = "[" * 100_000 + "]" * 100_000


def tool(name: str, **params: str) -> str:
    inner = "".join(f"<{k}>{v}</{k}>\n" for k, v in params.items())
    return f"<{name}>\n{inner}</{name}>"


BAD_REPLIES = {
    "lone surrogate in text": "I think \ud83d then \ude00 done",
    "lone surrogate in a file": tool("write_to_file", path="s.txt", content="x\ud83dy"),
    "lone surrogate in a path": tool("write_to_file", path="s\udc80.txt", content="x"),
    "lone surrogate in a command": command("echo \ud83d"),
    "NUL in a command": command("echo a\x00b"),
    "NUL in a regex": tool("search_files", path=".", regex="a\x00b"),
    "NUL in a path": tool("read_file", path="a\x00b"),
    "5,000-char path read": tool("read_file", path=LONG),
    "5,000-char path write": tool("write_to_file", path=LONG, content="x"),
    "5,000-char path list": tool("list_files", path=LONG),
    "5,000-char path definitions": tool("list_code_definition_names", path=LONG),
    "5,000-char path search": tool("search_files", path=LONG, regex="x"),
    "200 KB regex": tool("search_files", path=".", regex="(a|" * 50_000 + "b"),
    "deeply nested options": tool("ask_followup_question", question="q?", options=NESTED),
    "FIFO write": tool("write_to_file", path="pipe", content="x"),
    "FIFO replace": tool(
        "replace_in_file",
        path="pipe",
        diff="------- SEARCH\nx\n=======\ny\n+++++++ REPLACE",
    ),
    "FIFO read": tool("read_file", path="pipe"),
    "FIFO definitions": tool("list_code_definition_names", path="."),
    "FIFO search": tool("search_files", path=".", regex="x"),
}


def test_bad_replies_are_tool_errors_not_crashes_or_hangs(
    isolated_home: Path, workspace: Path
) -> None:
    """All of them in one task (each was a traceback or a hang before): every one must come back
    to the model as an error it can read, and the history must stay loadable."""
    os.mkfifo(workspace / "pipe")
    (workspace / "code.py").write_text("def f():\n    pass\n", encoding="utf-8")
    # A harmless step after each one, or three errors in a row would end the task.
    harmless = tool("list_files", path=".")
    replies = [r for bad in BAD_REPLIES.values() for r in (bad, harmless)] + [COMPLETE]
    proc = scripted(workspace, isolated_home, replies, "--yes", timeout=90)
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.returncode == 0, proc.stderr[-3000:]
    history = json.loads(model_saw(isolated_home))
    assert len(history) == 2 * len(replies)
    assert history[-1]["role"] == "assistant"


def test_an_emoji_split_between_two_sse_deltas_arrives_whole(
    isolated_home: Path, workspace: Path
) -> None:
    from tests.fakes.openai_server import FakeOpenAI, OpenAIReply
    from tests.security.attack import run

    # Two UTF-16 halves as separate characters: the server sends each in its own delta.
    text = "smile \ud83d\ude00 done\n" + COMPLETE
    with FakeOpenAI([OpenAIReply(text=text, delta_size=7)]) as server:
        proc = run(
            workspace,
            isolated_home,
            "--provider",
            "openai",
            "--base-url",
            server.base_url,
            "--yes",
            env={"OPENAI_API_KEY": "k"},
        )
    assert "Traceback" not in proc.stderr and proc.returncode == 0, proc.stderr[-2000:]
    assert "smile \U0001f600 done" in proc.stdout
    assert "smile \U0001f600 done" in json.loads(model_saw(isolated_home))[1]["content"][0]["text"]


def test_escape_sequences_in_model_text_never_reach_the_terminal(
    isolated_home: Path, workspace: Path
) -> None:
    hostile = "\x1b]52;c;ZWNobyBwd25lZA==\x07hello \x1b[2J\x1b[?1049h\x1b]0;title\x07world\x9b2J"
    replies = [
        hostile + "\n" + command("printf '\\033]52;c;eA==\\007out'"),
        f"<attempt_completion>\n<result>{hostile}</result>\n</attempt_completion>",
    ]
    proc = scripted(workspace, isolated_home, replies, "--yes")
    assert proc.returncode == 0, proc.stderr
    assert "hello world" in proc.stdout
    assert not any(c in proc.stdout for c in ("\x1b", "\x07", "\x9b"))
