"""The detached process of a background task (`pycline run --bg`): runs it behind its socket.

Started by `pycline.cli.bg_cmd` with its own session (so closing the terminal does not end it),
stdin closed and output to a log file. Its argument is a spec file (0600) naming the task's id and
the `pycline run` arguments; the file is removed once read.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import time
from pathlib import Path

from pycline.app.background import state as bg_state
from pycline.app.background.server import BackgroundServer, Outcome
from pycline.cli.common import plan_config, resolved_config
from pycline.errors import PyclineError
from pycline.events import Host


def main(spec_path: str) -> int:
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    Path(spec_path).unlink(missing_ok=True)
    from pycline.app.controller import Controller
    from pycline.app.task_settings import task_settings
    from pycline.cli.main import build_run_parser

    ns = build_run_parser().parse_args(spec["argv"])
    cwd = Path(ns.cwd).resolve()
    home, text = Path(spec["home"]), " ".join(ns.task)
    state = bg_state.load(home, spec["id"])
    if state is None:
        return 2
    try:
        _, config = resolved_config(ns)
        controller = Controller(home, config, plan_config(ns, home, config))
        settings = task_settings(
            home,
            headless=False,
            approve_all_inside=ns.yes,
            mode="plan" if ns.plan else "act",
            workspace=cwd,
        )
    except PyclineError as exc:
        bg_state.save(home, state.updated(status="failed", reason=str(exc), ended=time.time()))
        return 2

    async def run(host: Host) -> Outcome:
        await controller.start_mcp(cwd)
        try:
            task = controller.new_task(text, host, cwd, settings)
            return await task.start(text)
        finally:
            await controller.close()

    final = asyncio.run(BackgroundServer(home, state).run(run))
    return 0 if final.status == "completed" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
