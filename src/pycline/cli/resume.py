"""`pycline resume [ID]`: continue a saved task, interactively or headless."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from pycline.cli.common import fail, overrides_of, run_to_exit_code, workspace_dir
from pycline.errors import PyclineError

if TYPE_CHECKING:
    from pycline.app.sessions.session import Session, TaskHandle
    from pycline.cli.interactive import InteractiveHost


def resume(ns: argparse.Namespace) -> int:
    from pycline.app.sessions.session import TaskOptions
    from pycline.app.settings.config import load
    from pycline.app.settings.home import pycline_home
    from pycline.cli.headless import HeadlessHost
    from pycline.cli.interactive import InteractiveHost
    from pycline.cli.lines import LineReader

    headless = ns.headless or ns.yes or ns.json
    cwd = workspace_dir(ns)
    view: HeadlessHost | InteractiveHost = HeadlessHost(json_mode=ns.json)
    if not headless:
        try:
            notify = load(pycline_home(), cwd).notifications
        except PyclineError as exc:
            fail(str(exc))
            return 2
        view = InteractiveHost(LineReader(), notify=notify)
    options = TaskOptions(headless=headless, approve_all_inside=ns.yes)

    async def start(session: Session) -> TaskHandle:
        message = ""
        if isinstance(view, InteractiveHost):
            message = await _recap_and_wait(view, session, ns.id)
        handle = await session.resume_task(ns.id, options=options, message=message)
        if isinstance(view, InteractiveHost):
            view.attach(handle)
        return handle

    tally = None if ns.json else view.tally

    def refused() -> int:
        return view.refused if isinstance(view, HeadlessHost) else 0

    return run_to_exit_code(cwd, overrides_of(ns), start, view, view.shown, tally, refused=refused)


async def _recap_and_wait(view: InteractiveHost, session: Session, task_id: str | None) -> str:
    """Show what the task was, then wait for the user: their message ("" to just go on)."""
    from pycline.cli.lines import ESC_ESC
    from pycline.cli.recap import continue_prompt, recap
    from pycline.cli.style import style

    found = await recap(session.home, session.workspace, task_id)
    for line in found.lines:
        print(line)
    reply = await view.reader.readline(style(continue_prompt(found.completed), "bold"))
    message = (reply or "").strip()
    if reply is None or message in ("/new", "/clear", ESC_ESC) or (found.completed and not message):
        raise EOFError  # nothing to continue: leave as it is
    return message
