"""Retries through the real adapters and the task loop, against fake servers on 127.0.0.1:
rate limits honour retry-after, server errors and dropped connections are retried three times
with exponential backoff, auth and quota errors are not, and a failed stream never runs a tool."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from pycline.core.approval import AutoApprove
from pycline.core.task import Task, TaskSettings
from pycline.events import RETRY, Answer, ErrorEvent, ErrorRetryQuestion, Notice, ToolStarted
from pycline.providers.anthropic_provider import AnthropicProvider
from pycline.providers.base import Provider
from pycline.providers.catalog import lookup
from pycline.providers.openai_compat import OpenAIProvider
from pycline.testing import task_for
from tests.cli.test_headless import run_cli
from tests.core.harness import RecordingHost, complete, no
from tests.fakes import anthropic_server as anthropic_fake
from tests.fakes import openai_server as openai_fake
from tests.fakes.anthropic_server import AnthropicReply, FakeAnthropic
from tests.fakes.openai_server import FakeOpenAI, OpenAIReply
from tests.providers.helpers import closed_port

DONE = complete("done")


class Sleeps:
    """Stands in for asyncio.sleep: records each delay, waits for nothing."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


Build = Callable[..., tuple[Task, Sleeps]]


@pytest.fixture
async def build(isolated_home: Path, workspace: Path) -> AsyncIterator[Build]:
    providers: list[Provider] = []

    def make(provider: Provider, host: RecordingHost, **settings: Any) -> tuple[Task, Sleeps]:
        providers.append(provider)
        sleeps = Sleeps()
        task = task_for(
            isolated_home,
            workspace,
            provider,
            host,
            task_text="t",
            settings=TaskSettings(
                auto_approve=AutoApprove(execute_all_commands=True, edit_files=True), **settings
            ),
            sleep=sleeps,
        )
        return task, sleeps

    yield make
    for provider in providers:
        if isinstance(provider, OpenAIProvider | AnthropicProvider):
            await provider.aclose()


def openai_at(url: str, model: str = "gpt-4o") -> OpenAIProvider:
    return OpenAIProvider(api_key="sk-test", model=lookup("openai", model), base_url=url)


def anthropic_at(url: str) -> AnthropicProvider:
    return AnthropicProvider(
        api_key="sk-ant-test", model=lookup("anthropic", "claude-haiku-4-5"), base_url=url
    )


async def test_openai_rate_limit_waits_for_retry_after(build: Build) -> None:
    with FakeOpenAI([openai_fake.rate_limited("7"), DONE]) as srv:
        host = RecordingHost()
        task, sleeps = build(openai_at(srv.base_url), host)
        outcome = await task.start("go")
        assert len(srv.completions) == 2
    assert outcome.completed
    assert sleeps.delays == [7.0]
    notices = [e.text for e in host.events if isinstance(e, Notice)]
    assert any("Rate limit" in n and "retrying in 7s" in n for n in notices)


async def test_anthropic_rate_limit_waits_for_retry_after(build: Build) -> None:
    with FakeAnthropic([anthropic_fake.rate_limited("3"), DONE]) as srv:
        task, sleeps = build(anthropic_at(srv.base_url), RecordingHost())
        assert (await task.start("go")).completed
        assert len(srv.messages) == 2
    assert sleeps.delays == [3.0]


async def test_server_errors_are_retried_three_times_with_backoff(build: Build) -> None:
    errors = [
        anthropic_fake.overloaded(),
        anthropic_fake.server_error(),
        anthropic_fake.overloaded(),
    ]
    with FakeAnthropic([*errors, DONE]) as srv:
        task, sleeps = build(anthropic_at(srv.base_url), RecordingHost(), retry_base_delay=1.0)
        assert (await task.start("go")).completed
        assert len(srv.messages) == 4
    assert sleeps.delays == [1.0, 2.0, 4.0]


async def test_after_three_retries_the_user_is_asked_and_may_retry(build: Build) -> None:
    errors = [openai_fake.server_error()] * 4
    host = RecordingHost(answers=[Answer(RETRY.id)])
    with FakeOpenAI([*errors, DONE]) as srv:
        task, sleeps = build(openai_at(srv.base_url), host)
        assert (await task.start("go")).completed
        assert len(srv.completions) == 5
    assert sleeps.delays == [1.0, 2.0, 4.0]
    (question,) = [q for q in host.questions if isinstance(q, ErrorRetryQuestion)]
    assert "Server error" in question.error


