"""`pycline run` with native tool calls on the wire (OpenAI, Anthropic, Gemini fakes), and the
same task in XML: the same files, the same outcome."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.cli.test_headless import run_cli
from tests.fakes.anthropic_server import AnthropicReply, FakeAnthropic
from tests.fakes.gemini_server import FakeGemini, GeminiReply
from tests.fakes.openai_server import FakeOpenAI, OpenAIError, OpenAIReply
from tests.fakes.server import FakeToolCall

Call = tuple[str, Mapping[str, Any]]

STEPS: list[tuple[str, Call]] = [
    ("I'll write it.", ("write_to_file", {"path": "hello.py", "content": "print('héllo')\n"})),
    ("", ("replace_in_file", {"path": "hello.py", "diff": (
        "------- SEARCH\nprint('héllo')\n=======\nprint('héllo, wörld')\n+++++++ REPLACE")})),
    ("", ("execute_command", {"command": f"{sys.executable} hello.py", "requires_approval": False,
                              "task_progress": "- [x] write\n- [x] edit\n- [ ] run"})),
    ("Done.", ("attempt_completion", {"result": "hello.py prints a greeting."})),
]  # fmt: skip


def _xml(text: str, call: Call) -> str:
    name, args = call
    body = "".join(f"<{k}>{str(v).lower() if isinstance(v, bool) else v}</{k}>\n"
                   for k, v in args.items())  # fmt: skip
    return f"{text}\n<{name}>\n{body}</{name}>".strip()


def _settings(home: Path, fmt: str) -> None:
    folder = home / "settings"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").write_text(json.dumps({"toolCallFormat": fmt}), encoding="utf-8")


def _run(home: Path, cwd: Path, provider: str, url: str, model: str) -> Any:
    return run_cli(
        ["run", "--provider", provider, "--base-url", url, "--api-key", "k", "--model", model,
         "--yes", "greet the world"],
        home=home,
        cwd=cwd,
    )  # fmt: skip


def _calls(n: int) -> list[FakeToolCall]:
    return [FakeToolCall(name, args, id=f"call_{i}") for i, (_, (name, args)) in enumerate(STEPS)][
        :n
    ]


def _check_files(proc: Any, workspace: Path) -> None:
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "hello.py").read_text(encoding="utf-8") == "print('héllo, wörld')\n"
    assert "héllo, wörld" in proc.stdout


def test_openai_native_calls_stream_as_tool_call_deltas_and_results_go_back_as_tool_messages(
    isolated_home: Path, workspace: Path
) -> None:
    calls = _calls(4)
    replies = [OpenAIReply(text=t, tool_calls=(c,)) for (t, _), c in zip(STEPS, calls, strict=True)]
    with FakeOpenAI(replies) as srv:
        proc = _run(isolated_home, workspace, "openai", srv.base_url, "gpt-5")  # auto: native
        requests = srv.completions
    _check_files(proc, workspace)
    assert "progress 2/3" in proc.stdout  # the focus chain from task_progress
    first = requests[0].body
    names = [t["function"]["name"] for t in first["tools"]]
    assert "read_file" in names and "write_to_file" in names
    assert "<write_to_file>" not in first["messages"][0]["content"]  # no XML docs in the prompt
    last = requests[3].body["messages"]
    assistant = [m for m in last if m["role"] == "assistant"]
    assert assistant[-1]["tool_calls"][0]["id"] == "call_2"
    tool_results = [m for m in last if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_results] == ["call_0", "call_1", "call_2"]
    assert "exit code 0" in tool_results[-1]["content"]


def test_the_same_task_in_xml_gives_the_same_files(isolated_home: Path, workspace: Path) -> None:
    _settings(isolated_home, "xml")
    with FakeOpenAI([_xml(t, c) for t, c in STEPS]) as srv:
        proc = _run(isolated_home, workspace, "openai", srv.base_url, "gpt-5")
        requests = srv.completions
    _check_files(proc, workspace)
    assert "tools" not in requests[0].body


def test_anthropic_native_calls_use_tool_use_blocks_and_tool_results(
    isolated_home: Path, workspace: Path
) -> None:
    calls = _calls(4)
    replies = [
        AnthropicReply(text=t or "ok", tool_calls=(c,))
        for (t, _), c in zip(STEPS, calls, strict=True)
    ]
    with FakeAnthropic(replies) as srv:
        proc = _run(isolated_home, workspace, "anthropic", srv.base_url, "claude-sonnet-4-5")
        requests = srv.messages
    _check_files(proc, workspace)
    body = requests[1].body
    assert body["tools"][0]["input_schema"]["type"] == "object"
    assistant, user = body["messages"][-2], body["messages"][-1]
    assert assistant["content"][-1] == {
        "type": "tool_use",
        "id": "call_0",
        "name": "write_to_file",
        "input": {"path": "hello.py", "content": "print('héllo')\n"},
    }
    assert user["content"][0]["type"] == "tool_result"
    assert user["content"][0]["tool_use_id"] == "call_0"


def test_gemini_native_calls_use_function_call_parts(isolated_home: Path, workspace: Path) -> None:
    calls = _calls(4)
    replies = [GeminiReply(text=t, tool_calls=(c,)) for (t, _), c in zip(STEPS, calls, strict=True)]
    with FakeGemini(replies) as srv:
        proc = _run(isolated_home, workspace, "gemini", srv.base_url, "gemini-2.5-pro")
        requests = srv.generations
    _check_files(proc, workspace)
    body = requests[1].body
    assert body["tools"][0]["functionDeclarations"][0]["name"]
    model_turn, user_turn = body["contents"][-2], body["contents"][-1]
    assert model_turn["parts"][-1]["functionCall"]["name"] == "write_to_file"
    assert user_turn["parts"][0]["functionResponse"]["name"] == "write_to_file"


def test_a_server_refusing_tools_falls_back_to_xml_with_a_notice(
    isolated_home: Path, workspace: Path
) -> None:
    _settings(isolated_home, "native")
    refusal = OpenAIError(400, "this model does not support tools", code="invalid_request")
    with FakeOpenAI([refusal, *(_xml(t, c) for t, c in STEPS)]) as srv:
        proc = _run(isolated_home, workspace, "openai", srv.base_url, "tiny")
        requests = srv.completions
    _check_files(proc, workspace)
    assert "tools" in requests[0].body and "tools" not in requests[1].body
    assert "continues with XML tool calls" in proc.stdout
    assert "<write_to_file>" in requests[1].body["messages"][0]["content"]


def test_two_calls_in_one_native_reply_run_in_order(isolated_home: Path, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\n", encoding="utf-8")
    (workspace / "b.txt").write_text("beta\n", encoding="utf-8")
    reads = (
        FakeToolCall("read_file", {"path": "a.txt"}, id="r1"),
        FakeToolCall("read_file", {"path": "b.txt"}, id="r2"),
    )
    done = FakeToolCall("attempt_completion", {"result": "read both"}, id="d")
    with FakeOpenAI([OpenAIReply(tool_calls=reads), OpenAIReply(tool_calls=(done,))]) as srv:
        proc = _run(isolated_home, workspace, "openai", srv.base_url, "gpt-5")
        requests = srv.completions
    assert proc.returncode == 0, proc.stderr
    sent = requests[1].body["messages"]
    results = [m for m in sent if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in results] == ["r1", "r2"]
    assert "alpha" in results[0]["content"] and "beta" in results[1]["content"]
