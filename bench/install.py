"""A fresh install as the README does it, and what a new user then waits for.

Prints: the time `sh install.sh` takes into a new home folder and the size of what it installs;
`pycline --help` through the installed command (median of runs; target under 0.3 s); `pycline
doctor` in a small Python + TypeScript project (wall time, and each check's verdict).

Offline when .ci/run has filled .ci/wheels (pip installs from there); otherwise pip uses the
network and its cache, as a user's machine does.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WHEELS = REPO / ".ci" / "wheels"
sys.path.insert(0, str(REPO))  # for tests.install

from tests.install.clone import clone_working_tree  # noqa: E402


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="pycline-install-") as tmp:
        user = Path(tmp) / "user"
        clone = user / "src" / "pycline"
        clone_working_tree(clone)
        path = f"{Path(sys._base_executable).parent}:/usr/local/bin:/usr/bin:/bin"
        env = {"HOME": str(user), "PATH": path, "LANG": "C.UTF-8"}
        if (WHEELS / ".stamp").is_file():
            env |= {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(WHEELS)}
        start = time.perf_counter()
        subprocess.run(["sh", "install.sh"], cwd=clone, env=env, check=True, capture_output=True)
        install = time.perf_counter() - start
        venv = user / ".local" / "share" / "pycline-agent" / "venv"
        site = next((venv / "lib").glob("python3*/site-packages"))
        big = sorted(((_size(p), p.name) for p in site.iterdir() if p.is_dir()), reverse=True)
        print(f"install.sh: {install:.0f} s; installed size {_size(venv) / 1e6:.0f} MB")
        print("  largest: " + ", ".join(f"{name} {size / 1e6:.0f} MB" for size, name in big[:5]))

        pycline = str(user / ".local" / "bin" / "pycline")
        runs = []
        for _ in range(11):
            start = time.perf_counter()
            subprocess.run([pycline, "--help"], env=env, check=True, capture_output=True)
            runs.append(time.perf_counter() - start)
        print(f"pycline --help: median {statistics.median(runs) * 1000:.0f} ms over 11 runs")

        project = user / "shop"
        project.mkdir()
        (project / "prices.py").write_text("def total(p: list[int]) -> int:\n    return sum(p)\n")
        (project / "cart.ts").write_text("export const n: number = 1;\n")
        doctor_env = env | {"PATH": f"{user / '.local' / 'bin'}:{path}"}
        start = time.perf_counter()
        done = subprocess.run(
            [pycline, "doctor", "--json", "--provider", "scripted"],
            cwd=project,
            env=doctor_env | {k: v for k, v in os.environ.items() if k.startswith("npm_config")},
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - start
        report = json.loads(done.stdout)
        print(f"pycline doctor: {wall:.1f} s wall ({report['seconds']:.1f} s checking)")
        for check in report["checks"]:
            print(f"  {check['status']:<4} {check['name']}: {check['detail'][:90]}")


if __name__ == "__main__":
    main()
