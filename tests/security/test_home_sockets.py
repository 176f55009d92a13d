"""No socket and no FIFO under a home folder the sandbox shows is reachable from a command: git's
credential cache (a real `git credential-cache` daemon holding a token), an agent's socket, a
daemon's FIFO, and the same deeper than the sandbox looks (in a package tree)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pycline.terminal.sandbox import bwrap_path
from tests.security.attack import COMPLETE, command, results, scripted

TOKEN = "TOKEN-gitcache-81f3"


def _git(home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "GIT_"))}
    env["HOME"] = str(home)
    return subprocess.run(
        ["git", *args], input=stdin, env=env, capture_output=True, text=True, timeout=30,
        check=False,
    )  # fmt: skip


@pytest.fixture
def cached_credential(outside_tmp: Path) -> Iterator[Path]:
    """A home whose git credential cache holds a token (git's own daemon, its default socket)."""
    home = outside_tmp / "home"
    home.mkdir()
    stored = _git(
        home, "-c", "credential.helper=cache --timeout=300", "credential", "approve",
        stdin=f"protocol=https\nhost=example.com\nusername=me\npassword={TOKEN}\n\n",
    )  # fmt: skip
    assert stored.returncode == 0, stored.stderr
    socket_file = home / ".cache" / "git" / "credential" / "socket"
    assert socket_file.is_socket(), "git's credential cache did not start"
    try:
        yield home
    finally:
        _git(home, "credential-cache", "exit")


class _Listener:
    """A daemon's socket: counts who connects."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.accepted = 0
        self._sock = socket.socket(socket.AF_UNIX)
        self._sock.bind(str(path))
        self._sock.listen(8)
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
        self._thread.join(5)


PROBE = """\
import os, socket, sys
for path in sys.argv[1:]:
    if path.endswith(".sock"):
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(path)
            print("PROBE-REACHED-9d", path)
        except OSError as exc:
            print("refused", path, exc.strerror)
    else:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            os.write(fd, b"FIFO-WRITTEN-5c1\\n")
            print("PROBE-REACHED-9d", path)
        except OSError as exc:
            print("refused", path, exc.strerror)
"""


def test_no_socket_or_fifo_under_a_shown_home_folder_is_reachable(
    isolated_home: Path, workspace: Path, cached_credential: Path
) -> None:
    assert bwrap_path() is not None, "bubblewrap (bwrap) must be installed for this test"
    home = cached_credential
    cache = home / ".cache"
    listeners = [
        _Listener(cache / "some-agent" / "agent.sock"),
        # Deeper than the sandbox looks, in a package tree: the kernel's list finds it.
        _Listener(cache / "pip" / "http" / "a" / "b" / "c" / "d" / "e" / "f" / "deep.sock"),
    ]
    fifos = [cache / "some-daemon" / "control", cache / "pip" / "http" / "a" / "b" / "ctl"]
    readers = []
    for fifo in fifos:
        fifo.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(fifo)
        readers.append(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))  # a daemon waiting on it
    (workspace / "probe.py").write_text(PROBE, encoding="utf-8")
    targets = " ".join(str(p) for p in [*(x.path for x in listeners), *fifos])
    replies = [
        command("printf 'protocol=https\\nhost=example.com\\n\\n' | git credential-cache get"),
        command("git -c credential.helper=cache credential fill <<'EOF'\nprotocol=https\n"
                "host=example.com\nEOF"),
        command(f"{sys.executable} probe.py {targets}"),
        command("ls -la ~/.cache/git/credential ~/.cache/some-agent ~/.cache/some-daemon; "
                "find ~/.cache -type s -o -type p"),
        COMPLETE,
    ]  # fmt: skip
    try:
        proc = scripted(
            workspace,
            isolated_home,
            replies,
            env={"HOME": str(home), "GIT_TERMINAL_PROMPT": "0"},
        )
        written = b"".join(_drain(fd) for fd in readers)
    finally:
        for listener in listeners:
            listener.close()
        for fd in readers:
            os.close(fd)
    assert proc.returncode == 0, proc.stderr
    seen = results(isolated_home)
    assert TOKEN not in seen
    assert "PROBE-REACHED-9d" not in seen and seen.count("refused /") == 4, seen
    assert [x.accepted for x in listeners] == [0, 0]
    assert written == b""
    # The cache still works for the user, outside the sandbox.
    asked = "protocol=https\nhost=example.com\n\n"
    assert TOKEN in _git(home, "credential-cache", "get", stdin=asked).stdout


def _drain(fd: int) -> bytes:
    try:
        return os.read(fd, 4096)
    except BlockingIOError:
        return b""
