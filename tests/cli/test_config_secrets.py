"""API keys end to end: `pycline auth` hides what is typed, and a key never leaves the store."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pexpect

from pycline.app.settings.secrets import SecretStore
from tests.cli.test_headless import run_cli
from tests.fakes.openai_server import FakeOpenAI

CANARY = "sk-pycline-CANARY-7f3a9c1e5b"  # distinctive: any copy of it is found by a byte search

WRITE = "<write_to_file>\n<path>notes.txt</path>\n<content>\nhello\n</content>\n</write_to_file>"
COMPLETE = "<attempt_completion>\n<result>Done.</result>\n</attempt_completion>"


def test_auth_prompt_does_not_echo_the_key(isolated_home: Path, workspace: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PYCLINE_HOME": str(isolated_home), "NO_COLOR": "1", "TERM": "dumb"})
    child = pexpect.spawn(
        sys.executable,
        ["-m", "pycline", "auth", "anthropic"],
        cwd=str(workspace),
        env=env,
        encoding="utf-8",
        timeout=30,
    )
    child.expect("anthropic API key \\(typing is hidden\\): ")
    child.sendline(CANARY)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "Saved the anthropic API key" in (child.before or "")
    assert CANARY not in (child.before or "")  # the terminal never showed it
    assert SecretStore(isolated_home).get("anthropic") == CANARY


def test_the_key_is_only_ever_in_the_secret_store(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    outputs: list[str] = []

    def pycline(*args: str) -> None:
        proc = run_cli(list(args), home=isolated_home, cwd=workspace)
        outputs.extend([proc.stdout, proc.stderr])
        assert proc.returncode == 0, proc.stderr

    script = tmp_path / "script.json"
    script.write_text(json.dumps([WRITE, COMPLETE]), encoding="utf-8")
    with FakeOpenAI([WRITE, COMPLETE]) as server:
        pycline("auth", "openai", "--key", CANARY)
        pycline("config", "set", "provider", "openai")
        pycline("config", "set", "model", "gpt-4o")
        pycline("config", "set", "baseUrl", server.base_url)
        pycline("config", "set", "autoApprove.editFiles", "true")
        pycline("config", "set", "model", "gpt-4o", "--workspace")
        pycline("run", "write the notes")  # the real OpenAI adapter, over real HTTP
        pycline("run", "--provider", "scripted", "--script", str(script), "again")
        pycline("config", "list")
        pycline("config", "list", "--json")
        pycline("config", "get", "provider")
        pycline("history", "--json")
        requests = server.completions
    assert [r.header("authorization") for r in requests] == [f"Bearer {CANARY}"] * 2
    assert (workspace / "notes.txt").read_text("utf-8") == "hello\n"
    assert all(CANARY not in text for text in outputs)
    holders = sorted(
        path
        for root in (isolated_home, workspace)
        for path in root.rglob("*")
        if path.is_file() and CANARY.encode() in path.read_bytes()
    )
    assert holders == [isolated_home / "secrets.json"]
    tasks = [p for p in (isolated_home / "tasks").iterdir() if p.is_dir()]
    assert len(tasks) == 2  # both tasks were recorded, and searched above
