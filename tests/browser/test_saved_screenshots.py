"""The browser's screenshots are saved with the task, in its ui messages, and a resume still works."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from pycline.app.builders.builder import TaskBuilder
from pycline.app.settings.config import ModelConfig
from pycline.core.task import TaskSettings
from pycline.providers.scripted import ScriptedProvider
from pycline.storage.task_store import TaskStore
from tests.browser import pages, png
from tests.browser.conftest import Site
from tests.browser.test_browser_tool import COMPLETE, YesHost, browser_call, run_task


async def test_each_screenshot_is_kept_in_its_tool_result_message_and_the_task_resumes(
    chromium: str, site: Site, workspace: Path, isolated_home: Path
) -> None:
    url = site.add("/", pages.APP)
    replies = [browser_call("launch", url=url), browser_call("close"), COMPLETE]
    await run_task(chromium, isolated_home, workspace, replies)
    store = TaskStore(isolated_home)
    [folder] = [store.open(p.name) for p in store.tasks_dir.iterdir()]
    saved = json.loads((folder.path / "ui_messages.json").read_text(encoding="utf-8"))
    results = [m for m in saved if m.get("say") == "tool_result"]
    launch, close, _completion = results
    assert launch["tool"] == close["tool"] == "browser_action"
    [shot] = launch["images"]  # Cline's own field for a message's images
    prefix = "data:image/png;base64,"
    assert shot.startswith(prefix)
    image = png.decode(base64.b64decode(shot.removeprefix(prefix)), max_rows=1)
    assert (image.width, image.height) == (900, 600)
    assert "images" not in close  # closing the browser leaves nothing to show

    provider = ScriptedProvider.of(COMPLETE)
    builder = TaskBuilder(isolated_home, ModelConfig(provider="scripted"))
    resumed, run = builder.resume_task(
        folder.id, YesHost(), workspace, TaskSettings(), provider=provider
    )
    assert (await run()).completed
    assert resumed.folder == folder.path
    kept = [m for m in folder.load_ui_messages() if m.kind == "tool_result"]
    assert len(kept) > len(results)  # the resumed run added to the same log
    assert kept[0].extra["images"] == [shot]
    assert len(provider.requests) == 1
