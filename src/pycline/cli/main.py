"""The terminal's commands (`pycline`, `pycline run`, `pycline history`, …; `pycline.main` routes
`pycline ui` and `pycline acp` to the other front ends). Kept light: heavy modules are imported
only by the command that runs."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from pycline import DISTRIBUTION

# Every subcommand and what it does: `pycline --help` lists them in this order.
SUMMARIES: dict[str, str] = {
    "run": "run a task headless, for scripts and CI (--bg: in the background)",
    "resume": "continue a saved task (the latest one in this folder by default)",
    "history": "past tasks, newest first, with their folder, status and cost",
    "show": "one saved task: its record and what happened",
    "export": "a task's conversation as Markdown",
    "delete": "delete a task with its checkpoints",
    "favorite": "star a task",
    "checkpoints": "a task's checkpoints",
    "diff": "what changed between checkpoints, or since one",
    "restore": "files and/or conversation back to a checkpoint",
    "ui": "the chat, history, checkpoints and settings in a browser",
    "tasks": "the tasks running now, in every folder",
    "attach": "follow a running task and answer its questions",
    "stop": "stop a running task",
    "worktree": "tasks run in their own git worktree: list, show, diff, merge, discard",
    "batch": "many headless tasks from a JSON Lines file, each in its own copy",
    "config": "show or change settings; `config allow` for always-allowed commands",
    "auth": "store a provider's API key",
    "setup": "choose the provider and model",
    "mcp": "MCP servers: list, add, remove, enable, disable, restart, tools, trust",
    "rules": "the .clinerules files: list, switch on or off",
    "workflows": "the workflows (/name commands): list, switch on or off",
    "hooks": "the hooks of this folder: list, trust",
    "doctor": "what works on this machine and in this folder, and how to fix the rest",
    "completion": "shell completion for bash, zsh or fish",
    "acp": "serve the Agent Client Protocol for editors (Zed, JetBrains, Neovim, …)",
}
COMMANDS = tuple(SUMMARIES)


def _common(parser: argparse.ArgumentParser) -> None:
    from pycline.app.flags import add_common_flags

    add_common_flags(parser)


def _sandbox_flag(namespace: argparse.Namespace) -> argparse.Namespace:
    from pycline.app.flags import apply_flags

    return apply_flags(namespace)


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
    _common(parser)
    parser.add_argument(
        "-y", "--yes", action="store_true", help="approve every action inside the workspace"
    )
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    _auto_flag(parser)
    from pycline.cli.worktree_flags import add_run_flags

    add_run_flags(parser, interactive=True)
    parser.add_argument("task", nargs="*", help="what to do (asked for when omitted)")
    return parser


def _commands_help() -> str:
    width = max(map(len, COMMANDS))
    rows = "\n".join(f"  {name:<{width}}  {about}" for name, about in SUMMARIES.items())
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


def build_run_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pycline run", description="Run a task headless: no prompts, for scripts and CI."
    )
    _common(parser)
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
    _auto_flag(parser)
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


def _auto_flag(parser: argparse.ArgumentParser) -> None:
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
    _common(parser)
    parser.add_argument("id", nargs="?", help="task id (see `pycline history`)")
    parser.add_argument("--headless", action="store_true", help="no prompts, as `pycline run`")
    parser.add_argument(
        "-y", "--yes", action="store_true", help="headless: approve actions inside the workspace"
    )
    parser.add_argument("--json", action="store_true", help="headless: one JSON event per line")
    return parser


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


# Each of the terminal's subcommands' parser: (module, factory, the factory's arguments), imported
# only when asked (`pycline.main` knows those of `ui` and `acp`).
_PARSERS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "run": ("pycline.cli.main", "build_run_parser", ()),
    "resume": ("pycline.cli.main", "build_resume_parser", ()),
    "mcp": ("pycline.cli.mcp_cmd", "build_parser", ()),
    "hooks": ("pycline.cli.hooks_cmd", "build_parser", ()),
    "rules": ("pycline.cli.toggles_cmd", "build_parser", ("rules",)),
    "workflows": ("pycline.cli.toggles_cmd", "build_parser", ("workflows",)),
    "config": ("pycline.cli.config_cmd", "build_config_parser", ()),
    "auth": ("pycline.cli.config_cmd", "build_auth_parser", ()),
    "setup": ("pycline.cli.setup_wizard", "build_parser", ()),
    "worktree": ("pycline.cli.worktree_cmd", "build_parser", ()),
    "batch": ("pycline.cli.batch_cmd", "build_parser", ()),
    "tasks": ("pycline.cli.bg_cmd", "tasks_parser", ()),
    "attach": ("pycline.cli.bg_cmd", "attach_parser", ()),
    "stop": ("pycline.cli.bg_cmd", "stop_parser", ()),
    "doctor": ("pycline.cli.doctor_cmd", "build_parser", ()),
    "completion": ("pycline.cli.shell_completion", "build_parser", ()),
    **{name: ("pycline.cli.tasks_cmd", "build_parser", (name,)) for name in (
        "history", "show", "export", "delete", "favorite"
    )},
    **{name: ("pycline.cli.checkpoints_cmd", "build_parser", (name,)) for name in (
        "checkpoints", "restore", "diff"
    )},
}  # fmt: skip


def command_parser(name: str) -> argparse.ArgumentParser:
    """The parser of one of the terminal's subcommands."""
    import importlib

    module, factory, arguments = _PARSERS[name]
    built: argparse.ArgumentParser = getattr(importlib.import_module(module), factory)(*arguments)
    return built


