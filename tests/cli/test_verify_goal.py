"""`pycline run --verify CMD`: a model that claims completion is held to the user's check.

Through the real front end: `pycline run` as a subprocess, the OpenAI adapter streaming from a
local fake server, the check run in the bubblewrap sandbox in the workspace.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_headless import run_cli
from tests.fakes.openai_server import FakeOpenAI

DONE = "<attempt_completion>\n<result>All done.</result>\n</attempt_completion>"
CHECK = "test -f ok.txt && echo checked-$((6*7)) || { echo missing-$((6*7)); exit 3; }"


def write(path: str, text: str) -> str:
    return f"<write_to_file>\n<path>{path}</path>\n<content>\n{text}\n</content>\n</write_to_file>"


def _run(srv: FakeOpenAI, home: Path, cwd: Path, *extra: str) -> tuple[int, str, str]:
    proc = run_cli(
        ["run", "--sandbox", "workspace-write", "--provider", "openai", "--base-url",
         srv.base_url, "--model", "tiny", "--yes", *extra, "make the check pass"],
        home=home,
        cwd=cwd,
    )  # fmt: skip
    return proc.returncode, proc.stdout, proc.stderr


def _user_text(body: dict[str, object]) -> str:
    messages = body["messages"]
    assert isinstance(messages, list)
    content = messages[-1]["content"]
    return content if isinstance(content, str) else " ".join(c["text"] for c in content)


def test_a_claimed_completion_is_sent_the_failing_check_until_the_check_passes(
    isolated_home: Path, workspace: Path
) -> None:
    with FakeOpenAI([DONE, write("ok.txt", "fine"), DONE]) as srv:
        code, out, err = _run(srv, isolated_home, workspace, "--verify", CHECK)
        requests = srv.completions
    assert code == 0, err
    assert len(requests) == 3
    # The first claim was answered with the check's exit code and the tail of its output.
    after_claim = _user_text(requests[1].body)
    assert "failed (exit code 3)" in after_claim and "missing-42" in after_claim
    assert "attempt_completion" in after_claim
    # The terminal showed the check and its result, both times.
    assert out.count(f"verify_goal {CHECK}") >= 2
    assert "missing-42" in out and "checked-42" in out


def test_a_run_that_exhausts_its_verification_attempts_exits_unverified(
    isolated_home: Path, workspace: Path
) -> None:
    with FakeOpenAI([DONE, DONE]) as srv:
        code, out, err = _run(
            srv, isolated_home, workspace, "--verify", CHECK, "--max-verify", "2", "--json"
        )
        requests = srv.completions
    assert code == 5, err
    assert len(requests) == 2
    assert "unverified" in err
    events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    checks = [e for e in events if e.get("kind") == "tool_finished" and e["tool"] == "verify_goal"]
    assert [c["ok"] for c in checks] == [False, False]
    ended = next(e for e in events if e.get("kind") == "task_ended")
    assert ended["completed"] is False and ended["reason"].startswith("unverified")


def test_the_check_runs_inside_the_sandbox(isolated_home: Path, workspace: Path) -> None:
    outside = workspace.parent / "outside.txt"
    check = f"echo x > {outside}; test -f ok.txt"
    with FakeOpenAI([write("ok.txt", "fine"), DONE]) as srv:
        code, _, err = _run(srv, isolated_home, workspace, "--verify", check)
    assert code == 0, err
    assert not outside.exists()  # the workspace-write sandbox kept the check's write out


def test_a_resumed_task_keeps_its_goal(isolated_home: Path, workspace: Path) -> None:
    with FakeOpenAI([DONE]) as srv:
        code, _, err = _run(srv, isolated_home, workspace, "--verify", CHECK, "--max-verify", "1")
    assert code == 5, err
    (workspace / "ok.txt").write_text("made by hand\n", encoding="utf-8")
    with FakeOpenAI([DONE]) as srv:
        proc = run_cli(
            ["resume", "--headless", "--yes", "--sandbox", "workspace-write", "--provider",
             "openai", "--base-url", srv.base_url, "--model", "tiny"],
            home=isolated_home,
            cwd=workspace,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "checked-42" in proc.stdout  # the resumed run verified its completion too


def test_max_verify_needs_a_goal(isolated_home: Path, workspace: Path) -> None:
    proc = run_cli(
        ["run", "--provider", "scripted", "--max-verify", "2", "x"],
        home=isolated_home,
        cwd=workspace,
    )
    assert proc.returncode == 2
    assert "--max-verify needs --verify" in proc.stderr
