"""OpenTelemetry: a local OTLP receiver on loopback gets the task's spans and metrics.

Through the real front end: `pycline run` as a subprocess against a local fake OpenAI server,
with the standard OTEL_EXPORTER_OTLP_ENDPOINT pointing at the receiver.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.cli.test_headless import run_cli
from tests.fakes.openai_server import FakeOpenAI, OpenAIReply, OpenAIUsage
from tests.fakes.otlp_receiver import OtlpReceiver

PROMPT = "PROMPT-WORDS-7f3a create the report"
COMMAND_MARK = "COMMAND-WORDS-91bc"
RUN = (
    f"<execute_command>\n<command>echo {COMMAND_MARK}</command>\n"
    "<requires_approval>false</requires_approval>\n</execute_command>"
)
DONE = "<attempt_completion>\n<result>Reported.</result>\n</attempt_completion>"
USAGE = OpenAIUsage(prompt_tokens=1_200, completion_tokens=80, cached_tokens=200)


def _run(
    srv: FakeOpenAI, home: Path, cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    return run_cli(
        ["run", "--sandbox", "workspace-write", "--provider", "openai", "--base-url",
         srv.base_url, "--model", "gpt-4o", "--yes", PROMPT],
        home=home,
        cwd=cwd,
        env=env,
    )  # fmt: skip


def test_an_otlp_receiver_gets_task_request_and_tool_spans_without_prompt_text(
    isolated_home: Path, workspace: Path
) -> None:
    replies = [OpenAIReply(text=RUN, usage=USAGE), OpenAIReply(text=DONE, usage=USAGE)]
    with OtlpReceiver() as otlp, FakeOpenAI(replies) as srv:
        env = {"OTEL_EXPORTER_OTLP_ENDPOINT": otlp.endpoint}
        proc = _run(srv, isolated_home, workspace, env)
        assert proc.returncode == 0, proc.stderr
        spans = otlp.spans()
        metrics = otlp.metric_names()
        raw = otlp.raw()
    [task] = [s for s in spans if s.name == "pycline.task"]
    assert task.attributes["pycline.task.completed"] is True
    requests = [s for s in spans if s.name == "chat gpt-4o"]
    assert len(requests) == 2
    for request in requests:
        assert request.parent_span_id == task.span_id and request.trace_id == task.trace_id
        assert request.attributes["gen_ai.request.model"] == "gpt-4o"
        assert request.attributes["gen_ai.usage.input_tokens"] == 1_000
        assert request.attributes["gen_ai.usage.output_tokens"] == 80
        assert request.attributes["pycline.usage.cache_read_tokens"] == 200
        assert request.attributes["pycline.cost_usd"] > 0
    tools = [s for s in spans if s.name == "tool execute_command"]
    assert len(tools) == 1 and tools[0].parent_span_id == task.span_id
    assert tools[0].attributes["pycline.tool.ok"] is True
    assert tools[0].attributes["pycline.tool.duration_ms"] >= 0
    assert {"pycline.tokens", "pycline.cost", "pycline.tool_calls"} <= metrics
    # No prompt or command text was sent.
    assert b"PROMPT-WORDS" not in raw and COMMAND_MARK.encode() not in raw


def test_the_user_may_opt_in_to_prompt_and_command_text(
    isolated_home: Path, workspace: Path
) -> None:
    (isolated_home / "settings").mkdir(parents=True, exist_ok=True)
    replies = [OpenAIReply(text=RUN, usage=USAGE), OpenAIReply(text=DONE, usage=USAGE)]
    with OtlpReceiver() as otlp, FakeOpenAI(replies) as srv:
        settings = {"telemetry": {"enabled": True, "endpoint": otlp.endpoint,
                                  "includeContent": True}}  # fmt: skip
        (isolated_home / "settings" / "settings.json").write_text(json.dumps(settings))
        proc = _run(srv, isolated_home, workspace, {})
        assert proc.returncode == 0, proc.stderr
        spans = otlp.spans()
    [task] = [s for s in spans if s.name == "pycline.task"]
    assert task.attributes["pycline.task.prompt"] == PROMPT
    [tool] = [s for s in spans if s.name == "tool execute_command"]
    assert COMMAND_MARK in tool.attributes["pycline.tool.summary"]


def test_telemetry_is_off_by_default_and_not_imported() -> None:
    code = (
        "import sys, pycline.app.sessions.session, pycline.app.builders.telemetry as t;"
        "from pycline.app.settings.settings_model import TelemetrySettings;"
        "assert not t.wanted(TelemetrySettings());"
        "assert not any(m.startswith('opentelemetry') for m in sys.modules), 'imported'"
    )
    env = {"PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
