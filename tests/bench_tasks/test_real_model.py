"""bench/real_model.py end to end on a stand-in model: a loopback OpenAI server playing a
task's right answers through the bench's recording proxy, pycline driving it, the hidden check
judging it; and the failure classes read from what a model and an agent did. (The real model
and the Cline CLI are too big for CI: the bench itself is run by hand, see its docstring.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAI, OpenAIReply, OpenAIUsage

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH / "tasks"))

from run import load_suite, oracle_replies  # noqa: E402

import real_model  # noqa: E402
from model_proxy import Recording, Turn  # noqa: E402

MODEL = "qwen2.5-coder-1.5b-instruct-q4_k_m"


def test_a_task_solved_through_the_proxy_is_counted_and_judged(tmp_path: Path) -> None:
    task = load_suite(["py-median-even"])[0]
    usage = OpenAIUsage(prompt_tokens=1000, completion_tokens=50)
    # The right edit, a check of it (double-check completion, on for a small model, sends an
    # unchecked completion back), then the completion.
    check = (
        "<execute_command>\n<command>python3 -c 'import inventory.stats'</command>\n"
        "<requires_approval>false</requires_approval>\n</execute_command>"
    )
    edit, done_ = oracle_replies(task)
    replies = [OpenAIReply(text=r, usage=usage) for r in (edit, check, done_)]
    saved = tmp_path / "results.json"
    with FakeOpenAI(replies, models=(MODEL,)) as server:
        done = subprocess.run(
            [sys.executable, str(BENCH / "real_model.py"), "--base-url", server.base_url,
             "--agents", "pycline", "--only", "py-median-even", "--turns", "5", "--wall", "300",
             "--save", str(saved), "--markdown", str(tmp_path / "table.md"),
             "--out", str(tmp_path / "out")],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    [result] = json.loads(saved.read_text())
    assert result["solved"] is True and result["failure"] is None
    assert result["turns"] == len(replies)
    assert result["tokens_in"] == 1000 * len(replies) and result["tokens_out"] == 50 * len(replies)
    assert result["changed"] == ["inventory/stats.py"]
    table = (tmp_path / "table.md").read_text()
    assert "| py-median-even | pycline | yes | 3 |" in table and "run took" in table


def _recording(*turns: Turn, capped: bool = False) -> Recording:
    return Recording(cap=len(turns), turns=list(turns), capped=capped)


def _result(changed: list[str], code: int = 0) -> real_model.Result:
    return real_model.Result("t", "pycline", changed=changed, exit_code=code, turns=3)


def test_failures_are_told_apart() -> None:
    call = ("read_files", '{"files": [{"path": "a.py"}]}')
    error = "[ERROR] You did not use a tool in your previous response!"
    loop = _recording(*(Turn(calls=[call]) for _ in range(3)))
    assert (
        real_model.classify("cline", loop, _result([]), '"run_result"', walled=False)[0] == "loop"
    )
    bad = _recording(Turn(text="I will fix it."), Turn(text="ok", last_message=error),
                     Turn(text="done", last_message=error), capped=True)  # fmt: skip
    assert real_model.classify("pycline", bad, _result([], 1), "", walled=False)[0] == "malformed"
    quiet = _recording(Turn(text="<attempt_completion>"))
    assert real_model.classify("pycline", quiet, _result([]), "", walled=False)[0] == "gave up"
    wrong = _recording(Turn(calls=[("apply_patch", "{}")]))
    out = '{"type":"run_result","finishReason":"completed"}'
    kind, detail = real_model.classify("cline", wrong, _result(["a.py"]), out, walled=False)
    assert kind == "wrong edit" and "a.py" in detail
    assert real_model.classify("pycline", wrong, _result(["a.py"]), "", walled=True)[0] == "cap"
    crash = "Traceback (most recent call last):\n  File x\nKeyError: 1"
    assert real_model.classify("pycline", wrong, _result([], 2), crash, walled=False)[0] == "crash"
    assert real_model.classify("cline", wrong, _result([], 1), "boom", walled=False)[0] == "crash"
