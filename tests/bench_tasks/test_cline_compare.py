"""bench/cline_compare.py: the scripted tasks run through `pycline run` and are priced.

The Cline side needs the npm package (a large download), so only pycline's side is run here; a
run fails unless pycline finished every turn and every scripted write and edit landed in the
workspace. The figures come from the bench's own JSON (--save).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "cline_compare.py"


def _bench(tmp_path: Path, *args: str) -> list[dict[str, dict[str, object]]]:
    saved = tmp_path / "runs.json"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--save", str(saved), *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    data: list[dict[str, dict[str, object]]] = json.loads(saved.read_text(encoding="utf-8"))
    return data


def test_every_shape_completes_in_both_formats_and_is_priced_with_the_cache(
    tmp_path: Path,
) -> None:
    results = _bench(tmp_path, "--turns", "12", "--agents", "pycline-xml", "pycline-native")
    assert [r["cline"]["shape"] for r in results] == ["reread", "notes", "fresh"]
    for runs in results:
        for name in ("pycline-xml", "pycline-native"):
            run = runs[name]
            assert run["problem"] is None
            requests = run["requests"]
            assert isinstance(requests, list) and len(requests) == 12
            # From the second request on, the previous one's prefix is repeated and cached.
            assert all(r["cached"] > 0 for r in requests[2:]), requests
            assert all(r["cached"] <= r["chars"] // 4 for r in requests)
            assert isinstance(run["files"], int) and run["files"] > 0
            assert isinstance(run["sent"], list) and len(run["sent"]) == 12
