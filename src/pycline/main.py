"""The `pycline` command: `pycline ui` serves the web UI, `pycline acp` serves editors, every
other word is the terminal's. The one module that knows all three front ends (each of them
knows none of the others); kept light, as `pycline --help` must be fast."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence


def run() -> None:
    """The `pycline` program: `main()`, then an exit that skips tearing the interpreter down.

    Freeing every module and object of a session (the SDKs' thousands of classes) takes the
    better part of a second, seconds on a loaded machine, after everything is saved and closed.
    The exit comes last of the exit handlers (registered first), so the other threads have been
    joined and every other handler has run; a Ctrl-C or a crash exits the usual way."""
    import atexit

    status: list[int | None] = [None]
    atexit.register(_exit_now, status)
    try:
        status[0] = main()
    except SystemExit as exc:
        status[0] = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        raise
    sys.exit(status[0])


def _exit_now(status: list[int | None]) -> None:
    if status[0] is None:
        return  # an exception left main(): Python reports it and exits its own way
    import contextlib
    import os

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status[0])


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    from pycline.app.services.global_options import NotTaken

    try:
        args = _global_options_moved(args)
    except NotTaken as exc:
        print(f"pycline: {exc}", file=sys.stderr)
        return 2
    first = args[0] if args else ""
    if first == "ui":
        from pycline.web.command import run_ui

        return run_ui(args[1:])
    if first == "acp":
        from pycline.acp.main import run_acp

        return run_acp(args[1:])
    if first == "completion":
        from pycline.cli.main import build_parser
        from pycline.cli.shell_completion import run_completion

        return run_completion(args[1:], build_parser(), command_parsers())
    from pycline.cli.main import main as terminal

    return terminal(args)


def _global_options_moved(args: list[str]) -> list[str]:
    """`pycline --cwd DIR history` as `pycline history --cwd DIR`, for every command (see
    app/global_options.py)."""
    from pycline.app.services import global_options

    if not global_options.mentioned(args):
        return args
    from pycline.cli.main import COMMANDS

    found = global_options.split(args, COMMANDS)
    if found is None:
        return args
    command, before, rest = found
    own, elsewhere = global_options.arrange(before, rest, command_parser(command))
    global_options.apply(elsewhere)
    return [command, *own]


def command_parser(name: str) -> argparse.ArgumentParser:
    """The parser of one subcommand, imported only when asked for."""
    if name == "ui":
        from pycline.web.command import build_parser as ui

        return ui()
    if name == "acp":
        from pycline.acp.main import build_parser as acp

        return acp()
    from pycline.cli.main import command_parser as terminal

    return terminal(name)


def command_parsers() -> dict[str, Callable[[], argparse.ArgumentParser]]:
    """Every subcommand's parser, in the order `pycline --help` lists them (for shell
    completion and the command reference)."""
    from functools import partial

    from pycline.cli.main import COMMANDS

    return {name: partial(command_parser, name) for name in COMMANDS}


if __name__ == "__main__":
    run()
