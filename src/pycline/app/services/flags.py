"""The flags every command shares (`--cwd`, the model, `--plan`, `--sandbox`), for the terminal's
commands and `pycline ui` alike; `ConfigOverrides.from_args` reads the model ones back."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from pycline.errors import ConfigError


def add_common_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cwd", default=".", help="the project folder (default: current folder)")
    parser.add_argument(
        "--provider",
        help="openai (any OpenAI-compatible server), anthropic, openrouter, deepseek, groq, "
        "together, xai, mistral, ollama, lmstudio, vllm, llamacpp, gemini, bedrock, vertex, "
        "local (the built-in model `pycline setup` installs), scripted",
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
    parser.add_argument(
        "--sandbox",
        choices=("off", "workspace-write", "read-only"),
        help="where commands run: an OS sandbox with a writable (default where bubblewrap works) "
        "or read-only workspace, or off",
    )


def apply_flags(namespace: argparse.Namespace) -> argparse.Namespace:
    """Parsed flags made ready to use: the task's words cleaned, `--sandbox` in force."""
    # Words that are not UTF-8 arrive as lone surrogates (Python decodes the command line with
    # surrogateescape); as a task's text they could be neither saved nor sent.
    if isinstance(getattr(namespace, "task", None), list):
        from pycline.parsing.surrogates import clean

        namespace.task = [clean(word) for word in namespace.task]
    # The flag travels like the setting's override in the environment, so every task started
    # from this process (and nothing else) sees it.
    if getattr(namespace, "sandbox", None):
        from pycline.terminal.sandbox import SANDBOX_ENV

        os.environ[SANDBOX_ENV] = namespace.sandbox
    return namespace


def workspace_of(namespace: argparse.Namespace) -> Path:
    """The `--cwd` folder, resolved; `ConfigError` when it is not a folder."""
    path = Path(namespace.cwd).expanduser().resolve()
    if not path.is_dir():
        raise ConfigError(f"--cwd {namespace.cwd}: not a folder")
    return path
