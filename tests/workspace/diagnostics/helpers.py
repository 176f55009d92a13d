"""Real language servers for the diagnostics tests, and fake ones that misbehave."""

from __future__ import annotations

import sys
from pathlib import Path

from pycline.workspace.diagnostics.servers import find_executable

REPO = Path(__file__).resolve().parents[3]
TS_SERVER = REPO / ".ci" / "lsp" / "node_modules" / ".bin" / "typescript-language-server"

# Never answers: reads its input until the end of time.
HUNG_SERVER = "import sys\nsys.stdin.buffer.read()\n"
# Dies at once, saying why on stderr.
CRASHING_SERVER = "import sys\nsys.stderr.write('fatal: no licence\\n')\nsys.exit(3)\n"


def python_server() -> list[str]:
    for name in ("basedpyright-langserver", "pyright-langserver"):
        found = find_executable(name)
        if found:
            return [found, "--stdio"]
    raise AssertionError(
        "basedpyright is not installed: pip install -e '.[dev]' (it is a dev dependency)"
    )


def typescript_server() -> list[str]:
    if not TS_SERVER.exists():
        raise AssertionError(f"{TS_SERVER} is missing: run .ci/run (it installs it with npm)")
    return [str(TS_SERVER), "--stdio"]


def fake_server(tmp_path: Path, name: str, source: str) -> list[str]:
    script = tmp_path / f"{name}.py"
    script.write_text(source, encoding="utf-8")
    return [sys.executable, str(script)]
