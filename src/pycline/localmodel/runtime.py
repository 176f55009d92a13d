"""The runtime that serves the built-in model: llama.cpp's `llama-server`.

No sound prebuilt llama-server is on the registries (the packages that claim one come from
unknown publishers with implausible versions; node-llama-cpp ships bindings, not the server), so
it is built once from the llama.cpp sources vendored in the pinned `llama-cpp-python` sdist
(fetched by pip with its hash), with portable CPU flags, and kept in PYCLINE_HOME/runtime.
`PYCLINE_LLAMA_SERVER` names another binary; a `llama-server` on PATH is used too.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from pathlib import Path

from pycline.errors import PyclineError
from pycline.localmodel import catalog
from pycline.localmodel.progress import Progress
from pycline.localmodel.provision import sha256_of

ENV = "PYCLINE_LLAMA_SERVER"
BUILD_MINUTES = 25  # on two busy cores
_STEP = re.compile(r"^\[\s*(\d+)%\]")


class RuntimeMissing(PyclineError):
    """No llama-server, and it cannot be built here."""


def runtime_dir(home: Path) -> Path:
    return home / "runtime" / catalog.RUNTIME_NAME


def built_binary(home: Path) -> Path:
    return runtime_dir(home) / "bin" / "llama-server"


def find_server(home: Path) -> Path | None:
    """The llama-server to use: $PYCLINE_LLAMA_SERVER, the one built into PYCLINE_HOME, or one
    on PATH; None when there is none."""
    named = os.environ.get(ENV)
    if named:
        path = Path(named).expanduser()
        return path if path.is_file() and os.access(path, os.X_OK) else None
    built = built_binary(home)
    if built.is_file() and os.access(built, os.X_OK):
        return built
    found = shutil.which("llama-server")
    return Path(found) if found else None


def build_tools_missing() -> list[str]:
    """What the build needs and this machine lacks (Debian package names)."""
    missing = []
    if shutil.which("cmake") is None:
        missing.append("cmake")
    if shutil.which("c++") is None and shutil.which("g++") is None:
        missing.append("g++")
    return missing


def fetch_sdist(home: Path, pip_args: Sequence[str] = ()) -> Path:
    """The pinned llama-cpp-python sdist in the cache, fetched by pip with its hash."""
    cache = home / "runtime" / "sdist"
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / catalog.RUNTIME_SDIST_FILE
    if path.is_file() and sha256_of(path) == catalog.RUNTIME_SDIST_SHA256:
        return path
    path.unlink(missing_ok=True)
    sdist = catalog.RUNTIME_SDIST
    with tempfile.TemporaryDirectory(dir=cache, prefix=".pip-") as tmp:
        requirements = Path(tmp) / "requirements.txt"
        requirements.write_text(
            f"{sdist.package}=={sdist.version} --hash=sha256:{catalog.RUNTIME_SDIST_SHA256}\n",
            encoding="utf-8",
        )
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                   "--no-binary", ":all:", "--require-hashes", "--disable-pip-version-check",
                   "--dest", tmp, "-r", str(requirements), *pip_args]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        got = Path(tmp) / catalog.RUNTIME_SDIST_FILE
        if done.returncode != 0 or not got.is_file():
            raise RuntimeMissing(f"pip could not fetch the runtime's sources: {done.stderr[-600:]}")
        if sha256_of(got) != catalog.RUNTIME_SDIST_SHA256:
            raise RuntimeMissing("The runtime's sources are not the pinned ones (hash differs).")
        os.replace(got, path)
    return path


def build_server(home: Path, progress: Progress, jobs: int | None = None) -> Path:
    """Build llama-server from the pinned sources into PYCLINE_HOME (once: kept for later)."""
    missing = build_tools_missing()
    if missing:
        raise RuntimeMissing(
            "Building the model runtime needs " + " and ".join(missing)
            + f" (Debian/Ubuntu: sudo apt-get install {' '.join(missing)})."
        )  # fmt: skip
    progress.line("Fetching the runtime's sources (llama-cpp-python 0.3.36 sdist, pinned) ...")
    sdist = fetch_sdist(home)
    work = home / "runtime" / "build"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    with tarfile.open(sdist) as tar:
        tar.extractall(work, filter="data")
    source = next(work.glob("llama_cpp_python-*/vendor/llama.cpp"))
    build = work / "out"
    jobs = jobs or max(1, min(4, os.cpu_count() or 1))
    progress.line(f"Building llama-server (about {BUILD_MINUTES} minutes on two cores) ...")
    _run(["cmake", "-S", str(source), "-B", str(build), *catalog.CMAKE_FLAGS], progress)
    _run(["cmake", "--build", str(build), "--target", "llama-server", "-j", str(jobs)], progress)
    binary = build / "bin" / "llama-server"
    target = built_binary(home)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(".llama-server.tmp")
    shutil.copy2(binary, tmp)
    os.replace(tmp, target)
    shutil.rmtree(work, ignore_errors=True)
    progress.line(f"Runtime ready: {target}")
    return target


def _run(command: list[str], progress: Progress) -> None:
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as child:
        assert child.stdout is not None
        tail: list[str] = []
        for line in child.stdout:
            tail = [*tail[-20:], line.rstrip()]
            step = _STEP.match(line)
            if step:
                progress.bar("building llama-server", int(step[1]), 100)
    if child.returncode != 0:
        raise RuntimeMissing(f"{command[0]} failed ({child.returncode}):\n" + "\n".join(tail))


def ensure_server(home: Path, progress: Progress) -> Path:
    return find_server(home) or build_server(home, progress)


def version(binary: Path) -> str:
    """`llama-server --version`'s first line ("version: 1 (abc123)"), or "unknown"."""
    try:
        done = subprocess.run([str(binary), "--version"], capture_output=True, text=True,
                              timeout=30, check=False)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    lines = [x for x in (done.stdout + done.stderr).splitlines() if x.startswith("version")]
    return lines[0] if lines else "unknown"
