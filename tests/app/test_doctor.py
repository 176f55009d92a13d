"""`pycline doctor`: each check tried for real (a fake model server speaking OpenAI's API, real
language servers, Chromium, bubblewrap, git, MCP servers), its status and its one-line fix."""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from pycline.app.doctor import Check, Report, missing_at_start, run_checks
from pycline.app.sessions.session import ConfigOverrides
from pycline.app.settings.secrets import SecretStore
from pycline.cli.doctor_cmd import render
from pycline.cli.notices import missing_line
from pycline.terminal import sandbox
from tests.cli.test_headless import run_cli
from tests.fakes.openai_server import FakeOpenAI
from tests.mcp.conftest import py_server, write_settings
from tests.workspace.diagnostics.helpers import CRASHING_SERVER, fake_server

SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


def _settings(home: Path, **values: object) -> None:
    path = home / "settings" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(values), encoding="utf-8")


def _by_name(report: Report) -> dict[str, Check]:
    return {c.name: c for c in report.checks}


async def _check(home: Path, workspace: Path, **flags: str) -> dict[str, Check]:
    return _by_name(await run_checks(home, workspace, ConfigOverrides(**flags)))


# --- the install -----------------------------------------------------------------------------


def test_pycline_s_own_python_first_on_path_is_called_out(
    isolated_home: Path, workspace: Path
) -> None:
    # The old advice: the install's whole bin folder on PATH, so `python3` was pycline's.
    venv_bin = str(Path(sys.prefix) / "bin")
    shadowed = run_cli(
        ["doctor", "--json", "--provider", "scripted"],
        home=isolated_home,
        cwd=workspace,
        env={"PATH": f"{venv_bin}:{SYSTEM_PATH}", "VIRTUAL_ENV": ""},
    )
    install = next(c for c in json.loads(shadowed.stdout)["checks"] if c["name"] == "install")
    assert install["status"] == "warn"
    assert "pycline's own python3" in install["detail"]
    assert "links only pycline into ~/.local/bin" in install["fix"]
    chosen = run_cli(
        ["doctor", "--json", "--provider", "scripted"],
        home=isolated_home,
        cwd=workspace,
        env={"PATH": f"{venv_bin}:{SYSTEM_PATH}", "VIRTUAL_ENV": sys.prefix},
    )
    install = next(c for c in json.loads(chosen.stdout)["checks"] if c["name"] == "install")
    assert install["status"] == "ok"  # a developer who activated it chose it


# --- the model -------------------------------------------------------------------------------


async def test_a_reachable_server_that_takes_the_key_and_offers_the_model_is_ok(
    isolated_home: Path, workspace: Path
) -> None:
    with FakeOpenAI(models=("qwen-coder",), api_key="sk-good", model_info={
        "qwen-coder": {"max_model_len": 32768}
    }) as srv:  # fmt: skip
        _settings(isolated_home, provider="openai", model="qwen-coder", baseUrl=srv.base_url)
        SecretStore(isolated_home).set("openai", "sk-good")
        checks = await _check(isolated_home, workspace)
    assert checks["model"].status == "ok"
    assert checks["model"].detail.endswith("key accepted, model offered")
    assert checks["context window"] == Check(
        "context window", "ok", "32,768 tokens (as the server reports)"
    )


async def test_a_refused_key_an_unknown_model_and_a_dead_server_are_each_said_with_a_fix(
    isolated_home: Path, workspace: Path
) -> None:
    with FakeOpenAI(models=("a", "b"), api_key="sk-good") as srv:
        refused = await _check(
            isolated_home, workspace, provider="openai", base_url=srv.base_url, api_key="sk-bad",
            model="a",
        )  # fmt: skip
        unknown = await _check(
            isolated_home, workspace, provider="openai", base_url=srv.base_url, api_key="sk-good",
            model="c",
        )  # fmt: skip
        dead_url = srv.base_url
    dead = await _check(isolated_home, workspace, provider="openai", base_url=dead_url, model="a")
    assert refused["model"].status == "fail"
    assert "the key was refused (HTTP 401" in refused["model"].detail
    assert refused["model"].fix == "pycline auth openai (or set OPENAI_API_KEY)"
    assert unknown["model"].status == "warn"
    assert "does not list 'c' (it has: a, b)" in unknown["model"].detail
    assert dead["model"].status == "fail" and "not reachable" in dead["model"].detail
    assert unknown["context window"].status == "warn"
    assert "modelInfo" in unknown["context window"].fix


