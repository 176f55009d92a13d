"""The options of every command, taken before a subcommand's name as after it.

`pycline --cwd ~/proj history` means `pycline history --cwd ~/proj`. A command whose own parser
has the option gets it as typed; for one that has not, `--cwd` moves the process into the folder
(as `git -C` does) and `--sandbox` becomes the process's override. The model flags, `--plan` and
`-y` mean nothing to a command that runs no model; one that runs a model and lacks a flag refuses
it by name rather than drop it.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import NamedTuple

from pycline.errors import ConfigError

VALUED = frozenset(
    {
        "--cwd",
        "--provider",
        "--model",
        "--base-url",
        "--api-key",
        "--script",
        "--profile",
        "--sandbox",
    }
)
FLAGS = frozenset({"--plan", "-y", "--yes"})
_MODEL = frozenset({"--provider", "--model", "--base-url", "--api-key", "--script", "--profile"})


class NotTaken(ConfigError):
    """A global option a command cannot honour."""


# Named tuples, not dataclasses: this module is imported on every start (`pycline --help` too).
class Given(NamedTuple):
    name: str
    value: str | None = None  # None for a flag

    def words(self) -> list[str]:
        # `--name=value` parses whatever the value looks like (`--model -x`, a folder `-dir`).
        return [self.name] if self.value is None else [f"{self.name}={self.value}"]


class Elsewhere(NamedTuple):
    """The global options a command does not take itself, as the process applies them."""

    cwd: str | None = None
    sandbox: str | None = None


def mentioned(args: Sequence[str]) -> bool:
    """Whether any word looks like a global option (the cheap test before any parser is built)."""
    return any(w.partition("=")[0] in VALUED or w in FLAGS for w in args)


def _take(args: Sequence[str], i: int) -> tuple[Given, int] | None:
    name, eq, value = args[i].partition("=")
    if name in FLAGS and not eq:
        return Given(name), i + 1
    if name in VALUED:
        if eq:
            return Given(name, value), i + 1
        if i + 1 < len(args):
            return Given(name, args[i + 1]), i + 2
    return None


def split(
    args: Sequence[str], commands: Collection[str]
) -> tuple[str, list[Given], list[str]] | None:
    """(the command, the global options typed before it, the words after it); or None when
    the words before the first non-option are not all global options or it names no command."""
    before: list[Given] = []
    i = 0
    while i < len(args):
        if args[i] in commands:
            return args[i], before, list(args[i + 1 :])
        taken = _take(args, i)
        if taken is None:
            return None
        given, i = taken
        before.append(given)
    return None


def arrange(
    before: Sequence[Given], rest: Sequence[str], parser: argparse.ArgumentParser
) -> tuple[list[str], Elsewhere]:
    """The command's own words with every global option it takes put first (typed before its
    name or among its words, up to `--`: first, so a sub-subcommand's parser never sees it), and
    the global options it does not take, for the process to apply."""
    own = set(parser._option_string_actions)
    found = list(before)
    words: list[str] = []
    i = 0
    while i < len(rest):
        if rest[i] == "--":
            words.extend(rest[i:])
            break
        taken = _take(rest, i)
        if taken is None:
            words.append(rest[i])
            i += 1
            continue
        given, i = taken
        found.append(given)
    left = [g for g in found if g.name not in own]
    if "--provider" in own:  # it runs a model: a model flag it would drop is said, not ignored
        for given in left:
            if given.name in _MODEL:
                raise NotTaken(f"`{parser.prog}` does not take {given.name}")
    first = [w for g in found if g.name in own for w in g.words()]
    values = {g.name: g.value for g in left}
    return first + words, Elsewhere(cwd=values.get("--cwd"), sandbox=values.get("--sandbox"))


def apply(elsewhere: Elsewhere) -> None:
    """Move into the --cwd folder and set the --sandbox override, for a command without them."""
    if elsewhere.sandbox is not None:
        from pycline.terminal.sandbox import SANDBOX_ENV, SANDBOX_MODES

        if elsewhere.sandbox not in SANDBOX_MODES:
            raise NotTaken(
                f"--sandbox {elsewhere.sandbox}: choose one of {', '.join(SANDBOX_MODES)}"
            )
        os.environ[SANDBOX_ENV] = elsewhere.sandbox
    if elsewhere.cwd is not None:
        folder = Path(elsewhere.cwd).expanduser()
        if not folder.is_dir():
            raise NotTaken(f"--cwd {elsewhere.cwd}: not a folder")
        os.chdir(folder)
