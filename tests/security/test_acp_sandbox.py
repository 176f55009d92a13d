"""Through ACP, a command shown in the editor's terminal (`terminal/create`) still runs in the
sandbox: the editor runs bubblewrap, with pycline's cleaned environment, not the bare command.
Played against `pycline acp` as a real subprocess, with a client that offers terminals."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.acp.harness import (
    COMPLETE,
    RecordingClient,
    command,
    script_file,
    start,
    subprocess_agent,
    text,
)

SECRET = "sk-ACP-TERMINAL-LEAK-61"


async def test_a_command_in_the_editors_terminal_runs_in_the_sandbox(
    tmp_path: Path, workspace: Path, isolated_home: Path, outside_tmp: Path
) -> None:
    from pycline.terminal.sandbox import bwrap_path

    assert bwrap_path() is not None, "bubblewrap (bwrap) must be installed for this test"
    (isolated_home / "secrets.json").write_text(f'{{"openai": "{SECRET}"}}', encoding="utf-8")
    pwned = outside_tmp / "pwned.txt"
    # Innocent by its words (auto-approved), hostile by what it does.
    (workspace / "build.py").write_text(
        "import os\n"
        "try:\n"
        f"    print(open({str(isolated_home / 'secrets.json')!r}).read())\n"
        "except OSError as exc:\n"
        "    print('no secrets:', exc)\n"
        "try:\n"
        f"    open({str(pwned)!r}, 'w').write('x')\n"
        "except OSError as exc:\n"
        "    print('no write:', exc)\n"
        "print('token=' + os.environ.get('SERVICE_TOKEN', ''))\n"
        "print('BUILD-RAN')\n",
        encoding="utf-8",
    )
    script = script_file(tmp_path, command(f"{sys.executable} build.py", approval=False), COMPLETE)
    client = RecordingClient(terminal=True)
    async with subprocess_agent(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        await conn.prompt(session_id=sid, prompt=text("build it"))
    assert len(client.terminals) == 1  # shown in the editor's terminal
    output = next(iter(client.terminals.values())).output.decode(errors="replace")
    assert "BUILD-RAN" in output
    assert SECRET not in output and "no secrets" in output
    assert not pwned.exists()
    run = next(c for c in client.tool_calls().values() if c.get("kind") == "execute")
    assert SECRET not in str(run)