async def test_no_model_configured_fails_and_the_command_exits_1(
    isolated_home: Path, workspace: Path
) -> None:
    checks = await _check(isolated_home, workspace)
    assert checks["model"] == Check(
        "model",
        "fail",
        "no model is configured",
        "pycline setup (or set OPENAI_API_KEY / ANTHROPIC_API_KEY, or pass --provider)",
    )
    proc = run_cli(["doctor", "--json"], home=isolated_home, cwd=workspace)
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert report["ok"] is False
    assert {c["name"] for c in report["checks"]} >= {"model", "sandbox", "browser", "git"}


# --- the machine -----------------------------------------------------------------------------


async def test_the_sandbox_is_on_with_bubblewrap_and_said_off_without_it(
    isolated_home: Path, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert shutil.which("bwrap"), "install bubblewrap (.ci/run does)"
    on = await _check(isolated_home, workspace, provider="scripted")
    assert on["sandbox"].status == "ok" and on["sandbox"].detail.startswith("on (workspace-write")
    # A machine without bubblewrap: PATH without it.
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("git", "node"):
        if found := shutil.which(tool):
            (bare / tool).symlink_to(found)
    monkeypatch.setenv("PATH", str(bare))
    sandbox.bwrap_path.cache_clear()
    try:
        off = await _check(isolated_home, workspace, provider="scripted")
        start = missing_at_start(isolated_home, workspace)
    finally:
        sandbox.bwrap_path.cache_clear()
    assert off["sandbox"].status == "warn"
    assert off["sandbox"].detail.startswith("OFF: commands run unsandboxed")
    assert "apt-get install bubblewrap" in off["sandbox"].fix
    assert "sandbox OFF (bubblewrap not installed)" in start


async def test_a_sandbox_switched_off_by_the_user_is_off_not_a_problem(
    isolated_home: Path, workspace: Path
) -> None:
    _settings(isolated_home, sandbox="off")
    checks = await _check(isolated_home, workspace, provider="scripted")
    assert checks["sandbox"].status == "off" and not checks["sandbox"].fix
    assert missing_at_start(isolated_home, workspace) == []


async def test_the_browser_opens_a_page_or_says_how_to_get_one(
    isolated_home: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    works = await _check(isolated_home, workspace, provider="scripted")
    assert works["browser"].status == "ok" and "opens pages" in works["browser"].detail
    monkeypatch.setenv("PYCLINE_CHROMIUM", "/nowhere/chromium")
    missing = await _check(isolated_home, workspace, provider="scripted")
    assert missing["browser"].status == "warn"
    assert "PYCLINE_CHROMIUM (/nowhere/chromium)" in missing["browser"].detail
    assert "playwright install chromium" in missing["browser"].fix
    assert missing_at_start(isolated_home, workspace)[0].startswith("browser tool off")


async def test_ripgrep_git_and_the_data_folder(isolated_home: Path, workspace: Path) -> None:
    checks = await _check(isolated_home, workspace, provider="scripted")
    assert checks["ripgrep"].status == "ok" and checks["ripgrep"].detail.startswith("ripgrep ")
    assert checks["git"].status == "ok"
    assert "not a git repository" in checks["git"].detail
    assert checks["data folder"].status == "ok" and "writable" in checks["data folder"].detail
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    (isolated_home / "secrets.json").write_text("{}")
    (isolated_home / "secrets.json").chmod(0o644)
    again = await _check(isolated_home, workspace, provider="scripted")
    assert "this folder is a git repository" in again["git"].detail
    assert again["data folder"].status == "warn"
    assert again["data folder"].fix == f"chmod 600 {isolated_home / 'secrets.json'}"
    isolated_home.chmod(isolated_home.stat().st_mode | stat.S_IWOTH)
    try:
        shared = await _check(isolated_home, workspace, provider="scripted")
    finally:
        isolated_home.chmod(isolated_home.stat().st_mode & ~stat.S_IWOTH)
    assert shared["data folder"].status == "warn"
    assert "other users can change" in shared["data folder"].detail


# --- language servers ------------------------------------------------------------------------


async def test_each_language_in_the_folder_gets_its_server_checked(
    isolated_home: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYCLINE_LANGUAGE_SERVERS")
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:{SYSTEM_PATH}")
    (workspace / "app.py").write_text("x = 1\n")
    (workspace / "web").mkdir()
    (workspace / "web" / "main.ts").write_text("export {};\n")
    (workspace / "cmd.go").write_text("package main\n")
    (workspace / "node_modules" / "dep").mkdir(parents=True)
    (workspace / "node_modules" / "dep" / "lib.rs").write_text("")  # not the project's
    checks = await _check(isolated_home, workspace, provider="scripted")
    assert checks["python server"].status == "ok"
    assert "basedpyright-langserver starts" in checks["python server"].detail
    assert checks["typescript server"].status == "ok"
    assert checks["typescript server"].detail.startswith("not installed yet: the first TypeScript")
    assert checks["go server"].status == "warn" and "gopls" in checks["go server"].fix
    assert "rust server" not in checks


async def test_a_server_that_does_not_start_fails_and_one_turned_off_is_off(
    isolated_home: Path, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYCLINE_LANGUAGE_SERVERS")
    (workspace / "app.py").write_text("x = 1\n")
    (workspace / "main.ts").write_text("export {};\n")
    _settings(
        isolated_home,
        languageServers={
            "python": fake_server(tmp_path, "crash", CRASHING_SERVER),
            "typescript": [],
        },
    )
    checks = await _check(isolated_home, workspace, provider="scripted")
    assert checks["python server"].status == "fail"
    assert "does not start" in checks["python server"].detail
    assert "fatal: no licence" in checks["python server"].detail
    assert checks["typescript server"].status == "off"


async def test_typescript_with_installing_off_says_how_to_get_the_server(
    isolated_home: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYCLINE_LANGUAGE_SERVERS")
    monkeypatch.setenv("PATH", SYSTEM_PATH)
    (workspace / "main.ts").write_text("export {};\n")
    _settings(isolated_home, installLanguageServers=False)
    checks = await _check(isolated_home, workspace, provider="scripted")
    assert checks["typescript server"].status == "warn"
    assert "installLanguageServers" in checks["typescript server"].detail
    assert "npm install -g typescript-language-server" in checks["typescript server"].fix


# --- MCP servers -----------------------------------------------------------------------------


async def test_mcp_servers_are_connected_and_their_tools_listed(
    isolated_home: Path, workspace: Path
) -> None:
    write_settings(
        {
            "good": py_server("normal"),
            "broken": py_server("crash"),
            "resting": {**py_server("normal"), "disabled": True},
        }
    )
    (workspace / ".pycline").mkdir()
    (workspace / ".pycline" / "mcp.json").write_text(json.dumps({"mcpServers": {}}))
    checks = await _check(isolated_home, workspace, provider="scripted")
    assert checks["mcp: good"].status == "ok"
    assert checks["mcp: good"].detail.startswith("connected: ")
    assert checks["mcp: broken"].status == "fail"
    assert checks["mcp: broken"].fix.startswith("`pycline mcp restart broken`")
    assert checks["mcp: resting"].status == "off"
    assert checks["mcp: project servers"].status == "warn"
    assert checks["mcp: project servers"].fix == "read it, then `pycline mcp trust`"


# --- how it reads ----------------------------------------------------------------------------


def test_the_report_wraps_within_the_terminal_and_writes_home_as_tilde() -> None:
    home = str(Path.home())
    report = Report(
        version="pycline-agent 0.1.0",
        python="Python 3.11.7",
        workspace=f"{home}/projects/shop",
        checks=(
            Check("model", "ok", "openai/gpt-4o at https://api.openai.com/v1: key accepted"),
            Check(
                "typescript server",
                "fail",
                "typescript-language-server@5.3.0 needs Node.js 20+ with npm to be installed, "
                "and none was found",
                f"install Node.js 20 or newer (with npm) into {home}/.local",
            ),
        ),
        seconds=1.25,
    )
    text = render(report, width=60)
    assert all(len(line) < 60 for line in text.splitlines())
    assert text.splitlines()[0].endswith("~/projects/shop")
    assert "~/.local" in text and home + "/" not in text
    assert text.splitlines()[-1] == "1 problem this folder needs fixed (1.2s)"


def test_the_first_screen_line_fits_the_terminal() -> None:
    missing = [
        "browser tool off (no Chromium/Chrome/Edge)",
        "sandbox OFF (bubblewrap not installed)",
    ]
    wide = missing_line(missing, 200)
    assert wide == "; ".join(missing) + " · `pycline doctor` says how to fix"
    narrow = missing_line(missing, 80)
    assert narrow == "browser tool off; sandbox OFF · `pycline doctor` says how to fix"
    assert len(missing_line(missing, 30)) < 30
    assert missing_line([], 80) == ""
