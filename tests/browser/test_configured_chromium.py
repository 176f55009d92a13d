"""`browserExecutablePath` in settings.json picks the browser a task launches."""

from __future__ import annotations

import json
import shlex
import stat
from pathlib import Path

from pycline.app.builders.builder import TaskBuilder
from pycline.app.builders.wiring import browser_status
from pycline.app.settings.config import ModelConfig, settings_path
from pycline.app.settings.task_settings import chromium_setting, task_settings
from pycline.providers.base import ModelInfo
from pycline.providers.scripted import ScriptedProvider, ScriptedReply
from tests.browser import pages
from tests.browser.conftest import Site
from tests.browser.test_browser_tool import COMPLETE, YesHost, browser_call


def _settings(home: Path, chromium: str) -> None:
    path = settings_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"browserExecutablePath": chromium}), encoding="utf-8")


def _wrapper(folder: Path, chromium: str, marker: Path) -> Path:
    """A browser 'executable' that notes each launch, then becomes the real Chromium."""
    exe = folder / "my-chromium"
    exe.write_text(
        f'#!/bin/sh\necho launched >> {shlex.quote(str(marker))}\nexec {shlex.quote(chromium)} "$@"\n',
        encoding="utf-8",
    )
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return exe


async def test_a_task_launches_the_browser_named_in_the_settings(
    chromium: str, site: Site, workspace: Path, isolated_home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "launches.txt"
    _settings(isolated_home, str(_wrapper(tmp_path, chromium, marker)))
    provider = ScriptedProvider(
        [
            ScriptedReply(browser_call("launch", url=site.add("/", pages.APP))),
            ScriptedReply(COMPLETE),
        ],
        model_info=ModelInfo(id="scripted-vision", context_window=200_000, supports_images=True),
    )
    builder = TaskBuilder(isolated_home, ModelConfig(provider="scripted"))
    settings = task_settings(isolated_home, headless=False, workspace=workspace)
    task = builder.new_task("look", YesHost(), workspace, settings, provider=provider)
    assert (await task.start("look at the page")).completed
    assert marker.read_text(encoding="utf-8") == "launched\n"
    shown = provider.requests[1].messages[-1].text
    assert "[browser_action for 'launch" in shown


def test_a_wrong_setting_turns_the_browser_off_and_says_which_setting(
    isolated_home: Path, workspace: Path
) -> None:
    _settings(isolated_home, "/nowhere/chromium")
    configured = chromium_setting(isolated_home, workspace)
    assert configured == "/nowhere/chromium"
    reason = browser_status(configured)
    assert reason is not None and "the setting (/nowhere/chromium)" in reason
