"""bench/cline_compare.py: the scripted task runs through `pycline run` in both tool-call formats.

The Cline side needs the npm package (a large download), so only pycline's side is run here; the
run fails unless pycline finished every turn and every scripted edit landed in the workspace.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "cline_compare.py"


def test_the_scripted_task_completes_in_both_formats_and_is_counted() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--turns", "12", "--agents", "pycline-native", "pycline-xml"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if "input tokens in" in line]
    counted = {row[0].rstrip(":"): (int(row[1].replace(",", "")), int(row[5])) for row in rows}
    assert set(counted) == {"cline", "pycline-native", "pycline-xml"}
    assert counted["pycline-native"][1] == counted["pycline-xml"][1] == 12
    assert counted["pycline-native"][0] > 0 and counted["pycline-xml"][0] > 0