async def test_giving_up_after_retries_ends_the_task_with_the_error(build: Build) -> None:
    host = RecordingHost(default=no)
    with FakeOpenAI([openai_fake.server_error()] * 4) as srv:
        task, sleeps = build(openai_at(srv.base_url), host)
        outcome = await task.start("go")
    assert not outcome.completed
    assert "Server error" in outcome.reason
    assert len(sleeps.delays) == 3
    assert task.record.status == "failed"


@pytest.mark.parametrize(
    "error",
    [openai_fake.unauthorized(), openai_fake.out_of_quota(), openai_fake.model_not_found("x")],
)
async def test_auth_quota_and_not_found_are_not_retried(
    build: Build, error: openai_fake.OpenAIError
) -> None:
    host = RecordingHost(default=no)
    with FakeOpenAI([error]) as srv:
        task, sleeps = build(openai_at(srv.base_url), host)
        outcome = await task.start("go")
        assert len(srv.completions) == 1
    assert not outcome.completed
    assert sleeps.delays == []
    assert [type(q) for q in host.questions] == [ErrorRetryQuestion]
    assert any(isinstance(e, ErrorEvent) for e in host.events)


async def test_an_unreachable_server_is_retried_then_reported(build: Build) -> None:
    host = RecordingHost(default=no)
    task, sleeps = build(openai_at(f"http://127.0.0.1:{closed_port()}/v1"), host)
    outcome = await task.start("go")
    assert not outcome.completed
    assert sleeps.delays == [1.0, 2.0, 4.0]
    assert "Cannot reach" in outcome.reason


async def test_a_dropped_stream_never_runs_its_tool_twice(build: Build, workspace: Path) -> None:
    command = f"{sys.executable} -c \"open('log.txt', 'a').write('ran\\n')\""
    tool = (
        f"Running it.\n<execute_command>\n<command>{command}</command>\n"
        "<requires_approval>true</requires_approval>\n</execute_command>"
    )
    host = RecordingHost()
    with FakeOpenAI(
        [OpenAIReply(text=tool, cut_off=True), OpenAIReply(text=tool, cut_off=True), tool, DONE]
    ) as srv:
        task, sleeps = build(openai_at(srv.base_url), host)
        assert (await task.start("log it")).completed
        assert len(srv.completions) == 4
    assert (workspace / "log.txt").read_text(encoding="utf-8") == "ran\n"
    assert len([e for e in host.events if isinstance(e, ToolStarted)]) == 2  # command, completion
    assert sleeps.delays == [1.0, 2.0]
    notices = [e.text for e in host.events if isinstance(e, Notice)]
    # The user is told the partial reply was dropped, with how much had arrived.
    assert sum("interrupted after" in n for n in notices) == 2
    assert any("cut off" in n for n in notices)


async def test_a_cut_off_anthropic_reply_is_retried(build: Build) -> None:
    with FakeAnthropic([AnthropicReply(text="Let me", cut_off=True), DONE]) as srv:
        host = RecordingHost()
        task, sleeps = build(anthropic_at(srv.base_url), host)
        assert (await task.start("go")).completed
    assert sleeps.delays == [1.0]
    assert task.history[1].text.startswith("<attempt_completion>")  # the partial is not kept


def test_headless_run_stops_with_the_error_after_retries(
    isolated_home: Path, workspace: Path
) -> None:
    settings = isolated_home / "settings" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"retryBaseDelay": 0}), encoding="utf-8")
    with FakeOpenAI([openai_fake.server_error()] * 4) as srv:
        proc = run_cli(
            ["run", "--provider", "openai", "--base-url", srv.base_url, "--model", "gpt-4o",
             "--api-key", "sk-x", "go"],
            home=isolated_home,
            cwd=workspace,
        )  # fmt: skip
        assert len(srv.completions) == 4
    assert proc.returncode != 0
    assert "Server error" in proc.stderr + proc.stdout
    assert "attempt 3 of 3" in proc.stderr + proc.stdout
