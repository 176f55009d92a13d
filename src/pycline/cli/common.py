"""Shared pieces of the terminal commands: config from flags, the event loop, error lines."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pycline.app.config import ModelConfig, resolve, resolve_plan
from pycline.storage.paths import pycline_home


def flags_config(ns: argparse.Namespace) -> ModelConfig:
    return ModelConfig(
        provider=ns.provider,
        model=ns.model,
        base_url=ns.base_url,
        api_key=ns.api_key,
        script=ns.script,
    )


def resolved_config(ns: argparse.Namespace) -> tuple[Path, ModelConfig]:
    home = pycline_home()
    cwd = Path(ns.cwd).expanduser().resolve()
    return home, resolve(flags_config(ns), home, workspace=cwd, profile=ns.profile)


def plan_config(ns: argparse.Namespace, home: Path, act: ModelConfig) -> ModelConfig | None:
    """Plan mode's own model (`planMode` in the settings); None: the same as Act."""
    cwd = Path(ns.cwd).expanduser().resolve()
    return resolve_plan(flags_config(ns), home, act, workspace=cwd, profile=ns.profile)


def workspace_dir(ns: argparse.Namespace) -> Path:
    path = Path(ns.cwd).expanduser().resolve()
    if not path.is_dir():
        fail(f"--cwd {ns.cwd}: not a folder")
    return path


def fail(message: str, code: int = 2) -> None:
    print(f"pycline: {message}", file=sys.stderr)
    raise SystemExit(code)
