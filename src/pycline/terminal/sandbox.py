"""An OS sandbox for the commands the model runs (Linux, bubblewrap).

A command line cannot be made safe by reading it: `python -c`, `git show`, `grep -r` and a
thousand other forms read what they like. So the command runs where it cannot reach what it must
not: the file system is mounted read-only except the workspace (writable in `workspace-write`,
read-only in `read-only`) and a private `/tmp`; the user's home shows only toolchains and build
settings (`sandbox_home`), never credential files, sockets or FIFOs (`home_scan`); pycline's home, the runtime folders (session
bus, control sockets), container engines' sockets and the paths `.clineignore` hides are covered
by empty stand-ins; the parts of `.git` that make git run programs (hooks, config, attributes)
are read-only; secrets are removed from the environment (`sandbox_env`); abstract sockets of the
host are out of reach (`confine`, or a network namespace when the network is off). The command
gets its own pid namespace, so whatever it leaves running (double forks, `setsid`,
`nohup … &`) dies with it, and with pycline itself.

Where bubblewrap is missing or cannot create namespaces, commands run as before and the caller
tells the user once (`unavailable_reason`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from pycline.terminal import git_guard, home_scan, sandbox_home
from pycline.terminal.confine import can_scope_abstract_sockets, confined
from pycline.terminal.sandbox_env import clean_env
from pycline.terminal.sandbox_home import is_under as under

SandboxMode = Literal["off", "workspace-write", "read-only"]
SANDBOX_MODES: tuple[SandboxMode, ...] = ("off", "workspace-write", "read-only")
# The `--sandbox` flag's value, for every task this process starts; wins over the settings.
SANDBOX_ENV = "PYCLINE_SANDBOX"

__all__ = [
    "MAX_MASKS",
    "SANDBOX_ENV",
    "SANDBOX_MODES",
    "SandboxMode",
    "SandboxPolicy",
    "SandboxUnavailable",
    "bwrap_path",
    "clean_env",
    "limits",
    "program_argv",
    "unavailable_reason",
    "wrap",
]

# How many hidden paths one command may mask; past that the command is refused (see `wrap`).
MAX_MASKS = 4_000

# Sockets of container engines: whoever reaches one runs containers as the engine's user.
_ENGINE_SOCKETS = (
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/containerd/containerd.sock",
    "/run/podman/podman.sock",
    "/run/buildkit/buildkitd.sock",
)
_PRIVATE_DIRS = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"))


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
    # pycline's runtime folders (control sockets of background tasks): never visible inside.
    runtime: tuple[Path, ...] = ()
    # The user's own additions to what of their home a command sees (read-only).
    home_visible: tuple[str, ...] = ()

    @property
    def enabled(self) -> bool:
        return self.mode != "off"

    def offline(self) -> SandboxPolicy:
        """The same sandbox without the network."""
        return replace(self, network=False)


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


def limits(policy: SandboxPolicy) -> str | None:
    """What this machine's sandbox cannot hold, in one line for the user; None when nothing."""
    if policy.enabled and policy.network and not can_scope_abstract_sockets():
        return (
            "The sandbox cannot cut commands off from the host's abstract sockets on this "
            "kernel (Landlock scoping needs Linux 6.12); set sandboxNetwork: false to cut them off."
        )
    return None


