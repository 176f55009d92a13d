"""The dependency rule holds (`lint-imports`, as CI runs it), and its contracts name every part
of pycline, so a new package cannot slip past it."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pycline

REPO = Path(__file__).resolve().parents[1]
FRONT_ENDS = {"pycline.cli", "pycline.web", "pycline.acp"}
# What a front end may import besides its own package (and `pycline` itself, for the version).
ALLOWED = {
    "pycline.app",
    "pycline.events",
    "pycline.event_wire",
    "pycline.errors",
    "pycline.messages",
    "pycline.commands",
    "pycline.command_wire",
    "pycline.schema",  # data files, no code
}


def _contracts() -> list[dict[str, Any]]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    contracts: list[dict[str, Any]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def _top_level() -> set[str]:
    root = Path(pycline.__file__).parent
    names = {p.stem for p in root.glob("*.py") if p.stem not in ("__init__", "__main__")}
    names |= {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("__")}
    return {f"pycline.{n}" for n in names}


def test_the_import_contracts_are_kept() -> None:
    lint = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run(
        [str(lint), "--no-cache"], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _forbidding(
    sources: set[str] | None = None, forbidden: set[str] | None = None
) -> dict[str, Any]:
    for contract in _contracts():
        if contract["type"] != "forbidden":
            continue
        if sources is not None and set(contract["source_modules"]) == sources:
            return contract
        if forbidden is not None and set(contract["forbidden_modules"]) == forbidden:
            return contract
    raise AssertionError("no such contract in pyproject.toml")


def test_every_part_of_pycline_is_either_open_or_closed_to_the_front_ends() -> None:
    closed = set(_forbidding(sources=FRONT_ENDS)["forbidden_modules"])
    assert closed.isdisjoint(ALLOWED)
    assert _top_level() - FRONT_ENDS == closed | ALLOWED


def test_no_part_but_the_command_may_import_a_front_end() -> None:
    guarded = set(_forbidding(forbidden=FRONT_ENDS)["source_modules"])
    assert _top_level() - FRONT_ENDS - {"pycline.main", "pycline.schema"} == guarded
