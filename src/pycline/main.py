"""The `pycline` command: `pycline ui` serves the web UI, `pycline acp` serves editors, every
other word is the terminal's. The one module that knows all three front ends (each of them
knows none of the others); kept light, as `pycline --help` must be fast."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    first = args[0] if args else ""
    if first == "ui":
        from pycline.web.command import run_ui

        return run_ui(args[1:])
    if first == "acp":
        from pycline.acp.main import run_acp

        return run_acp(args[1:])
    if first == "completion":
        from pycline.cli.shell_completion import run_completion

        return run_completion(args[1:], command_parsers())
    from pycline.cli.main import main as terminal

    return terminal(args)


def command_parsers() -> dict[str, Callable[[], argparse.ArgumentParser]]:
    """Every subcommand's parser, in the order `pycline --help` lists them (for shell
    completion and the command reference)."""
    from pycline.acp.main import build_parser as acp
    from pycline.cli.main import COMMANDS
    from pycline.cli.main import command_parsers as terminal
    from pycline.web.command import build_parser as ui

    parsers = {**terminal(), "acp": acp, "ui": ui}
    return {name: parsers[name] for name in COMMANDS}


if __name__ == "__main__":
    sys.exit(main())