def wrap(
    argv: list[str],
    policy: SandboxPolicy,
    cwd: Path,
    *,
    env: Mapping[str, str] | None = None,
    files: Sequence[tuple[Path, Path]] = (),
    env_in_argv: bool = False,
    scope_in_argv: bool = True,
) -> list[str]:
    """`argv` run in `cwd` inside the sandbox the policy describes.

    `env` is the environment the command gets (its PATH decides which toolchain folders of the
    home it sees); with `env_in_argv` it is set by bubblewrap itself, cleaned, for a spawner
    that cannot be given an environment (an editor's terminal). `files` are (source, place)
    pairs shown read-only inside, even inside a covered folder (a language server pycline
    installed in its home). Without `scope_in_argv` the caller puts the process under the
    abstract-socket scoping itself (`confine.scoping` as its preexec_fn).
    """
    bwrap = bwrap_path()
    if bwrap is None:
        raise SandboxUnavailable(unavailable_reason() or "bubblewrap cannot be used")
    env = os.environ if env is None else env
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
    if not policy.network:
        args.append("--unshare-net")
    user_home = _real_dir(policy.user_home)
    shown: list[Path] = [workspace]
    # A workspace that holds the home (the home itself) shows it; its secrets are still covered.
    inside_home: list[Path] = []
    if user_home is not None and not user_home.is_relative_to(workspace):
        args += ["--tmpfs", str(user_home)]
        for path in sandbox_home.visible_paths(user_home, env, policy.home_visible):
            args += _show(path)
            shown.append(path)
            inside_home.append(path)
    # pycline's own interpreter (which sets up the confinement) wherever it lives.
    for path in _interpreter_paths():
        if _hidden_by(path, user_home) and not any(path.is_relative_to(s) for s in shown):
            args += ["--ro-bind", str(path), str(path)]
            shown.append(path)
    masks = _masks(policy, user_home, shown)
    # Sockets, FIFOs and credential stores inside the shown folders, where the command sees them.
    masks += [p for p in home_scan.to_cover(inside_home) if p not in masks]
    # A mask over a folder that holds the workspace (worktrees live in PYCLINE_HOME) goes
    # first, so the workspace is mounted over it and stays reachable.
    before = [m for m in masks if workspace.is_relative_to(m)]
    args += [arg for path in before for arg in _cover(path)]
    bind = "--bind" if policy.mode == "workspace-write" else "--ro-bind"
    args += [bind, str(workspace), str(workspace)]
    args += _git_mounts(workspace, writable=policy.mode == "workspace-write")
    args += [arg for path in masks if path not in before for arg in _cover(path)]
    for source, place in files:
        args += ["--ro-bind", str(source), str(place)]
    # Covered folders become read-only last, once whatever is mounted inside them is.
    args += [arg for path in masks if path.is_dir() for arg in ("--remount-ro", str(path))]
    args += ["--chdir", str(cwd)]
    if env_in_argv:
        args.append("--clearenv")
        for name, value in clean_env(env).items():
            args += ["--setenv", name, value]
    args.append("--")
    if scope_in_argv and can_scope_abstract_sockets():
        argv = confined(argv, sys.executable)
    return args + argv


def program_argv(
    argv: Sequence[str],
    policy: SandboxPolicy | None,
    cwd: Path,
    env: Mapping[str, str],
    *,
    reveal: Sequence[Path] = (),
) -> tuple[list[str], dict[str, str]]:
    """A program pycline starts by itself on the workspace (a language server, a linter): it
    reads files any command could have written, so it runs in the commands' sandbox when that
    is on, without the network, and never with the user's secrets. `reveal`: folders it needs
    that the sandbox covers (where pycline installed it), shown read-only."""
    clean = clean_env(env)
    if policy is None or not policy.enabled:
        return list(argv), clean
    files = [(p, p) for p in reveal if p.exists()]
    return wrap(list(argv), policy.offline(), cwd, env=clean, files=files), clean


def _real_dir(path: Path) -> Path | None:
    """`path` resolved, when it is a folder other than `/`."""
    try:
        real = path.resolve()
    except (OSError, RuntimeError):
        return None
    return real if real.is_dir() and real != Path(real.anchor) else None


def _hidden_by(path: Path, user_home: Path | None) -> bool:
    under_home = user_home is not None and path.is_relative_to(user_home)
    return under_home or any(path.is_relative_to(t) for t in _PRIVATE_DIRS)


def _interpreter_paths() -> list[Path]:
    found = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()}
    found.add(Path(os.path.realpath(sys.executable)).parent.parent)
    return sorted(found)


def _show(path: Path) -> list[str]:
    """Mount `path` (inside the emptied home) read-only where the command expects it."""
    real = os.path.realpath(path)
    if not os.path.exists(real):
        return []
    return ["--ro-bind", real, str(path)]


