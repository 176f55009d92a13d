"""Wall time of `pycline --help` (target: under 0.3 s). Prints the median of several runs."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def main(runs: int = 15) -> None:
    exe = shutil.which("pycline", path=str(Path(sys.executable).parent)) or "pycline"
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([exe, "--help"], check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    print(
        f"pycline --help: median {statistics.median(times) * 1000:.0f} ms, "
        f"min {min(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms over {runs} runs"
    )


if __name__ == "__main__":
    main()
