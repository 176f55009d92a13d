"""An OS sandbox for the commands the model runs (Linux, bubblewrap).

A command line cannot be made safe by reading it: `python -c`, `git show`, `grep -r` and a
thousand other forms read what they like. So the command runs where it cannot reach what it must
not: the file system is mounted read-only except the workspace (writable in `workspace-write`,
read-only in `read-only`) and a private `/tmp`; pycline's home, the user's key files and the
paths `.clineignore` hides are covered by empty stand-ins; secrets are removed from the
environment; the network is cut when the settings say so. The command gets its own pid
namespace, so whatever it leaves running (double forks, `setsid`, `nohup … &`) dies with it, and
with pycline itself.

Where bubblewrap is missing or cannot create namespaces, commands run as before and the caller
tells the user once (`unavailable_reason`).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

SandboxMode = Literal["off", "workspace-write", "read-only"]
SANDBOX_MODES: tuple[SandboxMode, ...] = ("off", "workspace-write", "read-only")
# The `--sandbox` flag's value, for every task this process starts; wins over the settings.
SANDBOX_ENV = "PYCLINE_SANDBOX"

# Files and folders in the user's home that hold credentials for other services.
USER_KEY_FILES = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".config/gh",
    ".config/gcloud",
    ".config/hub",
    ".local/share/python_keyring",
    ".local/share/keyrings",
    ".password-store",
)

# Environment variables whose names say they hold a secret.
_SECRET_ENV = re.compile(
    r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION)|^AWS_|^AZURE_|^GOOGLE_APP",
    re.IGNORECASE,
)
# How many hidden paths one command may mask; past that the command is refused (see `wrap`).
MAX_MASKS = 4_000


class SandboxUnavailable(RuntimeError):
    """The sandbox was asked for and cannot be set up; the command must not run unsandboxed."""


@dataclass(frozen=True, slots=True)
class SandboxPolicy:
    mode: SandboxMode
    workspace: Path
    home: Path  # PYCLINE_HOME: settings, secrets, task history
    network: bool = True
    user_home: Path = field(default_factory=Path.home)
    # Paths inside the workspace that `.clineignore` hides (computed per command).
    hidden: Callable[[], Iterable[Path]] = lambda: ()
    # Asked for by the user (flag or setting) rather than chosen by default: when bubblewrap
    # fails, an explicit request refuses the command instead of running it unsandboxed.
    explicit: bool = False

    @property
    def enabled(self) -> bool:
        return self.mode != "off"


@functools.cache
def bwrap_path() -> str | None:
    """The bubblewrap binary, if it is installed and can create the namespaces we need."""
    found = shutil.which("bwrap")
    if found is None:
        return None
    try:
        probe = subprocess.run(
            [found, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid",
             "--die-with-parent", "true"],
            capture_output=True,
            timeout=10,
            check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return found if probe.returncode == 0 else None


def unavailable_reason() -> str | None:
    """None when commands can be sandboxed here; else one line for the user."""
    if not Path("/proc").is_dir():
        return "Commands run without a sandbox: it needs Linux with bubblewrap (bwrap)."
    if shutil.which("bwrap") is None:
        return (
            "Commands run without a sandbox: bubblewrap is not installed "
            "(apt-get install bubblewrap); set sandbox: off to silence this."
        )
    if bwrap_path() is None:
        return (
            "Commands run without a sandbox: bubblewrap cannot create namespaces here "
            "(unprivileged user namespaces are disabled)."
        )
    return None


def clean_env(env: Mapping[str, str]) -> dict[str, str]:
    """`env` without the variables that hold secrets."""
    return {k: v for k, v in env.items() if not _SECRET_ENV.search(k)}


def _masks(policy: SandboxPolicy) -> list[Path]:
    paths = [policy.home]
    paths.extend(policy.user_home / name for name in USER_KEY_FILES)
    hidden = []
    for i, path in enumerate(policy.hidden()):
        if i >= MAX_MASKS:
            raise SandboxUnavailable(
                f"More than {MAX_MASKS} paths are hidden by .clineignore; the sandbox cannot "
                "cover them all. Ignore whole folders instead of many single files."
            )
        hidden.append(path)
    return [p for p in (*paths, *hidden) if os.path.lexists(p)]


_PRIVATE_DIRS = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"))


def wrap(argv: list[str], policy: SandboxPolicy, cwd: Path) -> list[str]:
    """`argv` run in `cwd` inside the sandbox the policy describes."""
    bwrap = bwrap_path()
    if bwrap is None:
        raise SandboxUnavailable(unavailable_reason() or "bubblewrap cannot be used")
    workspace = policy.workspace.resolve()
    args = [
        bwrap,
        "--die-with-parent",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--tmpfs", "/tmp",
        "--tmpfs", "/var/tmp",
        "--tmpfs", "/dev/shm",
    ]  # fmt: skip
    # pycline's own Python environment stays usable when it lives in a temporary folder (a
    # checkout under /tmp): the private /tmp would otherwise hide the interpreter it offers.
    own = Path(sys.prefix).resolve()
    if any(own.is_relative_to(t) for t in _PRIVATE_DIRS):
        args += ["--ro-bind", str(own), str(own)]
    if not policy.network:
        args.append("--unshare-net")
    bind = "--bind" if policy.mode == "workspace-write" else "--ro-bind"
    args += [bind, str(workspace), str(workspace)]
    for path in _masks(policy):
        # A link is covered where it leads: that is what a command opening it would read.
        real = Path(os.path.realpath(path))
        if real.is_dir():
            args += ["--tmpfs", str(real), "--remount-ro", str(real)]
        elif real.exists():
            args += ["--ro-bind", "/dev/null", str(real)]
    args += ["--chdir", str(cwd), "--"]
    return args + argv
