"""What a sandboxed command can still see and reach, played through `pycline run` with the sandbox
on (the network too, as by default): the user's credential files, the host's abstract sockets and
display, secrets inside URLs, the runtime folder where session buses and control sockets live."""

from __future__ import annotations

import os
import socket
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.security.attack import COMPLETE, command, model_saw, scripted

# What developers really keep in their home (the first fifteen were all readable before).
CREDENTIAL_FILES = [
    ".claude/.credentials.json",
    ".codex/auth.json",
    ".config/github-copilot/hosts.json",
    ".cline/data/secrets.json",
    ".cargo/credentials.toml",
    ".pgpass",
    ".vault-token",
    ".terraform.d/credentials.tfrc.json",
    ".cache/huggingface/token",
    ".kaggle/kaggle.json",
    ".m2/settings.xml",
    ".gradle/gradle.properties",
    ".gem/credentials",
    ".config/rclone/rclone.conf",
    ".Xauthority",
    # their kin
    ".cargo/credentials",
    ".huggingface/token",
    ".docker/config.json",
    ".npmrc",
    ".yarnrc.yml",
    ".git-credentials",
    ".config/git/credentials",
    ".config/gh/hosts.yml",
    ".config/gcloud/credentials.db",
    ".config/pypoetry/auth.toml",
    ".kube/config",
    ".my.cnf",
    ".s3cfg",
    ".databrickscfg",
    ".pulumi/credentials.json",
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".psql_history",
    ".bundle/config",
    ".nuget/NuGet/NuGet.Config",
    ".config/configstore/firebase-tools.json",
    ".mozilla/firefox/p.default/cookies.sqlite",
    ".config/google-chrome/Default/Cookies",
    ".ssh/id_ed25519",
    ".aws/credentials",
    ".netrc",
    ".local/share/keyrings/login.keyring",
]


def _needs_bwrap() -> None:
    from pycline.terminal.sandbox import bwrap_path

    assert bwrap_path() is not None, "bubblewrap (bwrap) must be installed for these tests"


def _marker(rel: str) -> str:
    return "CRED-" + rel.strip(".").replace("/", "-").replace(".", "_") + "-7f3a"


@pytest.fixture
def user_home(outside_tmp: Path) -> Path:
    """A home folder with credential files, a tool on PATH and a git config."""
    home = outside_tmp / "userhome"
    for rel in CREDENTIAL_FILES:
        path = home / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_marker(rel) + "\n", encoding="utf-8")
    tools = home / ".local" / "bin"
    tools.mkdir(parents=True)
    (tools / "hometool").write_text("#!/bin/sh\necho HOMETOOL-RAN\n", encoding="utf-8")
    (tools / "hometool").chmod(0o755)
    (home / ".cargo" / "bin").mkdir(parents=True)
    (home / ".cargo" / "bin" / "cargotool").write_text("#!/bin/sh\necho CARGO-RAN\n")
    (home / ".cargo" / "bin" / "cargotool").chmod(0o755)
    (home / ".gitconfig").write_text("[user]\n\tname = GITCONFIG-VISIBLE\n", encoding="utf-8")
    (home / "notes").mkdir()
    (home / "notes" / "todo.txt").write_text("NOTES-SHOWN-BY-SETTING\n", encoding="utf-8")
    (home / "private").mkdir()
    (home / "private" / "diary.txt").write_text("UNLISTED-FOLDER-HIDDEN\n", encoding="utf-8")
    return home


def test_credential_files_in_the_home_are_not_readable_and_tools_still_are(
    isolated_home: Path, workspace: Path, user_home: Path
) -> None:
    _needs_bwrap()
    reads = [f"cat ~/{rel}" for rel in CREDENTIAL_FILES]
    reads += [
        "grep -r CRED- ~ 2>/dev/null | head -50",
        "find ~ -type f | head -200",
        "hometool; cargotool; git config user.name",
        "cat ~/notes/todo.txt ~/private/diary.txt",
    ]
    (isolated_home / "settings").mkdir()
    (isolated_home / "settings" / "settings.json").write_text('{"sandboxReadable": ["notes"]}')
    path = f"{user_home}/.local/bin:{user_home}/.cargo/bin:{os.environ['PATH']}"
    proc = scripted(
        workspace,
        isolated_home,
        [command(c) for c in reads] + [COMPLETE],
        env={"HOME": str(user_home), "PATH": path},
    )
    assert proc.returncode == 0, proc.stderr
    seen = model_saw(isolated_home)
    leaked = [rel for rel in CREDENTIAL_FILES if _marker(rel) in seen]
    assert leaked == []
    for visible in ("HOMETOOL-RAN", "CARGO-RAN", "GITCONFIG-VISIBLE", "NOTES-SHOWN-BY-SETTING"):
        assert visible in seen
    assert "UNLISTED-FOLDER-HIDDEN" not in seen


