"""A llama-server of our own: started on 127.0.0.1 on a free port with the model's real context
window and `--jinja` (the model's own chat template, so its tool calls come back as OpenAI
`tool_calls`), ready once `/health` answers 200, stopped with the process that started it."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType

from pycline.errors import PyclineError

HOST = "127.0.0.1"


class ServerError(PyclineError):
    """The local model server did not start or stopped answering."""


def free_port(host: str = HOST) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def _parent_death_signal() -> Callable[[], None] | None:
    """Linux: a function for the child, between fork and exec, that has the kernel kill it when
    the process that started it dies, however it dies (SIGKILL: on SIGTERM alone llama-server
    may wait for work in progress; it keeps nothing that needs saving). libc is looked up here, in
    the parent, so the child only makes the one system call."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        prctl = ctypes.CDLL("libc.so.6", use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def child() -> None:  # pragma: no cover - runs in the child
        prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG

    return child


class LocalServer:
    """One llama-server process. `start()` returns once it serves; `stop()` ends it."""

    def __init__(
        self,
        binary: Path,
        model: Path,
        *,
        context_window: int,
        alias: str,
        port: int | None = None,
        log: Path | None = None,
        extra_args: Sequence[str] = (),
    ) -> None:
        self.binary, self.model, self.alias = binary, model, alias
        self.context_window = context_window
        self.port = port
        self.log = log
        self.extra_args = tuple(extra_args)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def origin(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    def command(self) -> list[str]:
        return [str(self.binary), "--model", str(self.model), "--host", HOST,
                "--port", str(self.port), "--ctx-size", str(self.context_window), "--jinja",
                "--alias", self.alias, *self.extra_args]  # fmt: skip

    def start(self, timeout: float = 300.0) -> None:
        if self.process is not None and self.process.poll() is None:
            return
        if self.port is None:
            self.port = free_port()
        out: int | object = subprocess.DEVNULL
        if self.log is not None:
            self.log.parent.mkdir(parents=True, exist_ok=True)
            out = self.log.open("ab")
        try:
            self.process = subprocess.Popen(
                self.command(),
                stdin=subprocess.DEVNULL,
                stdout=out,  # type: ignore[arg-type]
                stderr=subprocess.STDOUT,
                preexec_fn=_parent_death_signal(),
                start_new_session=True,  # a terminal's Ctrl-C goes to pycline, which stops it
            )
        except OSError as exc:
            raise ServerError(f"Cannot start {self.binary}: {exc}") from exc
        finally:
            if self.log is not None and hasattr(out, "close"):
                out.close()
        try:
            self.wait_ready(timeout)
        except BaseException:
            self.stop()
            raise

    def wait_ready(self, timeout: float) -> None:
        """Until /health answers 200 (the model is loaded); fails if the process ends first."""
        deadline = time.monotonic() + timeout
        while True:
            if self.process is not None and self.process.poll() is not None:
                raise ServerError(
                    f"The model server stopped while starting (exit {self.process.returncode})"
                    + self._log_tail()
                )
            if health(self.origin) == "ok":
                return
            if time.monotonic() > deadline:
                raise ServerError(
                    f"The model server did not become ready in {timeout:.0f} s" + self._log_tail()
                )
            time.sleep(0.25)

    def _log_tail(self) -> str:
        if self.log is None or not self.log.is_file():
            return "."
        tail = self.log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-5:]
        return ": " + " / ".join(tail) if tail else "."

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, grace: float = 10.0) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(grace)

    def __enter__(self) -> LocalServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def health(origin: str, timeout: float = 2.0) -> str:
    """ "ok" when the server at `origin` serves; "loading" while it loads its model (503);
    else "down"."""
    try:
        with urllib.request.urlopen(f"{origin}/health", timeout=timeout) as reply:
            return "ok" if reply.status == 200 else "down"
    except urllib.error.HTTPError as exc:
        return "loading" if exc.code == 503 else "down"
    except (OSError, ValueError):
        return "down"


def props(origin: str, timeout: float = 2.0) -> dict[str, object]:
    """llama-server's /props (its build and the context it runs with), {} when unknown."""
    try:
        with urllib.request.urlopen(f"{origin}/props", timeout=timeout) as reply:
            data = json.loads(reply.read())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
