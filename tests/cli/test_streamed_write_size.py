"""A streamed 1 MB write costs `pycline run --json` about 1 MB (plus framing), not its size once
per chunk: each `tool_partial` carries only what the call's parameters gained."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.task_cli import pycline
from tests.fakes.openai_server import FakeOpenAI, OpenAIReply
from tests.fakes.server import FakeToolCall

SIZE = 1_000_000
CONTENT = "".join(f"line {i:07d} of a big generated file\n" for i in range(SIZE // 36))
COMPLETE = "<attempt_completion>\n<result>done</result>\n</attempt_completion>"


def _settings(home: Path, fmt: str) -> None:
    (home / "settings").mkdir(parents=True, exist_ok=True)
    (home / "settings" / "settings.json").write_text(
        json.dumps({"toolCallFormat": fmt}), encoding="utf-8"
    )


@pytest.mark.parametrize("fmt", ["xml", "native"])
def test_a_1_mb_streamed_write_costs_json_output_about_1_mb(
    isolated_home: Path, workspace: Path, fmt: str
) -> None:
    _settings(isolated_home, fmt)
    if fmt == "xml":
        write = OpenAIReply(
            text=f"<write_to_file>\n<path>big.txt</path>\n<content>\n{CONTENT}</content>\n"
            "</write_to_file>",
            delta_size=512,
        )
        done = OpenAIReply(text=COMPLETE)
    else:
        call = FakeToolCall("write_to_file", {"path": "big.txt", "content": CONTENT}, id="w1")
        write = OpenAIReply(tool_calls=(call,), delta_size=512)
        finish = FakeToolCall("attempt_completion", {"result": "done"}, id="c1")
        done = OpenAIReply(tool_calls=(finish,))
    with FakeOpenAI([write, done]) as server:
        server.max_piece = 4096  # megabytes in 11-byte socket writes would only test the fake
        proc = pycline(
            "run", "--provider", "openai", "--base-url", server.base_url, "--api-key", "k",
            "--model", "gpt-5", "--yes", "--json", "write a big file",
            home=isolated_home, cwd=workspace, timeout=300,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (workspace / "big.txt").read_text(encoding="utf-8") == CONTENT
    out = proc.stdout.encode()
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    partials = [e for e in events if e["kind"] == "tool_partial" and e["tool"] == "write_to_file"]
    streamed = sum(len(json.dumps(e)) for e in partials)
    assert streamed < 1.2 * SIZE, streamed
    params: dict[str, str] = {}
    for e in partials:  # as a consumer of events v3 keeps them
        for name, text in e["params"].items():
            params[name] = text if name in e["replaced"] else params.get(name, "") + text
    assert params["content"].rstrip("\n") == CONTENT.rstrip("\n")  # all of it, once
    # The whole output: the streamed call, the saved file echoed in the tool result, framing.
    assert len(out) < 3.5 * SIZE, len(out)
