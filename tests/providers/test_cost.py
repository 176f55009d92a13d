"""Cost per request and per task: the adapters normalise usage (input excludes cached tokens for
every vendor), the catalogue prices it, the task adds it up and keeps it in its history record."""

from __future__ import annotations

from pathlib import Path

import pytest

from pycline.core.task import Task
from pycline.events import Usage
from pycline.providers.anthropic_provider import AnthropicProvider
from pycline.providers.base import ModelInfo, Provider, UsageChunk
from pycline.providers.catalog import lookup
from pycline.providers.openai_compat import OpenAIProvider
from pycline.storage.task_store import TaskStore
from pycline.testing import task_for
from tests.core.harness import RecordingHost, complete
from tests.fakes.anthropic_server import AnthropicReply, AnthropicUsage, FakeAnthropic
from tests.fakes.openai_server import FakeOpenAI, OpenAIReply, OpenAIUsage

READ = "<list_files>\n<path>.</path>\n</list_files>"


def test_cost_prices_each_kind_of_token_per_million() -> None:
    info = ModelInfo(
        id="m", input_price=3.0, output_price=15.0, cache_write_price=3.75, cache_read_price=0.3
    )
    usage = UsageChunk(
        input_tokens=1_000_000,
        output_tokens=100_000,
        cache_write_tokens=200_000,
        cache_read_tokens=2_000_000,
    )
    assert info.cost(usage) == pytest.approx(3.0 + 1.5 + 0.75 + 0.6)
    assert info.cost(UsageChunk(input_tokens=10, cost=0.5)) == 0.5  # a reported cost wins


def make_task(home: Path, workspace: Path, provider: Provider, host: RecordingHost) -> Task:
    return task_for(home, workspace, provider, host, task_text="cost")


async def test_openai_cached_tokens_are_priced_as_cache_reads_and_summed(
    isolated_home: Path, workspace: Path
) -> None:
    replies = [
        OpenAIReply(text=READ, usage=OpenAIUsage(10_000, 200, cached_tokens=0)),
        OpenAIReply(text=complete(), usage=OpenAIUsage(12_000, 100, cached_tokens=9_000)),
    ]
    host = RecordingHost()
    with FakeOpenAI(replies) as srv:
        provider = OpenAIProvider(
            api_key="k", model=lookup("openai", "gpt-4o"), base_url=srv.base_url
        )
        task = make_task(isolated_home, workspace, provider, host)
        assert (await task.start("cost")).completed
        await provider.aclose()
    first, second = [e for e in host.events if isinstance(e, Usage)]
    # gpt-4o: $2.50 in, $10 out, $1.25 cached input (per million)
    assert first.cost == pytest.approx((10_000 * 2.5 + 200 * 10) / 1e6)
    assert (second.input_tokens, second.cache_read_tokens) == (3_000, 9_000)
    assert second.cost == pytest.approx((3_000 * 2.5 + 100 * 10 + 9_000 * 1.25) / 1e6)
    assert second.task_cost == pytest.approx(first.cost + second.cost)
    assert second.context_tokens == 12_100 and second.context_window == 128_000
    record = task.record
    assert (record.tokens_in, record.tokens_out, record.cache_reads) == (13_000, 300, 9_000)
    assert record.total_cost == pytest.approx(second.task_cost)
    stored = TaskStore(isolated_home).index.get(task.id)
    assert stored is not None and stored.total_cost == pytest.approx(record.total_cost)
    assert stored.cache_reads == 9_000


async def test_anthropic_cache_writes_and_reads_are_priced_separately(
    isolated_home: Path, workspace: Path
) -> None:
    usage = AnthropicUsage(
        input_tokens=50, output_tokens=400, cache_creation_input_tokens=8_000,
        cache_read_input_tokens=20_000,
    )  # fmt: skip
    host = RecordingHost()
    with FakeAnthropic([AnthropicReply(text=complete(), usage=usage)]) as srv:
        provider = AnthropicProvider(
            api_key="k", model=lookup("anthropic", "claude-sonnet-4-6"), base_url=srv.base_url
        )
        task = make_task(isolated_home, workspace, provider, host)
        assert (await task.start("cost")).completed
        await provider.aclose()
    (event,) = [e for e in host.events if isinstance(e, Usage)]
    assert (event.input_tokens, event.cache_write_tokens, event.cache_read_tokens) == (
        50,
        8_000,
        20_000,
    )
    expected = (50 * 3 + 400 * 15 + 8_000 * 3.75 + 20_000 * 0.3) / 1e6
    assert event.cost == pytest.approx(expected)
    assert event.context_tokens == 28_450
    assert task.record.cache_writes == 8_000
    assert task.record.total_cost == pytest.approx(expected)


USAGE = Usage(1_200, 80, 500, 9_000, 0.01234, 0.05678, 10_780, 200_000)


def test_headless_shows_request_and_task_cost_with_cache_tokens() -> None:
    import io

    from pycline.cli.headless import HeadlessHost

    out = io.StringIO()
    HeadlessHost(json_mode=False, out=out).say(USAGE)
    line = out.getvalue()
    assert "1200 in / 80 out" in line and "cache 9000 read / 500 write" in line
    assert "$0.0123" in line and "task $0.0568" in line


def test_interactive_shows_request_and_task_cost_with_cache_tokens(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import os

    from pycline.cli.interactive import InteractiveHost
    from pycline.cli.lines import LineReader

    read_fd, write_fd = os.pipe()
    os.close(write_fd)
    try:
        InteractiveHost(LineReader(read_fd)).say(USAGE)
    finally:
        os.close(read_fd)
    line = capsys.readouterr().out
    assert "↑1200 ↓80" in line and "cache 9000 read / 500 write" in line
    assert "$0.0123" in line and "task $0.0568" in line and "10,780/200,000" in line
