"""A reply that reaches the output limit, through the real OpenAI adapter and the task loop: what
arrived is kept, a tool call it cut short never runs (no half-written file), the same request is
not sent again, and the model is told plainly to be shorter."""

from __future__ import annotations

from pathlib import Path

from pycline.core.approval import AutoApprove
from pycline.core.task import TaskSettings
from pycline.events import Notice
from pycline.providers.base import ModelInfo
from pycline.providers.openai_compat import OpenAIProvider
from pycline.testing import task_for
from tests.core.harness import RecordingHost, complete
from tests.fakes.openai_server import FakeOpenAI, OpenAIReply

SMALL = ModelInfo("qwen2.5-coder-1.5b", context_window=32_768, max_output_tokens=2_048, local=True)


def last_user_text(body: dict[str, object]) -> str:
    messages = body["messages"]
    assert isinstance(messages, list)
    content = messages[-1]["content"]
    return content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)


async def run(
    isolated_home: Path, workspace: Path, first: OpenAIReply
) -> tuple[FakeOpenAI, RecordingHost]:
    delays: list[float] = []

    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    host = RecordingHost()
    with FakeOpenAI([first, complete("done")]) as server:
        provider = OpenAIProvider(api_key="k", model=SMALL, base_url=server.base_url)
        task = task_for(
            isolated_home, workspace, provider, host, task_text="t",
            settings=TaskSettings(auto_approve=AutoApprove(edit_files=True)), sleep=sleep,
        )  # fmt: skip
        outcome = await task.start("write a.py")
        await provider.aclose()
    assert outcome.completed
    assert delays == []  # not retried: the same request would write the same reply
    return server, host


async def test_a_write_cut_short_by_the_output_limit_never_reaches_the_file(
    isolated_home: Path, workspace: Path
) -> None:
    cut = OpenAIReply(
        text="Writing it.\n<write_to_file>\n<path>a.py</path>\n<content>\ndef f():\n    return (",
        finish_reason="length",
    )
    server, host = await run(isolated_home, workspace, cut)
    assert not (workspace / "a.py").exists()
    first, second = server.completions
    assert first.body["max_completion_tokens"] == 2_048
    feedback = last_user_text(second.body)
    assert "output limit of 2,048 tokens" in feedback and "nothing in it was run" in feedback
    assert any("output limit" in e.text for e in host.events if isinstance(e, Notice))


async def test_a_rambling_reply_stopped_at_the_limit_is_answered_with_the_limit(
    isolated_home: Path, workspace: Path
) -> None:
    ramble = OpenAIReply(text="Let me think about this. " * 40, finish_reason="length")
    server, _ = await run(isolated_home, workspace, ramble)
    assert len(server.completions) == 2
    assert "output limit" in last_user_text(server.completions[1].body)
