"""The web UI's speed in a real Chromium: first paint, a 10,000-message task, a 200 KB reply.

Starts `pycline ui --no-open` on a temporary PYCLINE_HOME holding one saved task of 10,000 UI
messages (prose with Markdown and code, tool rows, command output), then measures:
- first paint: the page's first-contentful-paint after loading the printed URL;
- the long task: from clicking it in History until its last row is on screen, and the number of
  rows actually in the DOM (the list is virtualised);
- streaming: 200 KB of reply fed as 4,000 text deltas in batches of 20 per frame (as the socket
  delivers them), reporting the slowest frame.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.web.ui_process import ui_argv

from pycline.browser.chromium import CHROMIUM_ARGS, find_chromium
from pycline.messages import UiMessage
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import TaskStore

MESSAGES = 10_000


def long_task(home: Path, workspace: Path) -> str:
    store = TaskStore(home)
    folder = store.create()
    now = time.time()
    messages: list[UiMessage] = [UiMessage(now, "say", "task", "A very long task")]
    for i in range(MESSAGES - 1):
        match i % 4:
            case 0:
                text = f"Step {i}: **looking** at `module_{i}.py`.\n\n```python\ndef f{i}(x):\n    return x * {i}\n```"
                messages.append(UiMessage(now, "say", "text", text))
            case 1:
                tool = json.dumps({"tool": "read_file", "summary": f"read_file src/module_{i}.py"})
                messages.append(UiMessage(now, "say", "tool", tool))
            case 2:
                messages.append(
                    UiMessage(
                        now,
                        "say",
                        "tool_result",
                        f"contents {i}\n" * 5,
                        extra={"tool": "read_file", "ok": True},
                    )
                )
            case _:
                messages.append(UiMessage(now, "say", "command_output", f"line {i}\n" * 3))
    folder.save_ui_messages(messages)
    folder.save_record(
        TaskRecord(
            id=folder.id,
            ts=now,
            task="A very long task",
            workspace=str(workspace),
            status="completed",
        )
    )
    return folder.id


def main() -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        home, workspace = Path(tmp) / "home", Path(tmp) / "ws"
        home.mkdir()
        workspace.mkdir()
        long_task(home, workspace)
        script = Path(tmp) / "script.json"
        script.write_text("[]", encoding="utf-8")
        proc = subprocess.Popen(
            ui_argv(workspace, script),
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYCLINE_HOME": str(home)},
        )
        assert proc.stdout is not None
        url = proc.stdout.readline().strip().removeprefix("pycline ui: ")
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=find_chromium(), args=list(CHROMIUM_ARGS)
                )
                page = browser.new_page(viewport={"width": 1100, "height": 800})
                page.goto(url)
                page.get_by_role("button", name="History").wait_for()
                paint = page.evaluate(
                    "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1"
                )
                print(f"first paint (first-contentful-paint): {paint:.0f} ms")
                page.get_by_role("button", name="History").click()
                item = page.get_by_role("button", name="Open task: A very long task")
                item.wait_for()
                start = time.perf_counter()
                item.click()
                page.get_by_role("button", name="Resume Task").wait_for()
                page.wait_for_function(
                    "document.querySelectorAll('.vlist [role=listitem]').length > 0"
                )
                page.evaluate(
                    "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
                )
                elapsed = (time.perf_counter() - start) * 1000
                rows = page.evaluate("window.pycline.transcripts.values().next().value.rows.length")
                in_dom = page.evaluate("document.querySelectorAll('.vlist [role=listitem]').length")
                print(
                    f"10,000-message task: {elapsed:.0f} ms from click to painted ({rows} rows, {in_dom} in the DOM)"
                )
                page.evaluate("document.querySelector('.vlist').scrollTop = 0")
                page.evaluate(
                    "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
                )
                worst = page.evaluate(STREAM_JS)
                print(
                    f"200 KB streamed reply (4,000 deltas, 20 per frame): slowest frame {worst['worst']:.1f} ms, total {worst['total']:.0f} ms"
                )
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=30)


# Feed a synthetic streamed reply into a fresh transcript shown in the chat, 20 deltas per frame.
STREAM_JS = """
async () => {
  const app = window.pycline;
  const { Transcript } = await import('/static/lib/transcript.js');
  const t = new Transcript('bench-stream');
  app.transcripts.set('bench-stream', t);
  app.summaries.set('bench-stream', { id: 'bench-stream', task: 'stream', status: 'running' });
  app.select('bench-stream');
  t.apply([{ v: 3, task_id: 'bench-stream', seq: 0, ts: 0, kind: 'task_started', task: 'stream', workspace: '', resumed: false }]);
  const chunk = 'word '.repeat(9) + 'x\\n\\n'.slice(0, 3);
  let seq = 1, worst = 0;
  const start = performance.now();
  for (let frame = 0; frame < 200; frame++) {
    const batch = [];
    for (let i = 0; i < 20; i++) batch.push({ v: 3, task_id: 'bench-stream', seq: seq++, ts: 0, kind: 'text_delta', text: chunk + (i % 5 === 0 ? '\\n\\n' : '') });
    const t0 = performance.now();
    t.apply(batch);
    await new Promise((r) => requestAnimationFrame(r));
    worst = Math.max(worst, performance.now() - t0);
  }
  return { worst, total: performance.now() - start };
}
"""

if __name__ == "__main__":
    main()
