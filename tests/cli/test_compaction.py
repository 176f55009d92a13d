"""Auto-condense through `pycline run`: Cline's summarize_task reply, its Required Files read
back in, the PreCompact hook around it; and the Notification hook on questions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_agent_features import DONE, _history, _hook, _run, _texts
from tests.cli.test_headless import run_cli

BIG = {"input_tokens": 160_000, "output_tokens": 10}  # past 0.75 of the scripted 200k window
SUMMARY = (
    "1. Primary Request and Intent: read a.txt.\n7. Current Work: reading.\n"
    "9. Required Files:\n- a.txt\n- b.txt"
)
SUMMARIZE = {
    "tool_calls": [
        {
            "name": "summarize_task",
            "arguments": {"context": SUMMARY, "task_progress": "- [x] read a.txt\n- [ ] report"},
        }
    ]
}
CAPTURE = (
    "data = json.load(sys.stdin)\n"
    "open(data['hookName'] + '.json', 'a').write(json.dumps(data) + '\\n')\n"
)


def _payloads(workspace: Path, name: str) -> list[dict[str, Any]]:
    path = workspace / f"{name}.json"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("fmt", ["xml", "native"])
def test_use_auto_condense_summarizes_rereads_required_files_and_runs_pre_compact(
    isolated_home: Path, workspace: Path, fmt: str
) -> None:
    (workspace / "a.txt").write_text("alpha\n", encoding="utf-8")
    (workspace / "b.txt").write_text("beta\n", encoding="utf-8")
    _hook(
        isolated_home / "hooks",
        "PreCompact",
        CAPTURE + "print(json.dumps({'contextModification': 'Keep the tests green.'}))",
    )
    read = {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}], "usage": BIG}
    proc = _run(
        isolated_home, workspace, [read, SUMMARIZE, DONE], "read a.txt", fmt=fmt,
        settings={"useAutoCondense": True},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    history = _history(isolated_home)
    first, summary = _texts(history[0]), _texts(history[1])
    assert first.startswith("<task>\nread a.txt\n</task>")
    assert '<file_content path="a.txt">\nalpha\n' in first
    assert '<file_content path="b.txt">\nbeta\n' in first
    assert "9. Required Files:\n- a.txt" in summary
    assert '<hook_context source="PreCompact">\nKeep the tests green.' in summary
    (payload,) = _payloads(workspace, "PreCompact")
    assert payload["preCompact"]["compactionStrategy"] == "auto-condense"
    assert payload["preCompact"]["tokensIn"] >= 160_000
    (task,) = (isolated_home / "tasks").iterdir()
    saved = (task / f"focus_chain_taskid_{task.name}.md").read_text(encoding="utf-8")
    assert "- [x] read a.txt\n- [ ] report" in saved


def test_required_files_are_not_read_when_reads_need_approval(
    isolated_home: Path, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n", encoding="utf-8")
    chat = {"text": "Let me think.", "usage": BIG}
    proc = _run(
        isolated_home, workspace, [chat, SUMMARIZE, DONE], "x",
        settings={"useAutoCondense": True, "autoApprove": {"readFiles": False}}, yes=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    history = _history(isolated_home)
    assert "<file_content" not in _texts(history[0])
    assert "9. Required Files:\n- a.txt" in _texts(history[1])


def test_a_pre_compact_cancel_keeps_the_history_and_the_task_goes_on(
    isolated_home: Path, workspace: Path
) -> None:
    _hook(isolated_home / "hooks", "PreCompact", "print(json.dumps({'cancel': True}))")
    chat = {"text": "Let me think.", "usage": BIG}
    proc = _run(isolated_home, workspace, [chat, DONE], "x", settings={"useAutoCondense": True})
    assert proc.returncode == 0, proc.stderr
    assert "PreCompact hook stopped this compaction" in proc.stdout
    history = _history(isolated_home)
    assert len(history) == 4 and "Let me think." in _texts(history[1])


def test_the_model_may_finish_instead_of_summarizing(isolated_home: Path, workspace: Path) -> None:
    chat = {"text": "Let me think.", "usage": BIG}
    finish = {"tool_calls": [{"name": "attempt_completion", "arguments": {"result": "All done."}}]}
    proc = _run(isolated_home, workspace, [chat, finish], "x", settings={"useAutoCondense": True})
    assert proc.returncode == 0, proc.stderr
    assert "All done." in proc.stdout
    history = _history(isolated_home)
    assert "Let me think." in _texts(history[1])  # nothing was condensed


def test_notification_hook_runs_on_questions_and_on_completion(
    isolated_home: Path, workspace: Path
) -> None:
    # A project's hook: it runs once the user trusts it.
    _hook(workspace / ".clinerules" / "hooks", "Notification", CAPTURE + "print('not json')")
    ask = {"tool_calls": [{"name": "ask_followup_question", "arguments": {"question": "Which?"}}]}
    proc = _run(isolated_home, workspace, [ask, DONE], "x")
    assert proc.returncode == 0, proc.stderr
    assert "hooks (Notification) were not run" in proc.stdout
    assert _payloads(workspace, "Notification") == []
    trust = run_cli(["hooks", "trust"], home=isolated_home, cwd=workspace)
    assert trust.returncode == 0, trust.stderr
    proc = _run(isolated_home, workspace, [ask, DONE], "x")
    assert proc.returncode == 0, proc.stderr
    # The hooks run beside the questions, so they may finish in either order.
    events = sorted(
        (p["notification"] for p in _payloads(workspace, "Notification")),
        key=lambda e: e["eventId"],
    )
    assert [(e["event"], e["source"], e["message"]) for e in events] == [
        ("user_attention", "followup", "Which?"),
        ("task_complete", "completion", "done"),
    ]
    assert all(e["eventVersion"] == "1" and e["severity"] == "info" for e in events)


def test_pre_compact_runs_before_an_overflow_trim(isolated_home: Path, workspace: Path) -> None:
    _hook(isolated_home / "hooks", "PreCompact", CAPTURE)
    for name in "abcdef":
        (workspace / f"{name}.txt").write_text(name * 10, encoding="utf-8")
    reads = [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": f"{name}.txt"}}]}
        for name in "abcdef"
    ]
    overflow = {"error": {"kind": "context_overflow", "message": "too long", "status": 400}}
    proc = _run(isolated_home, workspace, [*reads, overflow, DONE], "read them all")
    assert proc.returncode == 0, proc.stderr
    assert "older history was trimmed" in proc.stdout
    (payload,) = _payloads(workspace, "PreCompact")
    assert payload["preCompact"]["compactionStrategy"] == "standard-truncation-lastquarter"
