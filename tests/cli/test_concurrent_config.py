"""Nine `pycline auth`, nine `config set` and nine `config allow add` started at once on one
PYCLINE_HOME: every key, setting and rule is kept (each is an update under a lock)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.cli.task_cli import cli_env

PROVIDERS = ("anthropic", "deepseek", "gemini", "groq", "mistral", "openai", "openrouter",
             "together", "xai")  # fmt: skip
SETTINGS = {"maxRetries": "7", "maxConsecutiveMistakes": "9", "retryBaseDelay": "2.5",
            "commandTimeout": "77", "diagnosticsTimeout": "3", "checkpointRetention": "4",
            "maxTaskCost": "1.5", "maxSessionCost": "2.5", "maxDailyCost": "3.5"}  # fmt: skip
RULES = [f"tool{i} run" for i in range(9)]


def test_27_concurrent_updates_of_keys_settings_and_rules_lose_nothing(
    isolated_home: Path, workspace: Path
) -> None:
    commands = (
        [["auth", p, "--key", f"sk-{p}-0123456789"] for p in PROVIDERS]
        + [["config", "set", k, v] for k, v in SETTINGS.items()]
        + [["config", "allow", "--cwd", str(workspace), "add", r] for r in RULES]
    )
    env = cli_env(isolated_home)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "pycline", *args], cwd=workspace, env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for args in commands
    ]  # fmt: skip
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, (proc.args, out, err)
    secrets = json.loads((isolated_home / "secrets.json").read_text(encoding="utf-8"))
    assert {k.split(".", 1)[0] for k in secrets} == set(PROVIDERS)
    settings = json.loads(
        (isolated_home / "settings" / "settings.json").read_text(encoding="utf-8")
    )
    assert {k: str(v) for k, v in settings.items()} == SETTINGS
    rules = json.loads(
        (isolated_home / "settings" / "command_rules.json").read_text(encoding="utf-8")
    )
    [kept] = rules["workspaces"].values()
    assert sorted(kept) == sorted(RULES)
