"""`fallbackModels`: a task whose model keeps failing moves on to the next model the user listed.

Through the real front end: `pycline run` as a subprocess, the OpenAI adapter talking to a local
fake server that answers every request for the first model with 429 or 503.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_headless import run_cli
from tests.fakes.openai_server import FakeOpenAI, OpenAIError, OpenAIReply, OpenAIUsage
from tests.fakes.server import Planned, RecordedRequest

WRITE = "<write_to_file>\n<path>notes.txt</path>\n<content>\nnotes\n</content>\n</write_to_file>"
DONE = "<attempt_completion>\n<result>Done by the second model.</result>\n</attempt_completion>"


class DownForOneModel(FakeOpenAI):
    """After answering `answered` requests, answers every request for `down` with `error`;
    the others from the script."""

    def __init__(
        self, down: str, error: OpenAIError, replies: list[Any], *, answered: int = 0
    ) -> None:
        super().__init__(replies)
        self.down, self.error, self.answered = down, error, answered

    def _respond(self, request: RecordedRequest) -> Planned:
        body = request.body if isinstance(request.body, dict) else {}
        if request.method == "POST" and body.get("model") == self.down:
            if self.answered <= 0:
                return Planned(status=self.error.status, json_body=self.error.body())
            self.answered -= 1
        return super()._respond(request)


def _settings(home: Path, data: dict[str, Any]) -> None:
    folder = home / "settings"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").write_text(json.dumps(data), encoding="utf-8")


def _run(srv: FakeOpenAI, home: Path, cwd: Path, *extra: str) -> Any:
    return run_cli(
        ["run", "--sandbox", "workspace-write", "--provider", "openai", "--base-url",
         srv.base_url, "--model", "gpt-4o", "--yes", *extra, "do the thing"],
        home=home,
        cwd=cwd,
    )  # fmt: skip


@pytest.mark.parametrize(
    "error",
    [
        OpenAIError(429, "Rate limit reached", type="rate_limit_error", code="rate_limit_exceeded"),
        OpenAIError(503, "The server is overloaded", type="server_error"),
    ],
    ids=["429", "503"],
)
def test_a_model_that_keeps_failing_hands_the_task_to_the_next_listed_model(
    isolated_home: Path, workspace: Path, error: OpenAIError
) -> None:
    _settings(
        isolated_home,
        {"fallbackModels": ["gpt-4o-mini"], "maxRetries": 1, "retryBaseDelay": 0},
    )
    usage = OpenAIUsage(prompt_tokens=1_000, completion_tokens=100)
    replies = [OpenAIReply(text=WRITE, usage=usage), OpenAIReply(text=DONE, usage=usage)]
    with DownForOneModel("gpt-4o", error, replies, answered=1) as srv:
        proc = _run(srv, isolated_home, workspace, "--json")
        asked = [r.body["model"] for r in srv.completions]
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "notes.txt").is_file()
    # An answer, a failure and its retry, then the move.
    assert asked == ["gpt-4o", "gpt-4o", "gpt-4o", "gpt-4o-mini"]
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    notices = [e["text"] for e in events if e["kind"] == "notice"]
    assert any("moving to the fallback model openai/gpt-4o-mini" in n for n in notices)
    assert any(e["kind"] == "mode_changed" and e["model"] == "openai/gpt-4o-mini" for e in events)
    # The event log keeps the move too.
    [task] = [p for p in (isolated_home / "tasks").iterdir() if p.is_dir()]
    log = "".join(p.read_text(encoding="utf-8") for p in task.glob("*.jsonl"))
    assert "moving to the fallback model" in log
    shown = run_cli(["show", task.name, "--json"], home=isolated_home, cwd=workspace)
    record = json.loads(shown.stdout)["record"]
    costs = record["model_costs"]
    assert set(costs) == {"openai/gpt-4o", "openai/gpt-4o-mini"}
    assert costs["openai/gpt-4o"] > costs["openai/gpt-4o-mini"] > 0  # each at its own prices
    assert abs(sum(costs.values()) - record["total_cost"]) < 1e-9
    assert record["model"] == "gpt-4o-mini"


def test_without_a_listed_fallback_the_task_stops_as_before(
    isolated_home: Path, workspace: Path
) -> None:
    _settings(isolated_home, {"maxRetries": 1, "retryBaseDelay": 0})
    error = OpenAIError(503, "The server is overloaded", type="server_error")
    with DownForOneModel("gpt-4o", error, [DONE]) as srv:
        proc = _run(srv, isolated_home, workspace)
        asked = [r.body["model"] for r in srv.completions]
    assert proc.returncode == 1
    assert set(asked) == {"gpt-4o"}  # never a model the user did not list
