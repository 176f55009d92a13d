"""A long task through the real loop, trimmed at many steps: what the model must work from is in
every request after every step — the user's answer, the last error, the end of a kept command
output, the task's checklist and the latest copy of each file the task wrote."""

from __future__ import annotations

import itertools
from pathlib import Path

from pycline.context.manager import TRUNCATION_NOTICE, ContextManager, Prepared
from pycline.context.tokens import estimate_messages, estimate_text
from pycline.core.approval import AutoApprove
from pycline.core.task import TaskSettings
from pycline.events import Answer
from pycline.messages import Message
from pycline.providers.base import ModelInfo
from pycline.providers.scripted import ScriptedReply
from tests.core.harness import RecordingHost, complete, make_task

LIMIT = 8_000
FILLER_TURNS = 90
FEEDBACK = "Keep every public name in English and indent with tabs, please."
ERROR_MARK = "QUOTA-EXCEEDED-7781"
TAIL_MARK = "BUILD-FINISHED-OK-4242"
CHECK_ITEM = "Rename the totals helper"


def _write(path: str, body: str, progress: str = "") -> str:
    extra = f"<task_progress>\n{progress}\n</task_progress>\n" if progress else ""
    return (
        f"Writing.\n<write_to_file>\n<path>{path}</path>\n<content>\n{body}</content>\n"
        f"{extra}</write_to_file>"
    )


def _run(command: str) -> str:
    return (
        f"Running.\n<execute_command>\n<command>{command}</command>\n"
        "<requires_approval>false</requires_approval>\n</execute_command>"
    )


def _app(version: int) -> str:
    return f"APP_VERSION = {version}\n" + "".join(f"def f{i}(): return {i}\n" for i in range(5))


NOTES = "# notes\nremember the quota\n"
BUILD = "for i in $(seq 1 200); do echo compiling unit $i; done; echo " + TAIL_MARK
FAILING = "for i in $(seq 1 120); do echo step $i; done; echo " + ERROR_MARK + " >&2; exit 3"


def _script() -> list[str | ScriptedReply]:
    replies: list[str | ScriptedReply] = [
        _write("app.py", _app(1), progress=f"- [x] Read the task\n- [ ] {CHECK_ITEM}"),
        "Asking.\n<ask_followup_question>\n<question>Any conventions?</question>\n"
        "</ask_followup_question>",
        _run(BUILD),
        _write("notes.md", NOTES),
    ]
    for i in range(FILLER_TURNS):
        if i == 30:
            replies.append(_write("app.py", _app(2)))  # a newer copy: the one that must stay
        elif i == 40:
            replies.append(_run(FAILING))
        else:
            replies.append(f"Reading.\n<read_file>\n<path>data/d{i % 45}.txt</path>\n</read_file>")
    replies.append(complete("done"))
    return replies


class StepLog(ContextManager):
    def __init__(self) -> None:
        super().__init__()
        self.actions: list[str] = []

    def prepare(self, history: list[Message], **kwargs: object) -> Prepared:  # type: ignore[override]
        prepared = super().prepare(history, **kwargs)  # type: ignore[arg-type]
        self.actions.append(prepared.action)
        return prepared


def _text(messages: list[Message]) -> str:
    return "\n".join(m.text for m in messages)


async def test_every_request_after_every_step_keeps_what_the_model_needs(
    isolated_home: Path, workspace: Path
) -> None:
    (workspace / "data").mkdir()
    for k in range(45):
        lines = "".join(f"record {k}.{i}: value {i * k}\n" for i in range(60))
        (workspace / "data" / f"d{k}.txt").write_text(lines, encoding="utf-8")
    settings = TaskSettings(auto_approve=AutoApprove(yolo=True), context_limit=LIMIT)
    log = StepLog()
    host = RecordingHost(answers=[Answer(text=FEEDBACK)])
    task, provider = make_task(
        isolated_home, workspace, _script(), host, settings=settings, context=log
    )
    provider.model_info = ModelInfo(id="scripted", context_window=128_000)
    provider.chunk_size = 4096
    outcome = await task.start("tidy the app and keep notes")
    assert outcome.completed
    assert (workspace / "app.py").read_text(encoding="utf-8") == _app(2)

    requests = provider.requests
    steps = [i for i, action in enumerate(log.actions) if action == "truncate"]
    assert len(steps) >= 3, log.actions  # several steps, each cutting history
    app_v2_written = next(
        i for i, r in enumerate(requests) if "APP_VERSION = 2" in _text(r.messages)
    )
    failed = next(i for i, r in enumerate(requests) if ERROR_MARK in _text(r.messages))
    for i in range(steps[0], len(requests)):
        sent = _text(requests[i].messages)
        assert TRUNCATION_NOTICE in sent, i
        assert FEEDBACK in sent, f"request {i}: the user's answer was dropped"
        assert TAIL_MARK in sent, f"request {i}: the end of the build output was dropped"
        assert CHECK_ITEM in sent, f"request {i}: the checklist was dropped"
        assert NOTES.strip() in sent, f"request {i}: notes.md was dropped"
        latest_app = "APP_VERSION = 2" if i >= app_v2_written else "APP_VERSION = 1"
        assert latest_app in sent, f"request {i}: the latest app.py was dropped"
        if i >= failed:
            assert ERROR_MARK in sent, f"request {i}: the last error was dropped"
    # The notice bounds what it carries: requests stay near the limit.
    for request in requests:
        assert estimate_text(request.system) + estimate_messages(request.messages) < 3 * LIMIT
    # A step is decided on our own count: never two trimming steps in a row.
    assert all(b - a > 1 for a, b in itertools.pairwise(steps)), steps
