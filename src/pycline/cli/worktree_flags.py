"""The `--worktree` flags of `pycline` and `pycline run` (kept apart so `--help` stays light)."""

from __future__ import annotations

import argparse

FINISH_CHOICES = ("keep", "merge", "discard", "diff")


def add_run_flags(parser: argparse.ArgumentParser, *, interactive: bool = False) -> None:
    parser.add_argument(
        "--worktree",
        nargs="?",
        const="",
        metavar="NAME",
        help="run in a new git worktree on branch pycline/NAME (from the current commit), "
        "kept under pycline's data folder; give the name as --worktree=NAME",
    )
    parser.add_argument(
        "--carry-changes",
        action="store_true",
        help="with --worktree: start from the current uncommitted changes too",
    )
    parser.add_argument(
        "--on-finish",
        choices=(*FINISH_CHOICES, "ask") if interactive else FINISH_CHOICES,
        default="ask" if interactive else "keep",
        help="with --worktree: merge into the original branch, keep the branch"
        + (
            ", show the diff and keep, discard, or ask at the end (default)"
            if interactive
            else " (default), show the diff and keep, or discard"
        ),
    )
