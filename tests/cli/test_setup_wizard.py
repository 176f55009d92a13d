"""`pycline setup` in a real pseudo-terminal, against loopback servers speaking the real APIs."""

from __future__ import annotations

import json
from pathlib import Path

import pexpect

from pycline.app.builders import server_check
from tests.cli.test_interactive import spawn
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.server import FakeHTTPServer, Planned, RecordedRequest


def _settings(home: Path) -> dict[str, object]:
    data = json.loads((home / "settings" / "settings.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_setup_lists_the_server_models_rejects_a_bad_key_and_saves_the_checked_one(
    isolated_home: Path, workspace: Path
) -> None:
    with FakeOpenAI(
        models=("tiny-coder", "big-coder"),
        api_key="sk-right",
        model_info={"big-coder": {"max_model_len": 65536}},
    ) as server:
        child = spawn(["setup"], isolated_home, workspace)
        child.expect(r"Provider \(1-17 or a name\)")
        child.sendline("42")  # out of range: asked again
        child.expect("Type a number from 1 to 17")
        child.sendline("6")  # another OpenAI-compatible server
        child.expect("Server URL")
        child.sendline("")  # empty: asked again
        child.expect("cannot be empty")
        child.sendline("localhost:1")
        child.expect("must start with http")
        child.sendline(server.base_url)
        child.expect("wants an API key")
        child.expect(r"API key \(typing is hidden\): ")
        child.sendline("sk-wrong")
        child.expect("That key was refused")
        child.expect(r"API key \(typing is hidden\): ")
        child.sendline("sk-right")
        child.expect("1. tiny-coder")
        child.expect("2. big-coder")
        child.expect(r"Model \(1-2 or a name\)")
        child.sendline("2")
        child.expect("Context window: 65,536 tokens")
        child.expect("Saved: openai/big-coder")
        child.expect(pexpect.EOF)
        output = child.before or ""
        url = server.base_url
    child.close()
    assert child.exitstatus == 0
    assert "sk-right" not in output and "sk-wrong" not in output  # typed hidden
    assert _settings(isolated_home) == {
        "provider": "openai",
        "model": "big-coder",
        "baseUrl": url,
        "modelInfo": {"contextWindow": 65536},
    }
    secrets = (isolated_home / "secrets.json").read_text(encoding="utf-8")
    assert "sk-right" in secrets and "sk-wrong" not in secrets


def test_an_unreachable_server_is_asked_for_again_and_nothing_is_saved_on_ctrl_d(
    isolated_home: Path, workspace: Path
) -> None:
    child = spawn(["setup"], isolated_home, workspace)
    child.expect(r"Provider \(")
    child.sendline("ollama")
    child.expect(r"Server URL .*\[http://localhost:11434/v1\]")
    child.sendline("http://127.0.0.1:9/v1")
    child.expect("Cannot use http://127.0.0.1:9/v1")
    child.expect("Server URL")
    child.sendeof()
    child.expect("nothing was changed")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert not (isolated_home / "settings" / "settings.json").exists()


def test_first_interactive_run_goes_through_setup_then_asks_for_the_task(
    isolated_home: Path, workspace: Path
) -> None:
    with FakeOpenAI(models=("local-model",)) as server:
        child = spawn([], isolated_home, workspace)
        child.expect("No model is configured yet")
        child.sendline("vllm")
        child.expect("Server URL")
        child.sendline(server.base_url)
        child.expect(r"Model \(1-1 or a name\) \[1\]")
        child.sendline("")
        child.expect("Saved: vllm/local-model")
        child.expect("Task> ")
        child.sendeof()
        child.expect(pexpect.EOF)
        url = server.base_url
    assert _settings(isolated_home) == {
        "provider": "vllm",
        "model": "local-model",
        "baseUrl": url,
    }


def _local_server(routes: dict[str, object]) -> FakeHTTPServer:
    def respond(request: RecordedRequest) -> Planned:
        path = request.path.split("?", 1)[0]
        if path in routes:
            return Planned(json_body=routes[path])
        return Planned(status=404, json_body={"error": "not found"})

    return FakeHTTPServer(respond)


def test_context_window_is_read_from_llamacpp_props_and_ollama_show() -> None:
    with _local_server({"/props": {"default_generation_settings": {"n_ctx": 8192}}}) as llama:
        assert server_check.context_window("llamacpp", f"{llama.origin}/v1", "m") == 8192
    show = {"model_info": {"qwen2.context_length": 32768}}
    with _local_server({"/api/show": show}) as ollama:
        assert server_check.context_window("ollama", f"{ollama.origin}/v1", "qwen") == 32768
    lm = {"/api/v0/models/m": {"loaded_context_length": 4096, "max_context_length": 131072}}
    with _local_server(lm) as lmstudio:
        assert server_check.context_window("lmstudio", f"{lmstudio.origin}/v1", "m") == 4096


def test_a_server_that_cannot_tell_gives_no_context_window() -> None:
    with _local_server({}) as server:
        assert server_check.context_window("llamacpp", f"{server.origin}/v1", "m") is None
