"""Shared pieces of the terminal commands: config from flags, the event loop, error lines."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from pycline.app.services.exit_codes import ExitCode
from pycline.app.settings.config import ModelConfig, resolve, resolve_plan
from pycline.app.settings.home import pycline_home
from pycline.errors import PyclineError

if TYPE_CHECKING:
    from pycline.app.builders.mcp_login import McpOptions
    from pycline.app.sessions.session import ConfigOverrides, Session, TaskHandle, TaskOutcome
    from pycline.cli.follow import View
    from pycline.cli.notices import Shown
    from pycline.cli.render import Tally


def flags_config(ns: argparse.Namespace) -> ModelConfig:
    return ModelConfig(
        provider=ns.provider,
        model=ns.model,
        base_url=ns.base_url,
        api_key=ns.api_key,
        script=ns.script,
    )


def resolved_config(ns: argparse.Namespace) -> tuple[Path, ModelConfig]:
    home = pycline_home()
    cwd = Path(ns.cwd).expanduser().resolve()
    return home, resolve(flags_config(ns), home, workspace=cwd, profile=ns.profile)


def plan_config(ns: argparse.Namespace, home: Path, act: ModelConfig) -> ModelConfig | None:
    """Plan mode's own model (`planMode` in the settings); None: the same as Act."""
    cwd = Path(ns.cwd).expanduser().resolve()
    return resolve_plan(flags_config(ns), home, act, workspace=cwd, profile=ns.profile)


def workspace_dir(ns: argparse.Namespace) -> Path:
    path = Path(ns.cwd).expanduser().resolve()
    if not path.is_dir():
        fail(f"--cwd {ns.cwd}: not a folder")
    return path


def count(n: int, noun: str, nouns: str = "") -> str:
    """`1 file`, `3 files`: a number with its noun, as people write it."""
    return f"{n} {noun if n == 1 else nouns or noun + 's'}"


def fail(message: str, code: int = ExitCode.USAGE) -> NoReturn:
    print(f"pycline: {message}", file=sys.stderr)
    raise SystemExit(code)


def refuse_auto(cwd: Path) -> None:
    """Exit (2) saying why and what to install when auto mode cannot run in `cwd`."""
    from pycline.app.settings.auto_mode import check

    try:
        check(pycline_home(), cwd)
    except PyclineError as exc:
        fail(f"--auto refused: {exc}")


def overrides_of(ns: argparse.Namespace) -> ConfigOverrides:
    from pycline.app.sessions.session import ConfigOverrides

    return ConfigOverrides.from_args(ns)


def run_to_exit_code(
    cwd: Path,
    overrides: ConfigOverrides,
    start: Callable[[Session], Awaitable[TaskHandle]],
    view: View,
    shown: Shown | None = None,
    tally: Tally | None = None,
    *,
    mcp: McpOptions | None = None,
    refused: Callable[[], int] = lambda: 0,
) -> int:
    """Run one task in a session of its own, shown by `view`; the process exit code.

    0 only when the task completed and `refused()` (actions a headless run refused) is 0;
    otherwise one line on stderr naming the saved task (without repeating an error the output
    already showed). A new task that never reached the model is not kept.
    """
    from pycline.app.sessions.runner import run_chain
    from pycline.app.sessions.session import Session
    from pycline.cli.follow import follow

    started: list[TaskHandle] = []
    discarded: list[bool] = []

    async def run() -> TaskOutcome:
        session = await Session.open(cwd, overrides=overrides, front_end="terminal", mcp=mcp)
        try:
            if (untrusted := session.untrusted_mcp_file) is not None:
                print(
                    f"pycline: the MCP servers of {untrusted} were not started (the file is not "
                    "trusted as it is now); review it, then run `pycline mcp trust`.",
                    file=sys.stderr,
                )
            handle = await start(session)
            started.append(handle)

            async def shown(handle: TaskHandle) -> None:
                await follow(handle, view)

            def continued(_: TaskHandle, following: TaskHandle) -> None:
                started.insert(0, following)

            finished = await run_chain(session, handle, follow=shown, continued=continued)
            if finished.discarded:
                discarded.append(True)
            elif tally is not None:
                print(await _summary_line(session.home, finished.handle.id, tally), flush=True)
            return finished.outcome
        finally:
            await session.close()

    try:
        outcome = asyncio.run(run())
    except KeyboardInterrupt:
        saved = f"; task {started[0].id} saved" if started else ""
        print(f"pycline: cancelled{saved}", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except EOFError:  # the user closed the terminal at a prompt
        return ExitCode.OK
    except PyclineError as exc:
        fail(str(exc))
    if outcome.over_budget:
        code = ExitCode.OVER_BUDGET
    elif refused():
        code = ExitCode.REFUSED
    elif outcome.unverified:
        code = ExitCode.UNVERIFIED
    else:
        code = ExitCode.OK if outcome.completed else ExitCode.FAILED
    if code == ExitCode.REFUSED:
        print(
            f"pycline: {_refused_line(refused(), outcome.completed)} (exit code {int(code)})",
            file=sys.stderr,
        )
    if outcome.completed:
        return code
    if discarded:
        where = "nothing was saved: the task never reached the model"
    else:
        where = f"task {started[0].id} saved; `pycline resume {started[0].id}` continues it"
    if shown is None or not shown.already(outcome.reason) or not _same_screen():
        where = f"{outcome.reason} ({where})"
    print(f"pycline: {where}", file=sys.stderr)
    return code


def _refused_line(count: int, completed: bool) -> str:
    actions = (
        "1 action that needed approval was"
        if count == 1
        else (f"{count} actions that needed approval were")
    )
    said = "the model said it was done, but " if completed else ""
    return f"{said}{actions} refused; `--yes` approves actions inside the workspace"


async def _summary_line(home: Path, task_id: str, tally: Tally) -> str:
    from pycline.app.services.checkpoints import files_changed

    return tally.line(await files_changed(home, task_id))


def _same_screen() -> bool:
    """stdout and stderr are one file (a terminal): an error shown on one is not repeated."""
    try:
        out, err = os.fstat(sys.stdout.fileno()), os.fstat(sys.stderr.fileno())
    except (OSError, ValueError):
        return False
    return (out.st_dev, out.st_ino) == (err.st_dev, err.st_ino)