def _masks(policy: SandboxPolicy, user_home: Path | None, shown: Sequence[Path]) -> list[Path]:
    """The paths to cover, resolved, each one that a command could otherwise reach."""
    wanted: list[str | Path] = [policy.home, *policy.runtime]
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime):
        wanted.append(runtime)
    wanted.append(f"/run/user/{os.getuid()}")
    wanted.extend(_ENGINE_SOCKETS)
    if user_home is not None:
        wanted.extend(sandbox_home.secret_paths(user_home))
    for i, ignored in enumerate(policy.hidden()):
        if i >= MAX_MASKS:
            raise SandboxUnavailable(
                f"More than {MAX_MASKS} paths are hidden by .clineignore; the sandbox cannot "
                "cover them all. Ignore whole folders instead of many single files."
            )
        wanted.append(ignored)
    # Strings, not pathlib: this runs before every command, over a few hundred paths.
    out_of_sight = [str(t) for t in _PRIVATE_DIRS] + ([str(user_home)] if user_home else [])
    visible = [str(s) for s in shown]
    found: dict[str, None] = {}
    for path in wanted:
        if not os.path.lexists(path):
            continue
        # A link is covered where it leads: that is what a command opening it would read.
        real = os.path.realpath(path)
        hidden = any(under(real, t) for t in out_of_sight)
        if hidden and not any(under(real, s) for s in visible):
            continue  # already out of sight (the emptied home, a private /tmp)
        found[real] = None
    # A path inside a covered folder is covered with it (unless the workspace, mounted over
    # that folder, shows it again).
    folders = [m for m in found if os.path.isdir(m)]
    workspace = str(policy.workspace.resolve())
    return [
        Path(m)
        for m in found
        if under(m, workspace) or not any(m != f and under(m, f) for f in folders)
    ]


def _cover(real: Path) -> list[str]:
    if real.is_dir():
        return ["--tmpfs", str(real)]
    if real.exists() or real.is_socket():
        return ["--ro-bind", "/dev/null", str(real)]
    return []


# The parts of a git directory that make git run programs (hooks, and the config and attribute
# files that name filters, diff and merge drivers, fsmonitor or a hooks path) or follow another
# place (`commondir`, `gitdir`, alternates, submodules' git directories): read-only where they
# exist; `git_guard` removes any that a command creates.
_GIT_EXECUTABLE_PARTS = git_guard.FOLLOWED


def _git_mounts(workspace: Path, *, writable: bool) -> list[str]:
    """Mounts that keep the workspace's git directory from arming programs that run outside.

    The folder is mounted on itself so it cannot be renamed away and replaced, and its
    executable parts are read-only. A `.git` file (a worktree's or submodule's pointer) is
    read-only, and the repository it points to is shown read-only.
    """
    dot_git = workspace / ".git"
    if dot_git.is_symlink():
        return ["--ro-bind", str(dot_git), str(dot_git)]
    if dot_git.is_file():
        args = ["--ro-bind", str(dot_git), str(dot_git)]
        common = _common_dir(dot_git)
        if common is not None and not workspace.is_relative_to(common):
            args = ["--ro-bind", str(common), str(common), *args]
        return args
    if not dot_git.is_dir() or not writable:
        return []
    args = ["--bind", str(dot_git), str(dot_git)]
    for name in ("hooks", "info"):
        # Made now so the command cannot make them; if this fails, .git is not writable anyway.
        with contextlib.suppress(OSError):
            (dot_git / name).mkdir(exist_ok=True)
    for name in _GIT_EXECUTABLE_PARTS:
        part = dot_git / name
        if part.exists() and not part.is_symlink():
            args += ["--ro-bind", str(part), str(part)]
    worktrees = dot_git / "worktrees"
    if worktrees.is_dir():
        for entry in sorted(worktrees.iterdir())[:200]:
            for name in ("config.worktree", "commondir", "gitdir"):
                part = entry / name
                if part.is_file() and not part.is_symlink():
                    args += ["--ro-bind", str(part), str(part)]
    return args


def _common_dir(pointer: Path) -> Path | None:
    """The repository a `.git` file points to (its common dir, for a worktree)."""
    try:
        text = pointer.read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    gitdir = (pointer.parent / text[len("gitdir:") :].strip()).resolve()
    try:
        common = (gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        common = gitdir
    return common if common.is_dir() else None
