"""The terminal's subcommands, one table: what each does, its parser and what runs it.

Each entry's parser and runner are small functions that import their module only when called
(`pycline --help` stays fast), as plain imports the layer contracts see. `ui` and `acp` are listed
for `pycline --help` only: `pycline.main` routes them to their own front ends.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Command:
    summary: str
    parser: Callable[[str], argparse.ArgumentParser] | None = None  # given the command's name
    run: Callable[[str, list[str]], int] | None = None  # the name and the words after it


def _run_parser(name: str) -> argparse.ArgumentParser:
    from pycline.cli.run_parsers import build_run_parser

    return build_run_parser()


def _run(name: str, args: list[str]) -> int:
    from pycline.cli.headless import run_headless
    from pycline.cli.run_parsers import build_run_parser, with_flags

    ns = with_flags(build_run_parser().parse_args(args))
    if ns.bg:
        from pycline.cli.bg_cmd import start_background

        return start_background(args, ns)
    if ns.worktree is not None:
        from pycline.cli.worktree_cmd import run_in_worktree

        return run_in_worktree(ns, run_headless)
    return run_headless(ns)


def _resume_parser(name: str) -> argparse.ArgumentParser:
    from pycline.cli.run_parsers import build_resume_parser

    return build_resume_parser()


def _resume(name: str, args: list[str]) -> int:
    from pycline.cli.resume import resume
    from pycline.cli.run_parsers import build_resume_parser, with_flags

    return resume(with_flags(build_resume_parser().parse_args(args)))


def _tasks_parser(name: str) -> argparse.ArgumentParser:
    from pycline.cli.tasks_cmd import build_parser

    return build_parser(name)


def _tasks(name: str, args: list[str]) -> int:
    from pycline.cli.tasks_cmd import run_tasks_command

    return run_tasks_command(name, args)


def _checkpoints_parser(name: str) -> argparse.ArgumentParser:
    from pycline.cli.checkpoints_cmd import build_parser

    return build_parser(name)


def _checkpoints(name: str, args: list[str]) -> int:
    from pycline.cli.checkpoints_cmd import run_checkpoints_command

    return run_checkpoints_command(name, args)


def _background_parser(name: str) -> argparse.ArgumentParser:
    from pycline.cli import bg_cmd

    parsers = {"tasks": bg_cmd.tasks_parser, "attach": bg_cmd.attach_parser}
    return parsers.get(name, bg_cmd.stop_parser)()


def _background(name: str, args: list[str]) -> int:
    from pycline.cli import bg_cmd

    runners = {"tasks": bg_cmd.run_tasks_board, "attach": bg_cmd.run_attach}
    return runners.get(name, bg_cmd.run_stop)(args)


def _worktree_parser(name: str) -> argparse.ArgumentParser:
    from pycline.cli.worktree_cmd import build_parser

    return build_parser()


def _worktree(name: str, args: list[str]) -> int:
    from pycline.cli.worktree_cmd import run_worktree_command

    return run_worktree_command(args)


def _batch_parser(name: str) -> argparse.ArgumentParser:
    from pycline.cli.batch_cmd import build_parser

    return build_parser()


def _batch(name: str, args: list[str]) -> int:
    from pycline.cli.batch_cmd import run_batch_command

    return run_batch_command(args)


def _config_parser(name: str) -> argparse.ArgumentParser:
    from pycline.cli import config_cmd

    return config_cmd.build_config_parser() if name == "config" else config_cmd.build_auth_parser()


def _config(name: str, args: list[str]) -> int:
    from pycline.cli import config_cmd

    return config_cmd.run_config(args) if name == "config" else config_cmd.run_auth(args)


def _setup_parser(name: str) -> argparse.ArgumentParser:
    from pycline.cli.setup_wizard import build_parser

    return build_parser()


def _setup(name: str, args: list[str]) -> int:
    from pycline.cli.setup_wizard import run_setup

    return run_setup(args)


def _mcp_parser(name: str) -> argparse.ArgumentParser:
    from pycline.cli.mcp_cmd import build_parser

    return build_parser()


def _mcp(name: str, args: list[str]) -> int:
    from pycline.cli.mcp_cmd import run_mcp

    return run_mcp(args)


def _toggles_parser(name: str) -> argparse.ArgumentParser:
    from pycline.cli.toggles_cmd import build_parser

    return build_parser("rules" if name == "rules" else "workflows")


def _toggles(name: str, args: list[str]) -> int:
    from pycline.cli.toggles_cmd import run_toggles

    return run_toggles("rules" if name == "rules" else "workflows", args)


def _hooks_parser(name: str) -> argparse.ArgumentParser:
    from pycline.cli.hooks_cmd import build_parser

    return build_parser()


def _hooks(name: str, args: list[str]) -> int:
    from pycline.cli.hooks_cmd import run_hooks

    return run_hooks(args)


def _doctor_parser(name: str) -> argparse.ArgumentParser:
    from pycline.cli.doctor_cmd import build_parser

    return build_parser()


def _doctor(name: str, args: list[str]) -> int:
    from pycline.cli.doctor_cmd import run_doctor

    return run_doctor(args)


def _completion_parser(name: str) -> argparse.ArgumentParser:
    from pycline.cli.shell_completion import build_parser

    return build_parser()


_TASKS = (_tasks_parser, _tasks)
_CHECKPOINTS = (_checkpoints_parser, _checkpoints)
_BACKGROUND = (_background_parser, _background)

# In the order `pycline --help` lists them.
TABLE: dict[str, Command] = {
    "run": Command("run a task headless, for scripts and CI (--bg: in the background)",
                   _run_parser, _run),
    "resume": Command("continue a saved task (the latest one in this folder by default)",
                      _resume_parser, _resume),
    "history": Command("past tasks, newest first, with their folder, status and cost", *_TASKS),
    "show": Command("one saved task: its record and what happened", *_TASKS),
    "export": Command("a task's conversation as Markdown", *_TASKS),
    "delete": Command("delete a task with its checkpoints", *_TASKS),
    "favorite": Command("star a task", *_TASKS),
    "checkpoints": Command("a task's checkpoints", *_CHECKPOINTS),
    "diff": Command("what changed between checkpoints, or since one", *_CHECKPOINTS),
    "restore": Command("files and/or conversation back to a checkpoint", *_CHECKPOINTS),
    "ui": Command("the chat, history, checkpoints and settings in a browser"),
    "tasks": Command("the tasks running now, in every folder", *_BACKGROUND),
    "attach": Command("follow a running task and answer its questions", *_BACKGROUND),
    "stop": Command("stop a running task", *_BACKGROUND),
    "worktree": Command("tasks run in their own git worktree: list, show, diff, merge, discard",
                        _worktree_parser, _worktree),
    "batch": Command("many headless tasks from a JSON Lines file, each in its own copy",
                     _batch_parser, _batch),
    "config": Command("show or change settings; `config allow` for always-allowed commands",
                      _config_parser, _config),
    "auth": Command("store a provider's API key", _config_parser, _config),
    "setup": Command("choose the provider and model", _setup_parser, _setup),
    "mcp": Command("MCP servers: list, add, remove, enable, disable, restart, tools, trust",
                   _mcp_parser, _mcp),
    "rules": Command("the .clinerules files: list, switch on or off", _toggles_parser, _toggles),
    "workflows": Command("the workflows (/name commands): list, switch on or off",
                         _toggles_parser, _toggles),
    "hooks": Command("the hooks of this folder: list, trust", _hooks_parser, _hooks),
    "doctor": Command("what works on this machine and in this folder, and how to fix the rest",
                      _doctor_parser, _doctor),
    # Run by `pycline.main` (it needs every front end's parser); parsed here for its help.
    "completion": Command("shell completion for bash, zsh or fish", _completion_parser),
    "acp": Command("serve the Agent Client Protocol for editors (Zed, JetBrains, Neovim, …)"),
}  # fmt: skip
