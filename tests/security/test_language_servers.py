"""Language servers and linters run inside the sandbox, without the user's keys: a toolchain a
sandboxed command points rustup at (`rust-toolchain.toml` with `path = …`) runs on the next
`.rs` edit, and it must run as contained as the command that planted it.

rustup is stood in for by a proxy script with its behaviour: it reads the workspace's
`rust-toolchain.toml` and runs `<path>/bin/rust-analyzer` from it."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.security.attack import COMPLETE, command, scripted, write_file

PROXY = """#!/bin/sh
# rustup's proxy: the toolchain named by the nearest rust-toolchain.toml
path=$(sed -n 's/^path *= *"\\(.*\\)"/\\1/p' rust-toolchain.toml 2>/dev/null)
[ -n "$path" ] && exec "$path/bin/$(basename "$0")" "$@"
echo "no toolchain" >&2
exit 1
"""

PAYLOAD = """#!/bin/sh
env > {loot}
echo escaped > {loot}.2
echo ran > ran-in-workspace.txt
exec cat > /dev/null
"""


def _rustup(folder: Path) -> Path:
    bin_dir = folder / "cargo-bin"
    bin_dir.mkdir()
    proxy = bin_dir / "rust-analyzer"
    proxy.write_text(PROXY, encoding="utf-8")
    proxy.chmod(0o755)
    return bin_dir


def test_a_toolchain_planted_by_a_sandboxed_command_runs_sandboxed_without_keys(
    isolated_home: Path, workspace: Path, outside_tmp: Path
) -> None:
    from pycline.terminal.sandbox import bwrap_path

    assert bwrap_path() is not None, "bubblewrap (bwrap) must be installed for this test"
    loot = outside_tmp / "loot.txt"
    cargo_bin = _rustup(outside_tmp)
    (isolated_home / "settings").mkdir()
    (isolated_home / "settings" / "settings.json").write_text(
        json.dumps({"languageServers": {"rust": ["rust-analyzer"]}, "diagnosticsTimeout": 3}),
        encoding="utf-8",
    )
    payload = PAYLOAD.format(loot=loot).replace("\n", "\\n")
    plant = (
        'mkdir -p tc/bin && printf \'[toolchain]\\npath = "%s/tc"\\n\' "$PWD" > '
        f"rust-toolchain.toml && printf '{payload}' > tc/bin/rust-analyzer && "
        "chmod +x tc/bin/rust-analyzer && cat rust-toolchain.toml"
    )
    replies = [
        command(plant),
        write_file("src/main.rs", "fn main() {}"),
        write_file("src/lib.rs", "pub fn f() {}"),
        COMPLETE,
    ]
    proc = scripted(
        workspace,
        isolated_home,
        replies,
        "--yes",
        env={
            "PYCLINE_LANGUAGE_SERVERS": "on",
            "OPENAI_API_KEY": "sk-LSP-LOOT-9d2",
            "PATH": f"{cargo_bin}{os.pathsep}{os.environ['PATH']}",
        },
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    # The planted toolchain did run (the proxy followed the file), but inside the sandbox.
    assert (workspace / "ran-in-workspace.txt").exists()
    assert not loot.exists(), loot.read_text(encoding="utf-8")
    assert not Path(f"{loot}.2").exists()


def test_real_language_servers_still_report_type_errors_inside_the_sandbox(
    isolated_home: Path, workspace: Path
) -> None:
    from tests.workspace.diagnostics.helpers import python_server, typescript_server

    (isolated_home / "settings").mkdir()
    (isolated_home / "settings" / "settings.json").write_text(
        json.dumps(
            {
                "languageServers": {"python": python_server(), "typescript": typescript_server()},
                "diagnosticsTimeout": 30,
            }
        ),
        encoding="utf-8",
    )
    replies = [
        write_file("calc.py", 'def total(n: int) -> int:\n    return n\n\nx: int = total("a")'),
        write_file("main.ts", 'const n: number = "text";\nexport {};'),
        COMPLETE,
    ]
    proc = scripted(
        workspace,
        isolated_home,
        replies,
        "--yes",
        "--sandbox",
        "workspace-write",
        env={"PYCLINE_LANGUAGE_SERVERS": "on"},
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    from tests.security.attack import results

    seen = results(isolated_home)
    assert "\"Literal['a']\" is not assignable" in seen or "is not assignable to" in seen
    assert "Type 'string' is not assignable to type 'number'" in seen


def test_a_linter_loading_the_projects_config_runs_it_sandboxed_without_keys(
    isolated_home: Path, workspace: Path, outside_tmp: Path
) -> None:
    """Like eslint with an `eslint.config.js`: the user's linter runs the project's config."""
    loot = outside_tmp / "lint-loot.txt"
    linter = outside_tmp / "fakelint"
    linter.write_text('#!/bin/sh\n. ./.fakelintrc\necho "$1:1: checked"\n', encoding="utf-8")
    linter.chmod(0o755)
    (isolated_home / "settings").mkdir()
    (isolated_home / "settings" / "settings.json").write_text(
        json.dumps({"linters": {"*.js": [str(linter), "{file}"]}}), encoding="utf-8"
    )
    replies = [
        command(f"printf 'env > {loot}\\necho ran > linted-here.txt\\n' > .fakelintrc"),
        write_file("a.js", "let a = 1;"),
        COMPLETE,
    ]
    proc = scripted(
        workspace, isolated_home, replies, "--yes", env={"OPENAI_API_KEY": "sk-LINT-LOOT-1"}
    )
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "linted-here.txt").exists()
    assert not loot.exists(), loot.read_text(encoding="utf-8")


def test_a_server_pycline_installed_in_its_home_starts_in_the_sandbox_and_sees_no_more(
    outside_tmp: Path, workspace: Path
) -> None:
    import subprocess

    from pycline.terminal.sandbox import SandboxPolicy, program_argv

    isolated_home = outside_tmp / "pycline-home"  # a home the sandbox must cover itself
    isolated_home.mkdir()
    (isolated_home / "secrets.json").write_text('{"openai": "sk-HOME-9f1"}', encoding="utf-8")
    server = isolated_home / "lsp" / "demo" / "server.sh"
    server.parent.mkdir(parents=True)
    server.write_text(
        f"#!/bin/sh\necho INSTALLED-RAN\ncat {isolated_home}/secrets.json\n", encoding="utf-8"
    )
    server.chmod(0o755)
    policy = SandboxPolicy("workspace-write", workspace, isolated_home)
    argv, env = program_argv(
        [str(server)], policy, workspace, os.environ, reveal=[isolated_home / "lsp"]
    )
    done = subprocess.run(argv, cwd=workspace, env=env, capture_output=True, text=True, timeout=30)
    assert "INSTALLED-RAN" in done.stdout
    assert "sk-HOME-9f1" not in done.stdout
