"""`pycline run` as a real subprocess against local servers speaking the providers' wire formats.

The real SDK adapters stream from the fakes over loopback HTTP (SSE split oddly across writes),
so the whole path — flags, provider, parser, tools, files on disk, exit code — is exercised.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.cli.test_headless import run_cli
from tests.fakes.anthropic_server import FakeAnthropic, unauthorized
from tests.fakes.openai_server import FakeOpenAI, OpenAIError, OpenAIReply

WRITE = (
    "I'll write it.\n<write_to_file>\n<path>hello.py</path>\n<content>\n"
    "print('héllo')\n</content>\n</write_to_file>"
)
EDIT = (
    "<replace_in_file>\n<path>hello.py</path>\n<diff>\n------- SEARCH\nprint('héllo')\n=======\n"
    "print('héllo, wörld')\n+++++++ REPLACE\n</diff>\n</replace_in_file>"
)
RUN = (
    f"<execute_command>\n<command>{sys.executable} hello.py</command>\n"
    "<requires_approval>false</requires_approval>\n</execute_command>"
)
DONE = "<attempt_completion>\n<result>hello.py prints a greeting.</result>\n</attempt_completion>"


def test_openai_compatible_server_runs_a_multi_step_task(
    isolated_home: Path, workspace: Path
) -> None:
    with FakeOpenAI([WRITE, EDIT, RUN, OpenAIReply(text=DONE, reasoning="all good")]) as srv:
        proc = run_cli(
            ["run", "--provider", "openai", "--base-url", srv.base_url, "--model", "tiny",
             "--yes", "greet the world"],
            home=isolated_home,
            cwd=workspace,
        )  # fmt: skip
        requests = srv.completions
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "hello.py").read_text(encoding="utf-8") == "print('héllo, wörld')\n"
    assert "héllo, wörld" in proc.stdout  # the command's output streamed to the user
    assert len(requests) == 4
    body = requests[0].body
    assert body["model"] == "tiny" and body["stream"] is True
    assert body["messages"][0]["role"] == "system"
    last_user = requests[3].body["messages"][-1]["content"]
    text = last_user if isinstance(last_user, str) else last_user[0]["text"]
    assert "héllo, wörld" in text and "exit code 0" in text


def test_openai_auth_error_is_shown_once_and_saves_no_task(
    isolated_home: Path, workspace: Path
) -> None:
    bad_key = OpenAIError(401, "Incorrect API key provided", type="invalid_request_error")
    with FakeOpenAI([bad_key]) as srv:
        proc = run_cli(
            ["run", "--provider", "openai", "--base-url", srv.base_url, "--api-key", "sk-bad",
             "--model", "tiny", "--yes", "anything"],
            home=isolated_home,
            cwd=workspace,
        )  # fmt: skip
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().endswith("(nothing was saved: the task never reached the model)")
    assert proc.stdout.count("Incorrect API key provided") == 1
    assert "sk-bad" not in proc.stderr + proc.stdout
    assert [p for p in (isolated_home / "tasks").iterdir() if p.is_dir()] == []
    checkpoints = isolated_home / "checkpoints"
    assert not checkpoints.exists() or not any(checkpoints.iterdir())


def test_unreachable_base_url_is_one_clear_line(isolated_home: Path, workspace: Path) -> None:
    proc = run_cli(
        ["run", "--provider", "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
         "--yes", "x"],
        home=isolated_home,
        cwd=workspace,
    )  # fmt: skip
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "127.0.0.1:9" in proc.stderr


def test_anthropic_server_completes_a_task(isolated_home: Path, workspace: Path) -> None:
    with FakeAnthropic([WRITE, DONE]) as srv:
        proc = run_cli(
            ["run", "--provider", "anthropic", "--base-url", srv.base_url, "--api-key", "k",
             "--model", "claude-haiku-4-5", "--json", "--yes", "write hello"],
            home=isolated_home,
            cwd=workspace,
        )  # fmt: skip
        requests = srv.messages
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "hello.py").read_text(encoding="utf-8") == "print('héllo')\n"
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    kinds = [e.get("kind") for e in events]
    assert "usage" in kinds and "completion_result" in kinds
    system = requests[0].body["system"]
    assert system[0]["cache_control"]["type"] == "ephemeral"


def test_anthropic_bad_key_is_not_retried(isolated_home: Path, workspace: Path) -> None:
    with FakeAnthropic([unauthorized()]) as srv:
        proc = run_cli(
            ["run", "--provider", "anthropic", "--base-url", srv.base_url, "--api-key", "k",
             "--yes", "x"],
            home=isolated_home,
            cwd=workspace,
        )  # fmt: skip
        count = len(srv.messages)
    assert proc.returncode == 1
    assert count == 1
    assert "Traceback" not in proc.stderr
