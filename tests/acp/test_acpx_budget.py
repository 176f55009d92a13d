"""A turn that reaches the spending cap in an editor (acpx, a real ACP client): the editor is
asked, through `session/request_permission`, to raise the cap or stop, and the turn ends either
way instead of waiting for a cancel."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.acp.harness import COMPLETE, agent_command, script_file
from tests.acp.test_acpx import acpx_bin

LIST = {"tool_calls": [{"name": "list_files", "arguments": {"path": "."}}]}


def _run_acpx(tmp_path: Path, workspace: Path, home: Path, policy: str) -> list[dict[str, Any]]:
    (home / "settings").mkdir(parents=True, exist_ok=True)
    settings = {"toolCallFormat": "native", "maxTaskTokens": 50}
    (home / "settings" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    script = script_file(tmp_path, LIST, LIST, COMPLETE)
    user_home = tmp_path / f"user-home-{policy}"  # acpx keeps its session records under HOME
    user_home.mkdir()
    env = {**os.environ, "HOME": str(user_home), "PYCLINE_HOME": str(home)}
    agent = shlex.join(agent_command(script))
    options = ["--agent", agent, "--cwd", str(workspace), policy, "--format", "json"]
    done = subprocess.run(
        [str(acpx_bin()), *options, "--timeout", "60", "exec", "List the files"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    # acpx exits 5 when it denied a permission request.
    assert done.returncode == (5 if policy == "--deny-all" else 0), done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def _asked(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m["params"] for m in messages if m.get("method") == "session/request_permission"]


def _stop_reason(messages: list[dict[str, Any]]) -> str:
    final = next(m for m in messages if "result" in m and "stopReason" in (m["result"] or {}))
    return str(final["result"]["stopReason"])


def _said(messages: list[dict[str, Any]]) -> str:
    updates = [m["params"]["update"] for m in messages if m.get("method") == "session/update"]
    return "".join(
        u["content"]["text"]
        for u in updates
        if u["sessionUpdate"] in ("agent_message_chunk", "agent_thought_chunk")
    )


@pytest.mark.parametrize("policy", ["--approve-all", "--deny-all"])
def test_an_editor_is_asked_about_the_spending_cap_and_the_turn_ends(
    tmp_path: Path, workspace: Path, isolated_home: Path, policy: str
) -> None:
    messages = _run_acpx(tmp_path, workspace, isolated_home, policy)
    asked = _asked(messages)  # each request spends more than the cap was raised by
    assert asked and len(asked) == (1 if policy == "--deny-all" else len(asked))
    for params in asked:
        assert "Spending cap reached: task budget" in params["toolCall"]["title"]
        assert [o["optionId"] for o in params["options"]] == ["raise", "stop"]
    assert _stop_reason(messages) == "end_turn"
    said = _said(messages)
    assert "task budget" in said  # the spend, shown as it grows
    if policy == "--deny-all":
        assert "Stopped: The task spending cap was reached" in said
        assert "All done." not in said
    else:
        assert "All done." in said
