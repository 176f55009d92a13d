"""`--profile` and `planMode` from the settings reach the model actually called."""

from __future__ import annotations

import json
from pathlib import Path

from pycline.app.settings.config import settings_path
from tests.cli.test_headless import run_cli
from tests.fakes.openai_server import FakeOpenAI

COMPLETE = "<attempt_completion>\n<result>Done.</result>\n</attempt_completion>"
PLAN = "<plan_mode_respond>\n<response>1. do it</response>\n</plan_mode_respond>"


def _settings(home: Path, data: dict[str, object]) -> None:
    path = settings_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_profile_flag_selects_server_and_model(isolated_home: Path, workspace: Path) -> None:
    # Two completions: a 7B model gets double-check, which sends back a first one made with
    # nothing done.
    with FakeOpenAI([COMPLETE, COMPLETE], models=("coder-7b",)) as server:
        _settings(
            isolated_home,
            {
                "provider": "anthropic",
                "profiles": {
                    "local": {"provider": "openai", "model": "coder-7b", "baseUrl": server.base_url}
                },
            },
        )
        proc = run_cli(["run", "--profile", "local", "go"], home=isolated_home, cwd=workspace)
        assert proc.returncode == 0, proc.stderr
        assert [r.body["model"] for r in server.completions] == ["coder-7b", "coder-7b"]
    proc = run_cli(["run", "--profile", "nope", "go"], home=isolated_home, cwd=workspace)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "pycline: Unknown profile 'nope' (profiles: local)."


def test_plan_mode_runs_on_its_own_model(isolated_home: Path, workspace: Path) -> None:
    with FakeOpenAI([PLAN], models=("thinker", "doer")) as server:
        _settings(
            isolated_home,
            {
                "provider": "openai",
                "model": "doer",
                "baseUrl": server.base_url,
                "planMode": {"model": "thinker"},
            },
        )
        proc = run_cli(["run", "--plan", "plan it"], home=isolated_home, cwd=workspace)
        assert [r.body["model"] for r in server.completions] == ["thinker"], proc.stderr


def test_bad_settings_stop_a_run_with_one_line(isolated_home: Path, workspace: Path) -> None:
    _settings(isolated_home, {"provider": "openai", "maxRetries": "lots"})
    proc = run_cli(["run", "go"], home=isolated_home, cwd=workspace)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr == (
        f"pycline: {settings_path(isolated_home)}: setting 'maxRetries' must be a whole number, "
        "not 'lots'.\n"
    )
