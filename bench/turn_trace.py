"""How much of pycline one headless task with one approved edit goes through.

Run: .venv/bin/python bench/turn_trace.py [--by-file] [--turn]

Runs `pycline run --json --yes` in this process (a temporary home and workspace, the scripted
model: one `replace_in_file` that `--yes` approves, then `attempt_completion`) with a profiler
that records every call into pycline's own code once the modules are imported. Prints the
distinct pycline functions called, the files they live in, and the caller → callee pairs that
cross from one file to another (how many seams the run goes through). With `--turn`, only the
calls made while the edit's turn runs (from its request to the next one) are counted.
Threads other than the main one (the journal writer, checkpoint git) are not traced.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

EDIT = (
    "<replace_in_file>\n<path>app.py</path>\n<diff>\n------- SEARCH\nprint('hello')\n=======\n"
    "print('hello, world')\n+++++++ REPLACE\n</diff>\n</replace_in_file>"
)
DONE = "<attempt_completion>\n<result>Greeting changed.</result>\n</attempt_completion>"


class Tracer:
    def __init__(self, root: str) -> None:
        self.root = root
        self.functions: Counter[str] = Counter()
        self.edges: set[tuple[str, str]] = set()
        self.on = True
        self.requests = 0
        self.turn_only = False

    def _ours(self, frame: FrameType | None) -> str | None:
        if frame is None:
            return None
        file = frame.f_code.co_filename
        return file if file.startswith(self.root) else None

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        file = self._ours(frame)
        if file is None:
            return
        name = frame.f_code.co_qualname
        if self.turn_only:
            # The edit's turn: from the first request's start to the second's.
            if name == "stream_reply":
                self.requests += 1
            if self.requests != 1:
                return
        rel = os.path.relpath(file, self.root)
        self.functions[f"{rel}:{name}"] += 1
        caller = frame.f_back
        while caller is not None and self._ours(caller) is None:
            caller = caller.f_back
        if caller is not None:
            caller_rel = os.path.relpath(caller.f_code.co_filename, self.root)
            if caller_rel != rel:
                self.edges.add((caller_rel, rel))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--by-file", action="store_true", help="list the files and their calls")
    parser.add_argument("--turn", action="store_true", help="count only the edit's turn")
    args = parser.parse_args()

    import pycline
    from pycline.cli import main as cli

    root = str(Path(pycline.__file__).parent) + os.sep
    with tempfile.TemporaryDirectory() as tmp:
        home, workspace = Path(tmp, "home"), Path(tmp, "ws")
        home.mkdir()
        workspace.mkdir()
        (workspace / "app.py").write_text("print('hello')\n", encoding="utf-8")
        script = Path(tmp, "script.json")
        script.write_text(json.dumps([EDIT, DONE]), encoding="utf-8")
        os.environ["PYCLINE_HOME"] = str(home)
        os.environ["NO_COLOR"] = "1"
        os.chdir(workspace)
        argv = ["run", "--json", "--yes", "--provider", "scripted", "--script", str(script)]
        # Warm-up run: imports and first-use caches are not what this counts.
        with contextlib.redirect_stdout(io.StringIO()):
            cli.main([*argv, "warm up"])
        tracer = Tracer(root)
        tracer.turn_only = args.turn
        (workspace / "app.py").write_text("print('hello')\n", encoding="utf-8")
        out = io.StringIO()
        sys.setprofile(tracer)
        try:
            with contextlib.redirect_stdout(out):
                code = cli.main([*argv, "change the greeting"])
        finally:
            sys.setprofile(None)
    assert code == 0, out.getvalue()[-2000:]
    files = Counter(f.split(":", 1)[0] for f in tracer.functions)
    scope = "the edit's turn" if args.turn else "one headless task (one approved edit, then done)"
    print(f"{scope}:")
    print(f"  distinct functions: {len(tracer.functions)}")
    print(f"  files:              {len(files)}")
    print(f"  cross-file seams:   {len(tracer.edges)} (caller file -> callee file pairs)")
    print(f"  calls:              {sum(tracer.functions.values())}")
    if args.by_file:
        for file, count in sorted(files.items()):
            print(f"    {file}: {count} functions")


if __name__ == "__main__":
    main()
