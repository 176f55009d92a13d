"""`pycline run --bg` takes its options anywhere the foreground `pycline run` does: what the web
UI's "Start in background" runs (`run --bg --cwd DIR -- TASK`) sends the model TASK alone."""

from __future__ import annotations

from pathlib import Path

from tests.app.batch_helpers import COMPLETE, write_script
from tests.cli.task_cli import history
from tests.cli.test_background import cli, env, wait_for

__all__ = ["env"]  # the fixture, used by name


def test_background_task_after_a_double_dash_is_the_task_alone(
    env: dict[str, str], isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    script = write_script(tmp_path / "s.json", [COMPLETE])
    proc = cli(env, "run", "--bg", "--cwd", str(workspace), "--provider", "scripted",
               "--script", str(script), "--yes", "--", "tidy the notes")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    bg_id = proc.stdout.strip()
    entry = wait_for(env, bg_id, "completed")
    assert entry["task"] == "tidy the notes"
    [record] = history(isolated_home)
    assert record["task"] == "tidy the notes"
    assert record["workspace"] == str(workspace.resolve())