class _AbstractListener:
    """A stand-in X server: a listener on the abstract socket `@/tmp/.X11-unix/X<n>`."""

    def __init__(self) -> None:
        self.name = f"\0/tmp/.X11-unix/X{uuid.uuid4().int % 10_000 + 50_000}"
        self.accepted = 0
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.bind(self.name)
        self._sock.listen(8)
        self._sock.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self._sock.close()


@pytest.fixture
def x_server() -> Iterator[_AbstractListener]:
    listener = _AbstractListener()
    try:
        yield listener
    finally:
        listener.close()


def test_the_hosts_abstract_sockets_and_display_are_out_of_reach(
    isolated_home: Path, workspace: Path, x_server: _AbstractListener
) -> None:
    _needs_bwrap()
    probe = workspace / "probe.py"
    probe.write_text(
        "import socket, sys\n"
        "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
        "try:\n"
        "    s.connect(sys.argv[1].replace('@', '\\0', 1))\n"
        "    print('CONNECTED-TO-HOST')\n"
        "except OSError as exc:\n"
        "    print('refused', exc)\n",
        encoding="utf-8",
    )
    target = "@" + x_server.name[1:]
    replies = [
        command(f"{sys.executable} probe.py '{target}'"),
        command("echo display=[$DISPLAY] wayland=[$WAYLAND_DISPLAY] xauth=[$XAUTHORITY]"),
        COMPLETE,
    ]
    proc = scripted(
        workspace,
        isolated_home,
        replies,
        env={"DISPLAY": ":DISPLAY-7e1", "WAYLAND_DISPLAY": "wayland-7e1", "XAUTHORITY": "/x/7e1"},
    )
    assert proc.returncode == 0, proc.stderr
    seen = model_saw(isolated_home)
    assert "refused" in seen
    assert "CONNECTED-TO-HOST" not in seen
    assert x_server.accepted == 0
    assert "7e1" not in seen


URL_SECRETS = {
    "OPENAI_BASE_URL": "http://user:URLTOKEN-a1@127.0.0.1:9/v1",
    "ANTHROPIC_BASE_URL": "https://URLTOKEN-b2@proxy.example/anthropic",
    "DATABASE_URL": "postgres://app:URLTOKEN-c3@db.internal:5432/app",
    "PIP_INDEX_URL": "https://__token__:URLTOKEN-d4@pypi.example/simple",
    "HTTPS_PROXY": "http://me:URLTOKEN-e5@proxy:3128",
    "ARTIFACT_URL": "https://files.example/a.tgz?X-Amz-Signature=URLTOKEN-f6&x=1",
    "MIRRORS": "https://a.example https://u:URLTOKEN-g7@b.example/x",
}


def test_credentials_inside_urls_do_not_reach_commands(
    isolated_home: Path, workspace: Path
) -> None:
    _needs_bwrap()
    replies = [command("env"), COMPLETE]
    proc = scripted(workspace, isolated_home, replies, env=URL_SECRETS)
    assert proc.returncode == 0, proc.stderr
    seen = model_saw(isolated_home)
    assert "URLTOKEN" not in seen
    # The addresses themselves stay usable.
    assert "db.internal:5432/app" in seen and "proxy.example/anthropic" in seen


def test_the_runtime_folder_and_its_sockets_are_hidden(
    isolated_home: Path, workspace: Path, outside_tmp: Path
) -> None:
    _needs_bwrap()
    runtime = outside_tmp / "run-user"
    runtime.mkdir(mode=0o700)
    bus = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    bus.bind(str(runtime / "bus"))
    bus.listen(1)
    (runtime / "RUNTIME-FILE-91c").write_text("x", encoding="utf-8")
    probe = (
        "import socket, sys\n"
        "s = socket.socket(socket.AF_UNIX)\n"
        "try:\n"
        f"    s.connect({str(runtime / 'bus')!r}); print('BUS-REACHED')\n"
        "except OSError as exc:\n"
        "    print('no bus', exc)\n"
    )
    (workspace / "bus.py").write_text(probe, encoding="utf-8")
    replies = [
        command(f"ls -a {runtime}; echo xdg=[$XDG_RUNTIME_DIR] dbus=[$DBUS_SESSION_BUS_ADDRESS]"),
        command(f"{sys.executable} bus.py"),
        COMPLETE,
    ]
    env = {
        "XDG_RUNTIME_DIR": str(runtime),
        "DBUS_SESSION_BUS_ADDRESS": f"unix:path={runtime}/bus",
    }
    try:
        proc = scripted(workspace, isolated_home, replies, env=env)
    finally:
        bus.close()
    assert proc.returncode == 0, proc.stderr
    seen = model_saw(isolated_home)
    assert "RUNTIME-FILE-91c" not in seen
    assert "BUS-REACHED" not in seen and "no bus" in seen
    assert "xdg=[] dbus=[]" in seen
