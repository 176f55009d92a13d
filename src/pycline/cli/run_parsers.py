"""The parsers of `pycline run` and `pycline resume`, and the flags every task command shares."""

from __future__ import annotations

import argparse


def common_flags(parser: argparse.ArgumentParser) -> None:
    from pycline.app.services.flags import add_common_flags

    add_common_flags(parser)


def with_flags(namespace: argparse.Namespace) -> argparse.Namespace:
    """The parsed flags applied (the sandbox's, the auto mode's)."""
    from pycline.app.services.flags import apply_flags

    return apply_flags(namespace)


def build_run_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pycline run", description="Run a task headless: no prompts, for scripts and CI."
    )
    common_flags(parser)
    parser.add_argument(
        "-y", "--yes", action="store_true", help="approve every action inside the workspace"
    )
    parser.add_argument(
        "--json", action="store_true", help="write one JSON event per line to stdout"
    )
    parser.add_argument(
        "--task-file", metavar="FILE", help="read the task from FILE (`-` for standard input)"
    )
    add_goal_flags(parser)
    auto_flag(parser)
    parser.add_argument(
        "--bg",
        action="store_true",
        help="run in the background (survives closing the terminal); see `pycline tasks`, "
        "`pycline attach ID`, `pycline stop ID`",
    )
    parser.add_argument(
        "--mcp-login",
        action="store_true",
        help="let an MCP server that needs a login open the browser (default: its tools fail, "
        "naming `pycline mcp login NAME`)",
    )
    parser.add_argument(
        "--mcp-elicitation",
        choices=("decline", "defaults"),
        default="decline",
        help="how to answer an MCP server's request for input: decline it (default), or accept "
        "a form with the defaults its schema gives",
    )
    from pycline.cli.worktree_flags import add_run_flags

    add_run_flags(parser)
    parser.add_argument("task", nargs="*", help="what to do; `-` reads it from standard input")
    return parser


def auto_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--auto",
        action="store_true",
        help="auto (sandboxed): commands run unasked in the sandbox with the network off, edits "
        "inside the workspace unasked; the network and paths outside still ask (needs bubblewrap)",
    )


def add_goal_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--verify",
        metavar="CMD",
        default="",
        help="a check the work must pass: when the model says it is done, CMD runs in the "
        "sandbox in the workspace and only exit 0 completes the task; otherwise the model gets "
        "the failure and goes on (exit code 5 when the attempts run out)",
    )
    parser.add_argument(
        "--max-verify",
        metavar="N",
        type=_positive,
        default=0,
        help="with --verify: failed checks before the task ends unverified (default 5)",
    )


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def build_resume_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pycline resume",
        description="Continue a saved task (the latest one in this folder by default).",
    )
    common_flags(parser)
    parser.add_argument("id", nargs="?", help="task id (see `pycline history`)")
    parser.add_argument("--headless", action="store_true", help="no prompts, as `pycline run`")
    parser.add_argument(
        "-y", "--yes", action="store_true", help="headless: approve actions inside the workspace"
    )
    parser.add_argument("--json", action="store_true", help="headless: one JSON event per line")
    return parser
