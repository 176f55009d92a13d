"""`pycline completion bash|zsh|fish`: the scripts, loaded in the real shells, complete what the
command-line parsers accept."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pycline.cli.main import COMMANDS
from pycline.cli.shell_completion import script
from pycline.main import command_parsers


def _run(shell: str, code: str, *, timeout: float = 60) -> str:
    assert shutil.which(shell), f"{shell} is missing: .ci/run installs it (apt-get install {shell})"
    done = subprocess.run(
        [shell, "-c", code], capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def scripts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("completion")
    out = {}
    for shell in ("bash", "zsh", "fish"):
        proc = subprocess.run(
            [sys.executable, "-m", "pycline", "completion", shell],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert proc.stdout == script(shell, command_parsers())
        out[shell] = folder / f"pycline.{shell}"
        out[shell].write_text(proc.stdout, encoding="utf-8")
    return out


def _bash(script_path: Path, *words: str, cwd: Path | None = None) -> list[str]:
    words_list = " ".join(f"'{w}'" for w in words)
    code = (
        f"source {script_path}; COMP_WORDS=(pycline {words_list}); "
        "COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _pycline; printf '%s\\n' \"${COMPREPLY[@]}\""
    )
    if cwd is not None:
        code = f"cd {cwd}; {code}"
    return [line for line in _run("bash", code).splitlines() if line]


def test_bash_completes_commands_subcommands_options_and_their_values(
    scripts: dict[str, Path], tmp_path: Path
) -> None:
    bash = scripts["bash"]
    assert set(_bash(bash, "")) >= set(COMMANDS)
    assert _bash(bash, "doc") == ["doctor"]
    assert _bash(bash, "mcp", "re") == ["remove", "restart"]
    assert _bash(bash, "mcp", "add", "--t") == ["--type", "--timeout"]
    assert _bash(bash, "mcp", "add", "--type", "") == ["sse", "streamableHttp"]
    assert _bash(bash, "run", "--sandbox", "") == ["off", "workspace-write", "read-only"]
    assert _bash(bash, "--sandbox", "r") == ["read-only"]
    assert _bash(bash, "doctor", "--") == [
        "--help", "--json", "--cwd", "--provider", "--model", "--base-url", "--api-key",
        "--profile",
    ]  # fmt: skip
    assert _bash(bash, "completion", "") == ["bash", "zsh", "fish"]
    assert _bash(bash, "config", "allow", "") == ["list", "add", "remove"]
    assert _bash(bash, "rules", "enable", "--") == ["--help", "--cwd"]
    # A value that is a folder, and arguments that are files, complete as paths.
    (tmp_path / "tasks.jsonl").write_text("")
    assert _bash(bash, "--cwd", "tas", cwd=tmp_path) == ["tasks.jsonl"]
    assert _bash(bash, "batch", "tas", cwd=tmp_path) == ["tasks.jsonl"]


def test_fish_completes_the_same_with_descriptions(scripts: dict[str, Path]) -> None:
    def complete(line: str) -> list[str]:
        out = _run("fish", f"source {scripts['fish']}; complete -C {line!r}")
        return out.splitlines()

    assert "mcp\tManage MCP servers" in complete("pycline mc")
    assert [c.split("\t")[0] for c in complete("pycline mcp re")] == ["remove", "restart"]
    assert complete("pycline --sandbox ") == ["off", "read-only", "workspace-write"]
    assert "--json\tone JSON object, for scripts" in complete("pycline doctor --")


def test_zsh_completes_at_a_real_prompt(scripts: dict[str, Path]) -> None:
    # An interactive zsh in a pseudo-terminal (zpty): compinit, the script, then Tab.
    driver = f"""
zmodload zsh/zpty
zpty z 'zsh -f -i'
zpty -w z 'PS1="> "; autoload -Uz compinit; compinit -u -D; source {scripts["zsh"]}; \\
zstyle ":completion:*" list-separator "::"'
zpty -w z $'pycline mcp re\\t'
zpty -r -m z out '*restart*and report*'
print -r -- "$out"
zpty -d z
"""
    shown = _run("zsh", driver, timeout=60)
    assert "remove" in shown and "restart" in shown
    assert "connect to a server and report" in shown  # the help as the description


def test_zsh_script_also_loads_from_fpath(scripts: dict[str, Path], tmp_path: Path) -> None:
    functions = tmp_path / "zfunc"
    functions.mkdir()
    shutil.copy(scripts["zsh"], functions / "_pycline")
    out = _run(
        "zsh",
        f"fpath=({functions} $fpath); autoload -Uz compinit; compinit -u -D; "
        "print -r -- ${_comps[pycline]}",
    )
    assert out.strip() == "_pycline"
