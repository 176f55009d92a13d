"""`pycline doctor`: what works on this machine and in this folder, each with a one-line fix.

Every check is a real attempt, bounded in time: the model's server is asked for its models with
the configured key, the browser opens a page, each language server found for the folder's
languages is started, MCP servers are connected and their tools listed. Checks run in parallel;
the slowest one sets the time.

A check `fail`s when something this folder needs is broken (the model, a language server the
folder's files need that exists but does not start, an MCP server it configures, ripgrep, git,
a data folder that cannot be written): the command then exits 1. What is merely missing or
optional here (no sandbox, no browser, no gopls) is a `warn`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

from pycline.app.doctor.check import Check as Check
from pycline.app.doctor.check import Status as Status
from pycline.app.sessions.session import ConfigOverrides

CHECK_LIMIT = 60.0  # seconds any one check may take


@dataclass(frozen=True, slots=True)
class Report:
    version: str
    python: str
    workspace: str
    checks: tuple[Check, ...]
    seconds: float
    install: dict[str, Any] = field(default_factory=dict)

    @property
    def broken(self) -> bool:
        return any(c.status == "fail" for c in self.checks)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "python": self.python,
            "workspace": self.workspace,
            "install": self.install,
            "ok": not self.broken,
            "seconds": round(self.seconds, 2),
            "checks": [asdict(c) for c in self.checks],
        }


CheckGroup: TypeAlias = Callable[[], Awaitable[list[Check]]]


async def run_checks(
    home: Path, workspace: Path, overrides: ConfigOverrides | None = None
) -> Report:
    """Every check, in parallel, each within CHECK_LIMIT seconds."""
    from pycline.app.doctor import builtin_model, languages, machine, model, servers

    start = time.monotonic()
    overrides = overrides or ConfigOverrides()
    groups: list[tuple[str, CheckGroup]] = [
        ("install", machine.check_install),
        ("model", lambda: model.check_model(home, workspace, overrides)),
        ("built-in model", lambda: builtin_model.check_builtin_model(home, workspace, overrides)),
        ("sandbox", lambda: machine.check_sandbox(home, workspace)),
        ("browser", lambda: machine.check_browser(home, workspace)),
        ("language servers", lambda: languages.check_language_servers(home, workspace)),
        ("ripgrep", machine.check_ripgrep),
        ("git", lambda: machine.check_git(workspace)),
        ("mcp", lambda: servers.check_mcp(home, workspace)),
        ("data folder", lambda: machine.check_data_folder(home)),
    ]
    found = await asyncio.gather(*(_bounded(name, group) for name, group in groups))
    return Report(
        version=machine.version(),
        python=machine.python_version(),
        workspace=str(workspace),
        checks=tuple(check for checks in found for check in checks),
        seconds=time.monotonic() - start,
        install=machine.install_facts(),
    )


async def _bounded(name: str, group: CheckGroup) -> list[Check]:
    from pycline.errors import PyclineError

    try:
        async with asyncio.timeout(CHECK_LIMIT):
            return await group()
    except TimeoutError:
        return [Check(name, "fail", f"the check did not finish within {CHECK_LIMIT:g}s")]
    except PyclineError as exc:  # a settings file that does not parse, most likely
        return [Check(name, "fail", str(exc))]


def missing_at_start(home: Path, workspace: Path) -> list[str]:
    """What the first screen should mention, cheaply (no network, nothing started): the
    browser tool and the sandbox, when they are off here. Each item is a few words."""
    from pycline.app.doctor import machine

    return machine.quick_missing(home, workspace)
