"""`pycline resume [ID]`: continue a saved task, interactively or headless."""

from __future__ import annotations

import argparse

from pycline.cli.common import (
    fail,
    plan_config,
    resolved_config,
    run_to_exit_code,
    workspace_dir,
)
from pycline.errors import PyclineError


def resume(ns: argparse.Namespace) -> int:
    from pycline.app.config import load
    from pycline.app.controller import Controller
    from pycline.app.task_settings import task_settings
    from pycline.cli.headless import HeadlessHost
    from pycline.cli.interactive import InteractiveHost
    from pycline.cli.lines import LineReader
    from pycline.events import Host

    headless = ns.headless or ns.yes or ns.json
    cwd = workspace_dir(ns)
    host: Host = HeadlessHost(json_mode=ns.json)
    try:
        home, config = resolved_config(ns)
        settings = task_settings(home, headless=headless, approve_all_inside=ns.yes, workspace=cwd)
        if not headless:
            host = InteractiveHost(LineReader(), notify=load(home, cwd).notifications)
        controller = Controller(home, config, plan_config(ns, home, config))
    except PyclineError as exc:
        fail(str(exc))
        return 2
    shown = host.shown if isinstance(host, HeadlessHost | InteractiveHost) else None
    tally = host.tally if isinstance(host, HeadlessHost | InteractiveHost) and not ns.json else None
    return run_to_exit_code(
        controller, cwd, lambda: controller.resume_task(ns.id, host, cwd, settings), shown, tally
    )
