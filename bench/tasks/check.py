"""The hidden check of a benchmark task, run in the task's workspace after the agent finished.

Usage: python check.py LANG HIDDEN_DIR. The hidden tests are copied in only now, so the agent
never saw them. Exit status 0 means the task is solved. A missing toolchain fails loudly.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HIDDEN_PY = "_hidden_checks"
HIDDEN_TS = "_hidden_build"


def _run(cmd: list[str], **kwargs: object) -> int:
    print("$", " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=False, **kwargs).returncode  # type: ignore[call-overload]


def check_python(hidden: Path) -> int:
    target = Path(HIDDEN_PY)
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(hidden, target)
    env = {**os.environ, "PYTHONPATH": str(Path.cwd()), "PYTHONDONTWRITEBYTECODE": "1"}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:asyncio"]
    cmd += ["-o", "addopts="]
    return _run([*cmd, "--rootdir", ".", HIDDEN_PY], env=env)


def _tsc() -> str:
    for candidate in (
        os.environ.get("PYCLINE_BENCH_TSC"),
        str(REPO / ".ci" / "node" / "node_modules" / ".bin" / "tsc"),
        shutil.which("tsc"),
    ):
        if candidate and Path(candidate).is_file():
            return candidate
    sys.exit("check: the TypeScript compiler is missing (.ci/run installs typescript in .ci/node)")


def missing_checker(lang: str) -> str | None:
    """Why the hidden check of a `lang` task cannot run here, or None when it can (a bench
    says so before it starts, rather than count every such task as a wrong edit)."""
    if lang == "go" and shutil.which("go") is None:
        return "go is not installed (.ci/run installs Debian's golang-go)"
    if lang == "typescript":
        if shutil.which("node") is None:
            return "node is not installed"
        try:
            _tsc()
        except SystemExit as missing:
            return str(missing.code).removeprefix("check: ")
    return None


def check_typescript(hidden: Path) -> int:
    if (why := missing_checker("typescript")) is not None:
        sys.exit(f"check: {why}")
    out = Path(HIDDEN_TS)
    shutil.rmtree(out, ignore_errors=True)
    # Type errors fail the task, as they would in the project's own build.
    if _run([_tsc(), "-p", ".", "--outDir", str(out)]) != 0:
        return 1
    tests = out / "__tests__"
    shutil.copytree(hidden, tests)
    return _run(["node", "--test", *sorted(str(p) for p in tests.glob("*.test.js"))])


def check_go(hidden: Path) -> int:
    go = shutil.which("go")
    if go is None:
        sys.exit(f"check: {missing_checker('go')}")
    for test in hidden.glob("*_test.go"):
        shutil.copy(test, Path.cwd() / test.name)
    # Offline and with the installed toolchain only: the sample module has no dependencies.
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOTOOLCHAIN": "local"}
    return _run([go, "test", "./..."], env=env)


def main() -> int:
    lang, hidden = sys.argv[1], Path(sys.argv[2]).resolve()
    checks = {"python": check_python, "typescript": check_typescript, "go": check_go}
    if lang not in checks:
        sys.exit(f"check: unknown language {lang!r}")
    return checks[lang](hidden)


if __name__ == "__main__":
    sys.exit(main())
