"""The detached process of a background task (`pycline run --bg`): runs it behind its socket.

Started by `pycline.cli.bg_cmd` in a session of its own (closing the terminal does not end it),
with stdin closed and output to a log file. Its argument is a spec file (0600) naming the task's
id and its `pycline run` arguments; the file is removed once read.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

from pycline.app.background import state as bg_state
from pycline.app.background.state import BgState
from pycline.app.services.exit_codes import ExitCode
from pycline.cli.common import overrides_of
from pycline.errors import PyclineError


def main(spec_path: str) -> int:
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    Path(spec_path).unlink(missing_ok=True)
    from pycline.cli.run_parsers import build_run_parser

    ns = build_run_parser().parse_args(spec["argv"])
    home = Path(spec["home"])
    state = bg_state.load(home, spec["id"])
    if state is None:
        return 2
    try:
        final = asyncio.run(_run(ns, home, state))
    except PyclineError as exc:  # e.g. a bad model configuration: shown on the board
        bg_state.save(home, state.updated(status="failed", reason=str(exc), ended=time.time()))
        return 2
    return ExitCode.OK if final.status == "completed" else ExitCode.FAILED


async def _run(ns: argparse.Namespace, home: Path, state: BgState) -> BgState:
    from pycline.app.background.server import BackgroundServer
    from pycline.app.live.handle import TaskHandle
    from pycline.app.sessions.runner import run_chain
    from pycline.app.sessions.session import Session, TaskOptions, TaskOutcome

    session = await Session.open(Path(ns.cwd).resolve(), home=home, overrides=overrides_of(ns))
    try:
        handle = await session.new_task(
            " ".join(ns.task),
            mode="plan" if ns.plan else "act",
            options=TaskOptions(
                approve_all_inside=ns.yes,
                verify=ns.verify.strip(),
                max_verify=ns.max_verify,
                auto=ns.auto,
            ),
        )

        async def chain(
            first: TaskHandle, continued: Callable[[TaskHandle, TaskHandle], None]
        ) -> TaskOutcome:
            return (await run_chain(session, first, continued=continued)).outcome

        return await BackgroundServer(home, state, chain, handle).run()
    finally:
        await session.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
