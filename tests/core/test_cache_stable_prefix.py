"""What is sent keeps the provider's cached prefix: each request repeats the previous one.

Providers bill a repeated prompt prefix at about a tenth; a change to an old message makes all
that follows it full price again. Through the real loop, a long task of re-reads, new files,
commands and searches: every request starts with the previous request's messages, byte for byte,
except at the context manager's deliberate steps, which are few, and the context stays bounded.
"""

from __future__ import annotations

from pathlib import Path

from pycline.context.manager import ContextManager, Prepared
from pycline.context.tokens import estimate_messages, estimate_text
from pycline.core.approval import AutoApprove
from pycline.core.task import TaskSettings
from pycline.messages import Message
from pycline.providers.base import ModelInfo
from pycline.providers.convert import to_openai
from pycline.providers.scripted import ScriptedReply
from tests.core.harness import RecordingHost, complete, make_task

TURNS = 300
LIMIT = 12_000


class StepLog(ContextManager):
    def __init__(self) -> None:
        super().__init__()
        self.stepped: list[bool] = []

    def prepare(self, history: list[Message], **kwargs: object) -> Prepared:  # type: ignore[override]
        prepared = super().prepare(history, **kwargs)  # type: ignore[arg-type]
        self.stepped.append(prepared.stepped)
        return prepared


def _reply(turn: int) -> str:
    match turn % 4:
        case 0:
            path = f"src/m{turn // 4 % 5}.py"
            return f"Reading.\n<read_file>\n<path>{path}</path>\n</read_file>"
        case 1:
            body = "".join(f"note {turn} line {i}\n" for i in range(12))
            path = f"notes/n{turn}.md"
            return f"Noting.\n<write_to_file>\n<path>{path}</path>\n<content>\n{body}</content>\n</write_to_file>"
        case 2:
            command = f"printf 'run {turn} %s\\n' a b c d e f g h"
            return (
                f"Running.\n<execute_command>\n<command>{command}</command>\n"
                "<requires_approval>false</requires_approval>\n</execute_command>"
            )
        case _:
            return f"Searching.\n<search_files>\n<path>src</path>\n<regex>m{turn % 5}</regex>\n</search_files>"


async def test_each_request_repeats_the_previous_one_except_at_a_few_steps(
    isolated_home: Path, workspace: Path
) -> None:
    (workspace / "src").mkdir()
    (workspace / "notes").mkdir()
    for k in range(5):
        text = f"# module m{k}\n" + "".join(f"def f{k}_{i}(): return {i}\n" for i in range(60))
        (workspace / "src" / f"m{k}.py").write_text(text, encoding="utf-8")
    replies: list[str | ScriptedReply] = [_reply(t) for t in range(TURNS)]
    replies.append(complete("all done"))
    settings = TaskSettings(auto_approve=AutoApprove(yolo=True), context_limit=LIMIT)
    task, provider = make_task(isolated_home, workspace, replies, RecordingHost(),
                               settings=settings)  # fmt: skip
    log = StepLog()
    task.context = log
    provider.model_info = ModelInfo(id="scripted", context_window=128_000)
    provider.chunk_size = 4096
    outcome = await task.start("take notes on the modules")
    assert outcome.completed
    requests = provider.requests
    assert len(requests) == len(log.stepped) == TURNS + 1
    for i in range(1, len(requests)):
        before, now = requests[i - 1], requests[i]
        if log.stepped[i]:
            continue
        assert now.system == before.system
        assert now.messages[: len(before.messages)] == before.messages, f"request {i}"
        # What goes on the wire repeats too (the prefix the provider caches).
        wire_before = to_openai(before.system, before.messages)
        assert to_openai(now.system, now.messages)[: len(wire_before)] == wire_before
    steps = sum(log.stepped[1:])
    assert 2 <= steps <= TURNS // 15, steps
    for request in requests:
        size = estimate_text(request.system) + estimate_messages(request.messages)
        assert size < 2 * LIMIT
        assert request.messages[0].text.startswith("<task>\ntake notes on the modules\n</task>")
