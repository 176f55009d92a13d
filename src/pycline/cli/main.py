"""`pycline` entry point. Kept light: heavy modules are imported only by the command that runs."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

COMMANDS = (
    "run",
    "history",
    "resume",
    "mcp",
    "config",
    "auth",
    # saved tasks and their checkpoints (cli/tasks_cmd.py, cli/checkpoints_cmd.py)
    "show",
    "export",
    "delete",
    "favorite",
    "checkpoints",
    "restore",
    "diff",
    # many tasks at once (cli/worktree_cmd.py, cli/batch_cmd.py, cli/bg_cmd.py)
    "worktree",
    "batch",
    "tasks",
    "attach",
    "stop",
)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cwd", default=".", help="the project folder (default: current folder)")
    parser.add_argument(
        "--provider",
        help="openai (any OpenAI-compatible server), anthropic, openrouter, deepseek, groq, "
        "together, xai, mistral, ollama, lmstudio, vllm, llamacpp, gemini, bedrock, vertex, "
        "scripted",
    )
    parser.add_argument("--model", help="model id, e.g. gpt-4o, claude-sonnet-4-6, llama3.1")
    parser.add_argument(
        "--base-url", help="API base URL, e.g. http://localhost:11434/v1 for Ollama"
    )
    parser.add_argument("--api-key", help="API key (else from environment or saved settings)")
    parser.add_argument("--script", help="scripted provider: JSON file of replies")
    parser.add_argument("--profile", help="use a model profile from the settings (`profiles`)")
    parser.add_argument(
        "--plan", action="store_true", help="start in Plan mode (explore and plan; no edits)"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pycline",
        description=(
            "An autonomous coding agent in your terminal. `pycline [TASK]` starts an interactive "
            "session; `pycline run TASK` runs headless; `pycline history` lists past tasks "
            "(`show`, `export`, `delete`, `favorite`, `resume` take a task id; `checkpoints`, "
            "`diff`, `restore` work with its checkpoints); "
            "`pycline config` shows or changes settings; `pycline auth PROVIDER` stores a key."
        ),
    )
    _common(parser)
    from pycline.cli.worktree_flags import add_run_flags

    add_run_flags(parser, interactive=True)
    parser.add_argument("task", nargs="*", help="what to do (asked for when omitted)")
    return parser


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
        "--bg",
        action="store_true",
        help="run in the background (survives closing the terminal); see `pycline tasks`, "
        "`pycline attach ID`, `pycline stop ID`",
    )
    from pycline.cli.worktree_flags import add_run_flags

    add_run_flags(parser)
    parser.add_argument("task", nargs="+", help="what to do")
    return parser


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
    command = args[0] if args and args[0] in COMMANDS else None
    if command == "run":
        from pycline.cli.headless import run_headless

        ns = build_run_parser().parse_args(args[1:])
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
    if command == "batch":
        from pycline.cli.batch_cmd import run_batch_command

        return run_batch_command(args[1:])
    if command == "mcp":
        from pycline.cli.mcp_cmd import run_mcp

        return run_mcp(args[1:])
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

        return resume(build_resume_parser().parse_args(args[1:]))
    namespace = build_parser().parse_args(args)
    from pycline.cli.interactive import run_interactive

    if namespace.worktree is not None:
        from pycline.cli.worktree_cmd import run_in_worktree

        return run_in_worktree(namespace, run_interactive)
    return run_interactive(namespace)


if __name__ == "__main__":
    sys.exit(main())
