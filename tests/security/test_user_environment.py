"""Commands run in the user's own environment: the PATH their interactive shell builds, the
virtualenv they activated, their aliases and functions, and none of the profile's noise; pycline's
own virtualenv does not lead PATH. Played through `pycline run` with the sandbox on and off."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.security.attack import COMPLETE, command, model_saw, results, scripted


def _user(root: Path) -> tuple[Path, Path]:
    """A home whose .bashrc adds a tool folder, an alias and a function (and chatters), whose
    .profile chatters, and an activated virtualenv with a tool of its own."""
    home = root / "home"
    tools = home / "tools" / "bin"
    tools.mkdir(parents=True)
    (tools / "tooltwo").write_text("#!/bin/sh\necho TOOL-OK\n", encoding="utf-8")
    (tools / "tooltwo").chmod(0o755)
    (home / ".bashrc").write_text(
        "echo RC-NOISE; echo RC-NOISE >&2\n"
        'export PATH="$HOME/tools/bin:$PATH"\n'
        "alias greet2='echo ALIAS-OK'\n"
        "fn2() { echo FUNC-OK; }\n",
        encoding="utf-8",
    )
    (home / ".profile").write_text("echo PROFILE-NOISE\n", encoding="utf-8")
    venv = root / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "venvtool").write_text("#!/bin/sh\necho VENV-OK\n", encoding="utf-8")
    (venv / "bin" / "venvtool").chmod(0o755)
    return home, venv


def _env(home: Path, venv: Path) -> dict[str, str]:
    own = str(Path(sys.prefix) / "bin")  # pycline's virtualenv, put first as `uv run` does
    return {
        "HOME": str(home),
        "SHELL": "/bin/bash",
        "VIRTUAL_ENV": str(venv),
        "PATH": os.pathsep.join([own, str(venv / "bin"), os.environ["PATH"]]),
    }


@pytest.mark.parametrize("sandbox", ["workspace-write", "off"])
def test_commands_see_the_users_path_venv_aliases_and_functions_without_noise(
    sandbox: str, isolated_home: Path, workspace: Path, outside_tmp: Path
) -> None:
    if sandbox != "off":
        from pycline.terminal.sandbox import bwrap_path

        assert bwrap_path() is not None, "bubblewrap (bwrap) must be installed for this test"
    home, venv = _user(outside_tmp)
    replies = [command("tooltwo; venvtool; greet2; fn2"), COMPLETE]
    proc = scripted(
        workspace, isolated_home, replies, "--yes", "--sandbox", sandbox, env=_env(home, venv)
    )
    assert proc.returncode == 0, proc.stderr
    seen = model_saw(isolated_home)
    for expected in ("TOOL-OK", "VENV-OK", "ALIAS-OK", "FUNC-OK"):
        assert expected in seen
    assert "not found" not in seen
    assert "RC-NOISE" not in seen and "PROFILE-NOISE" not in seen


def test_pyclines_own_virtualenv_does_not_lead_the_commands_path(
    isolated_home: Path, workspace: Path, outside_tmp: Path
) -> None:
    home, venv = _user(outside_tmp)
    replies = [command("echo \"$PATH\" | tr : '\\n' | sed 's/^/E''NTRY-/'"), COMPLETE]
    proc = scripted(workspace, isolated_home, replies, env=_env(home, venv))
    assert proc.returncode == 0, proc.stderr
    lines = results(isolated_home).splitlines()
    path = [line.removeprefix("ENTRY-") for line in lines if line.startswith("ENTRY-")]
    assert path[0] == str(home / "tools" / "bin")
    assert str(venv / "bin") in path
    assert str(Path(sys.prefix) / "bin") not in path
