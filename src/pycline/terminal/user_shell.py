"""Commands run in the user's own environment: their interactive shell's, captured once.

A login shell (`bash -l -c`) is not that environment: Debian's `/etc/profile` resets PATH, so
pyenv shims, `~/.cargo/bin` and the virtualenv the user activated are gone, and profile scripts
print into every command's output. Instead, the user's shell is started once per session as an
interactive shell (`-i`: their `~/.bashrc` / `~/.zshrc` runs, as in their terminal), from
pycline's own environment (so what they activated before starting pycline stays); its
environment, aliases and functions are kept. Each command then runs non-interactively (`-c`)
with that environment, after sourcing the aliases and functions (bash, zsh). pycline's own
virtualenv is taken off PATH unless the user activated it. Where capturing fails or times out,
commands get pycline's own environment.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import logging
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

CAPTURE_TIMEOUT = 10.0
# Set while the user's shell starts for the capture, so a start-up file can tell (and, say, skip
# `exec tmux`), as VS Code's VSCODE_RESOLVING_ENVIRONMENT does.
RESOLVING_ENV = "PYCLINE_RESOLVING_ENVIRONMENT"
MAX_SNAPSHOT = 2 * 1024 * 1024

# Shells that run a POSIX command line as the model writes it; another login shell (fish) still
# gives its environment, but the command runs in bash.
_POSIX = frozenset({"bash", "zsh", "ksh", "sh", "dash"})
_CAPTURED = frozenset({"bash", "zsh", "ksh", "fish"})
_SNAPSHOT_COMMANDS = {
    "bash": "alias -p; declare -f",
    "zsh": "alias -L; typeset -f",
}
# Variables that describe the capturing shell, not the user's environment.
_SHELL_OWN = frozenset({"SHLVL", "PWD", "OLDPWD", "_", RESOLVING_ENV, "PS1", "PS2", "PROMPT"})
_START, _MIDDLE, _END = "<<pycline-env-7f1c>>", "<<pycline-snapshot-7f1c>>", "<<pycline-end-7f1c>>"
# An alias or function that spells out a secret is not carried into commands.
_SECRET_TEXT = re.compile(
    r"[A-Za-z_]*(KEY|TOKEN|SECRET|PASSWORD|PASSWD)[A-Za-z_]*=['\"]?[^\s'\"$]{6,}"
    r"|://[^/\s@]+:[^/\s@]+@",
    re.IGNORECASE,
)

# The first line of a function as bash (`name () `) and zsh (`name () {`) print it.
_FUNCTION_START = re.compile(r"^[^\s#{}()]+ \(\)\s*\{?\s*$")


@dataclass(frozen=True, slots=True)
class UserShell:
    """How commands are run: which shell, with what environment, after sourcing what."""

    path: str
    env: dict[str, str] = field(default_factory=dict)
    snapshot: Path | None = None  # aliases and functions, sourced before each command

    def argv(self, command: str) -> list[str]:
        if self.snapshot is None:
            return [self.path, "-c", command]
        # On its own line: aliases apply to the lines read after the one that defines them.
        return [self.path, "-c", f". {shlex.quote(str(self.snapshot))}\n{command}"]

    def files(self) -> list[Path]:
        """Files the command's shell reads (a sandbox must show them)."""
        return [self.snapshot] if self.snapshot is not None else []


_lock = threading.Lock()
_captured: dict[str, UserShell] = {}


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """End a start-up that hangs: politely first, since a start-up script may hold a lock it
    removes on exit (pyenv's rehash does)."""
    for sig, grace in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(grace)
            return
        except subprocess.TimeoutExpired:
            continue


async def session_shell(cwd: Path) -> UserShell:
    """The user's shell for this session (captured on first use; later calls reuse it)."""
    shell = os.environ.get("SHELL", "")
    if shell in _captured:
        return _captured[shell]
    return await asyncio.to_thread(_capture_once, shell, cwd)


def prefetch(cwd: Path) -> None:
    """Start capturing in the background (a session's start), so the first command does not
    wait for the user's shell to start."""
    shell = os.environ.get("SHELL", "")
    if shell not in _captured:
        threading.Thread(target=_capture_once, args=(shell, cwd), daemon=True).start()


def _capture_once(shell: str, cwd: Path) -> UserShell:
    with _lock:
        if shell not in _captured:
            _captured[shell] = capture(shell, cwd)
        return _captured[shell]


