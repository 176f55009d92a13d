"""The terminal's commands (`pycline`, `pycline run`, `pycline history`, …; `pycline.main` routes
`pycline ui` and `pycline acp` to the other front ends). Kept light: heavy modules are imported
only by the command that runs."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from pycline import DISTRIBUTION
from pycline.cli.command_table import TABLE
from pycline.cli.run_parsers import auto_flag, common_flags, with_flags

COMMANDS = tuple(TABLE)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pycline",
        usage="pycline [OPTIONS] [TASK ...]\n       pycline COMMAND [OPTIONS] ...",
        description=(
            "An autonomous coding agent in your terminal. `pycline` starts an interactive\n"
            "session: type tasks at the Task> prompt (a TASK given here is the first one)."
        ),
        epilog=_commands_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    common_flags(parser)
    parser.add_argument(
        "-y", "--yes", action="store_true", help="approve every action inside the workspace"
    )
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    auto_flag(parser)
    from pycline.cli.worktree_flags import add_run_flags

    add_run_flags(parser, interactive=True)
    parser.add_argument("task", nargs="*", help="what to do (asked for when omitted)")
    return parser


def _commands_help() -> str:
    width = max(map(len, COMMANDS))
    rows = "\n".join(f"  {name:<{width}}  {c.summary}" for name, c in TABLE.items())
    return (
        f"commands:\n{rows}\n\n"
        "`pycline COMMAND --help` tells more. The options above from --cwd to -y go before or "
        "after a\ncommand's name (`pycline --cwd ~/proj history`); the model options matter to "
        "commands that\nrun a model."
    )


class _Version(argparse.Action):
    """`--version`, looked up only when asked for: importlib.metadata costs `--help` ~80 ms."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest=argparse.SUPPRESS, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(f"{DISTRIBUTION} {_version()}")
        parser.exit()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        return _dispatch(args)
    except BrokenPipeError:
        # The reader went away (`pycline history | head`): stop quietly, as other tools do.
        quiet_broken_pipe()
        return 141


def quiet_broken_pipe() -> None:
    """Point stdout at /dev/null so the interpreter's final flush raises nothing."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def near_command(word: str) -> str | None:
    """The subcommand a mistyped first word most likely meant (`histroy` → `history`)."""
    import difflib

    if not word.isalpha() or word in COMMANDS:
        return None
    found = difflib.get_close_matches(word.lower(), COMMANDS, n=1, cutoff=0.75)
    return found[0] if found else None


def command_parser(name: str) -> argparse.ArgumentParser:
    """The parser of one of the terminal's subcommands."""
    parser = TABLE[name].parser
    if parser is None:
        raise KeyError(f"{name!r} is not parsed here (pycline.main routes it)")
    return parser(name)


def command_parsers() -> dict[str, Callable[[], argparse.ArgumentParser]]:
    """Each of the terminal's subcommands' parser (`pycline.main.command_parsers` has them all)."""
    from functools import partial

    return {name: partial(command_parser, name) for name, c in TABLE.items() if c.parser}


def _dispatch(args: list[str]) -> int:
    command = TABLE.get(args[0]) if args else None
    looks_like_command = len(args) == 1 or (len(args) > 1 and args[1][:1] in "-0123456789")
    if command is None and args and looks_like_command and (meant := near_command(args[0])):
        print(
            f"pycline: unknown command {args[0]!r}; did you mean `pycline {meant}`? "
            f"(To give a one-word task, use `pycline run {args[0]}` or type it at the prompt.)",
            file=sys.stderr,
        )
        return 2
    if command is not None and command.run is not None:
        return command.run(args[0], args[1:])
    namespace = with_flags(build_parser().parse_args(args))
    from pycline.cli.interactive import run_interactive

    if namespace.worktree is not None:
        from pycline.cli.worktree_cmd import run_in_worktree

        return run_in_worktree(namespace, run_interactive)
    return run_interactive(namespace)


if __name__ == "__main__":  # the terminal's commands only; `python -m pycline` routes them all
    sys.exit(main())
