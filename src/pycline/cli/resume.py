"""`pycline resume [ID]`: continue a saved task, interactively or headless."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from pycline.cli.common import fail, overrides_of, run_to_exit_code, workspace_dir
from pycline.errors import PyclineError

if TYPE_CHECKING:
    from pycline.app.session import Session, TaskHandle
    from pycline.cli.follow import View


def resume(ns: argparse.Namespace) -> int:
    from pycline.app.config import load
    from pycline.app.session import TaskOptions
    from pycline.cli.headless import HeadlessHost
    from pycline.cli.interactive import InteractiveHost
    from pycline.cli.lines import LineReader
    from pycline.storage.paths import pycline_home

    headless = ns.headless or ns.yes or ns.json
    cwd = workspace_dir(ns)
    view: View = HeadlessHost(json_mode=ns.json)
    if not headless:
        try:
            notify = load(pycline_home(), cwd).notifications
        except PyclineError as exc:
            fail(str(exc))
            return 2
        view = InteractiveHost(LineReader(), notify=notify)
    options = TaskOptions(headless=headless, approve_all_inside=ns.yes)

    async def start(session: Session) -> TaskHandle:
        handle = await session.resume_task(ns.id, options=options)
        if isinstance(view, InteractiveHost):
            view.attach(handle)
        return handle

    return run_to_exit_code(cwd, overrides_of(ns), start, view)