def command_parsers() -> dict[str, Callable[[], argparse.ArgumentParser]]:
    """Each of the terminal's subcommands' parser (`pycline.main.command_parsers` has them all)."""
    from functools import partial

    return {name: partial(command_parser, name) for name in COMMANDS if name in _PARSERS}


def _dispatch(args: list[str]) -> int:
    command = args[0] if args and args[0] in COMMANDS else None
    looks_like_command = len(args) == 1 or (len(args) > 1 and args[1][:1] in "-0123456789")
    if command is None and args and looks_like_command and (meant := near_command(args[0])):
        print(
            f"pycline: unknown command {args[0]!r}; did you mean `pycline {meant}`? "
            f"(To give a one-word task, use `pycline run {args[0]}` or type it at the prompt.)",
            file=sys.stderr,
        )
        return 2
    if command == "setup":
        from pycline.cli.setup_wizard import run_setup

        return run_setup(args[1:])
    if command == "run":
        from pycline.cli.headless import run_headless

        ns = _sandbox_flag(build_run_parser().parse_args(args[1:]))
        if ns.bg:
            from pycline.cli.bg_cmd import start_background

            return start_background(args[1:], ns)
        if ns.worktree is not None:
            from pycline.cli.worktree_cmd import run_in_worktree

            return run_in_worktree(ns, run_headless)
        return run_headless(ns)
    if command == "worktree":
        from pycline.cli.worktree_cmd import run_worktree_command

        return run_worktree_command(args[1:])
    if command in ("tasks", "attach", "stop"):
        from pycline.cli.bg_cmd import run_attach, run_stop, run_tasks_board

        handlers = {"tasks": run_tasks_board, "attach": run_attach, "stop": run_stop}
        return handlers[command](args[1:])
    if command == "doctor":
        from pycline.cli.doctor_cmd import run_doctor

        return run_doctor(args[1:])
    if command == "batch":
        from pycline.cli.batch_cmd import run_batch_command

        return run_batch_command(args[1:])
    if command == "mcp":
        from pycline.cli.mcp_cmd import run_mcp

        return run_mcp(args[1:])
    if command == "hooks":
        from pycline.cli.hooks_cmd import run_hooks

        return run_hooks(args[1:])
    if command in ("rules", "workflows"):
        from pycline.cli.toggles_cmd import run_toggles

        return run_toggles("rules" if command == "rules" else "workflows", args[1:])
    if command in ("config", "auth"):
        from pycline.cli.config_cmd import run_auth, run_config

        return run_config(args[1:]) if command == "config" else run_auth(args[1:])
    if command in ("history", "show", "export", "delete", "favorite"):
        from pycline.cli.tasks_cmd import run_tasks_command

        return run_tasks_command(command, args[1:])
    if command in ("checkpoints", "restore", "diff"):
        from pycline.cli.checkpoints_cmd import run_checkpoints_command

        return run_checkpoints_command(command, args[1:])
    if command == "resume":
        from pycline.cli.resume import resume

        return resume(_sandbox_flag(build_resume_parser().parse_args(args[1:])))
    namespace = _sandbox_flag(build_parser().parse_args(args))
    from pycline.cli.interactive import run_interactive

    if namespace.worktree is not None:
        from pycline.cli.worktree_cmd import run_in_worktree

        return run_in_worktree(namespace, run_interactive)
    return run_interactive(namespace)


if __name__ == "__main__":  # the terminal's commands only; `python -m pycline` routes them all
    sys.exit(main())
