"""Wall time of `pycline tasks` (and `--json`) with 10 live tasks on the board.

A helper process runs 10 tasks as the terminal does (each waiting for an approval, so each is
listed as waiting, with its question); `pycline tasks` then runs from another process, as a user
would type it. Prints the median of several runs. Everything lives in a temporary PYCLINE_HOME
and runtime folder.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TASKS = 10
WRITE = "<write_to_file>\n<path>a.txt</path>\n<content>\na\n</content>\n</write_to_file>"

HOST = """
import asyncio, sys
from pathlib import Path
from pycline.app.sessions.session import ConfigOverrides, Session

async def main() -> None:
    overrides = ConfigOverrides(provider="scripted", script=sys.argv[2])
    session = await Session.open(Path(sys.argv[1]), overrides=overrides, front_end="terminal")
    handles = [await session.new_task(f"task {n}") for n in range(int(sys.argv[3]))]
    while not all(h.pending_questions for h in handles):
        await asyncio.sleep(0.05)  # the helper's own tasks: nothing else to wait on
    print("ready", flush=True)
    await asyncio.to_thread(sys.stdin.read)
    await session.close()

asyncio.run(main())
"""


def main(runs: int = 15) -> None:
    root = Path(tempfile.mkdtemp(prefix="pcl", dir="/tmp"))
    home, runtime, workspace = root / "home", root / "rt", root / "ws"
    for folder in (home, runtime, workspace):
        folder.mkdir()
    script = root / "script.json"
    script.write_text(json.dumps([WRITE]), encoding="utf-8")
    env = {**os.environ, "PYCLINE_HOME": str(home), "XDG_RUNTIME_DIR": str(runtime)}
    host = subprocess.Popen(
        [sys.executable, "-c", HOST, str(workspace), str(script), str(TASKS)],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert host.stdout is not None and host.stdout.readline().strip() == "ready"
        listed = json.loads(_tasks(env, "--json").stdout)
        assert len(listed) == TASKS and all(e["status"] == "waiting" for e in listed), listed
        for args in ((), ("--json",)):
            times = []
            for _ in range(runs):
                start = time.perf_counter()
                _tasks(env, *args)
                times.append(time.perf_counter() - start)
            name = " ".join(("pycline tasks", *args))
            print(
                f"{name} with {TASKS} live tasks: median {statistics.median(times) * 1000:.0f} ms, "
                f"min {min(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms over {runs} runs"
            )
    finally:
        if host.stdin is not None:
            host.stdin.close()
        host.wait(timeout=60)
        shutil.rmtree(root, ignore_errors=True)


def _tasks(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("pycline", path=str(Path(sys.executable).parent)) or "pycline"
    return subprocess.run(
        [exe, "tasks", *args], env=env, check=True, capture_output=True, text=True
    )


if __name__ == "__main__":
    main()
