"""Hooks run as real executables: JSON in and out, parallel, timeouts, trust, failing open."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from pycline.core.hooks import Hooks, context_type


def _hook(folder: Path, name: str, body: str, *, executable: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!{sys.executable}\nimport json, sys\n{body}\n", encoding="utf-8")
    path.chmod(0o755 if executable else 0o644)
    return path


async def test_a_hook_gets_the_event_as_json_and_its_context_comes_back(tmp_path: Path) -> None:
    seen = tmp_path / "seen.json"
    _hook(tmp_path / "g", "PreToolUse", (
        f"data = json.load(sys.stdin)\nopen({str(seen)!r}, 'w').write(json.dumps(data))\n"
        "print(json.dumps({'contextModification': 'PREFERENCE: use tabs'}))"))  # fmt: skip
    hooks = Hooks(tmp_path, [(tmp_path / "g", "global")], common={"taskId": "t1"})
    data = {"preToolUse": {"toolName": "read_file", "parameters": {"path": "a"}}}
    result = await hooks.run("PreToolUse", data)
    assert result.context == "PREFERENCE: use tabs" and not result.cancel
    sent = json.loads(seen.read_text(encoding="utf-8"))
    assert sent["hookName"] == "PreToolUse" and sent["taskId"] == "t1"
    assert sent["preToolUse"]["parameters"] == {"path": "a"}
    assert context_type(result.context) == "preference"


async def test_any_cancel_cancels_and_contexts_of_parallel_hooks_are_joined(
    tmp_path: Path,
) -> None:
    _hook(tmp_path / "g", "TaskStart", "print('noise'); print(json.dumps({'cancel': True}))")
    _hook(tmp_path / "w", "TaskStart", "print(json.dumps({'contextModification': 'ws'}))")
    hooks = Hooks(
        tmp_path, [(tmp_path / "g", "global"), (tmp_path / "w", "workspace")],
        trusted=lambda path, content: True,
    )  # fmt: skip
    result = await hooks.run("TaskStart", {})
    assert result.cancel and result.context == "ws" and result.ran == 2


async def test_a_hook_that_hangs_is_killed_at_the_timeout_and_does_not_cancel(
    tmp_path: Path,
) -> None:
    _hook(tmp_path / "g", "TaskStart", "import time; time.sleep(60)")
    hooks = Hooks(tmp_path, [(tmp_path / "g", "global")], timeout=0.5)
    started = time.monotonic()
    result = await hooks.run("TaskStart", {})
    assert time.monotonic() - started < 30
    assert not result.cancel and "timed out" in result.errors[0]


async def test_a_failing_hook_fails_open_and_is_reported(tmp_path: Path) -> None:
    _hook(tmp_path / "g", "TaskStart", "sys.stderr.write('boom\\n'); sys.exit(3)")
    result = await Hooks(tmp_path, [(tmp_path / "g", "global")]).run("TaskStart", {})
    assert not result.cancel and "exit 3" in result.errors[0] and "boom" in result.errors[0]


async def test_a_hook_without_the_exec_bit_or_an_untrusted_workspace_hook_does_not_run(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "ran"
    body = f"open({str(marker)!r}, 'w').write('x')"
    _hook(tmp_path / "g", "TaskStart", body, executable=False)
    ws_hook = _hook(tmp_path / "w", "TaskStart", body)
    hooks = Hooks(tmp_path, [(tmp_path / "g", "global"), (tmp_path / "w", "workspace")])
    assert (await hooks.run("TaskStart", {})).ran == 0
    assert not marker.exists() and hooks.untrusted == [ws_hook]