def capture(shell: str, cwd: Path, *, timeout: float = CAPTURE_TIMEOUT) -> UserShell:
    """Start `shell` interactively once and keep its environment, aliases and functions."""
    base = dict(os.environ)
    runner = _runner(shell)
    name = os.path.basename(shell)
    if runner is None:
        return UserShell("/bin/sh", _without_own_venv(base))
    if name not in _CAPTURED or not _usable(shell):
        return UserShell(runner, _without_own_venv(base))
    dump = (
        f"printf '%s' {shlex.quote(_START)}; "
        f"{shlex.quote(sys.executable)} -I -S -c "
        "'import json, os, sys; sys.stdout.write(json.dumps(dict(os.environ)))'; "
        f"printf '%s' {shlex.quote(_MIDDLE)}; "
        f"{_SNAPSHOT_COMMANDS.get(name, 'true')}; "
        f"printf '%s' {shlex.quote(_END)}"
    )
    try:
        proc = subprocess.Popen(
            [shell, "-i", "-c", dump],
            cwd=cwd,
            env={**base, RESOLVING_ENV: "1"},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as exc:
        log.info("could not read the environment of %s: %s", shell, exc)
        return UserShell(runner, _without_own_venv(base))
    # Not stopped when pycline exits first: a start-up script cut short can leave a lock
    # behind (pyenv's rehash does), and this one ends on its own within moments.
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        log.info(
            "%s took more than %ss to start; commands get pycline's environment", shell, timeout
        )
        _stop(proc)
        return UserShell(runner, _without_own_venv(base))
    parsed = _parse(out.decode("utf-8", errors="replace"))
    if parsed is None:
        log.info("%s printed no environment (exit %s)", shell, proc.returncode)
        return UserShell(runner, _without_own_venv(base))
    env, snapshot_text = parsed
    env = {k: v for k, v in env.items() if k not in _SHELL_OWN}
    # Aliases are off in a non-interactive bash unless switched on.
    prelude = "shopt -s expand_aliases\n" if name == "bash" else ""
    snapshot = _write_snapshot(prelude, snapshot_text) if runner == shell else None
    return UserShell(runner, _without_own_venv(env), snapshot)


def _runner(shell: str) -> str | None:
    """The shell that runs command lines: the user's when it is a POSIX one, else bash."""
    if shell and os.path.basename(shell) in _POSIX and _usable(shell):
        return shell
    for candidate in ("/bin/bash", "/usr/bin/bash", "/bin/sh"):
        if _usable(candidate):
            return candidate
    return None


def _usable(shell: str) -> bool:
    return bool(shell) and os.path.isabs(shell) and os.access(shell, os.X_OK)


def _parse(out: str) -> tuple[dict[str, str], str] | None:
    start = out.rfind(_START)
    middle = out.find(_MIDDLE, start)
    end = out.find(_END, middle)
    if start < 0 or middle < 0 or end < 0:
        return None
    try:
        env = json.loads(out[start + len(_START) : middle])
    except ValueError:
        return None
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        return None
    return env, out[middle + len(_MIDDLE) : end]


def _without_own_venv(env: dict[str, str]) -> dict[str, str]:
    """`env` with pycline's own virtualenv off PATH, unless it is the one the user activated."""
    if sys.prefix == sys.base_prefix:
        return env
    own = Path(sys.prefix).resolve()
    active = env.get("VIRTUAL_ENV")
    if active and _same(Path(active), own):
        return env
    entries = env.get("PATH", "").split(os.pathsep)
    kept = [e for e in entries if not (e and _same(Path(e).parent, own))]
    return {**env, "PATH": os.pathsep.join(kept)}


def _same(a: Path, b: Path) -> bool:
    with contextlib.suppress(OSError):
        return a.resolve() == b
    return False


def _write_snapshot(prelude: str, text: str) -> Path | None:
    """Aliases and functions as a file to source, without any that spells out a secret."""
    kept = [chunk for chunk in _chunks(text) if not _SECRET_TEXT.search(chunk)]
    body = "".join(kept)
    if not body.strip() or len(body) > MAX_SNAPSHOT:
        return None
    body = prelude + body
    fd, name = tempfile.mkstemp(prefix="pycline-shell-", suffix=".sh")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(body)
    atexit.register(_remove, Path(name))
    return Path(name)


def _chunks(text: str) -> list[str]:
    """One alias per line; a function from its `name ()` line to the next top-level item."""
    chunks: list[str] = []
    for line in text.splitlines(keepends=True):
        starts = line.startswith("alias ") or _FUNCTION_START.match(line)
        if starts or not chunks:
            chunks.append(line)
        else:
            chunks[-1] += line
    return chunks


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()
