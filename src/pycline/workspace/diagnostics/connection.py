"""One running language server, spoken to through pygls's client and lsprotocol's types.

The server runs in its own process group, so a hung one (and whatever it started, such as
tsserver under typescript-language-server) can be killed as a whole. Its stderr is drained so
a chatty server never blocks on a full pipe; the last lines are kept for the error message.

Diagnostics for a text are pulled (`textDocument/diagnostic`) when the server offers that: the
answer is for exactly the text just sent. Otherwise they are pushed: the first publication for
the document after the change, then any further ones until the server has been quiet for
`settle` seconds (servers publish syntax and type errors separately).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.lsp.client import LanguageClient

from pycline.terminal.sandbox import SandboxPolicy, SandboxUnavailable, program_argv
from pycline.workspace.diagnostics.servers import Launch, ServerFailed

__all__ = ["Connection", "ServerFailed", "errors_only"]

log = logging.getLogger(__name__)

SETTLE_SECONDS = 0.3
# A push server that publishes nothing this long after a change found nothing new to say
# (typescript-language-server stays silent when the diagnostics stay empty).
SILENT_SECONDS = 1.5
_STDERR_LINES = 20


class _Client(LanguageClient):
    def __init__(self, on_exit: asyncio.Event) -> None:
        super().__init__("pycline", "1")
        self._on_exit = on_exit

    async def server_exit(self, server: asyncio.subprocess.Process) -> None:
        self._on_exit.set()


class Connection:
    def __init__(
        self,
        launch: Launch,
        root: Path,
        *,
        settle: float = SETTLE_SECONDS,
        sandbox: SandboxPolicy | None = None,
        reveal: Sequence[Path] = (),
    ) -> None:
        self.launch = launch
        self.root = root
        self.sandbox = sandbox
        self.reveal = tuple(reveal)  # folders the sandbox covers that the server comes from
        self.settle = settle
        self.pull = False
        self.exited = asyncio.Event()
        self._client = _Client(self.exited)
        self._process: asyncio.subprocess.Process | None = None
        self._stderr: deque[str] = deque(maxlen=_STDERR_LINES)
        self._tasks: list[asyncio.Task[None]] = []
        self._versions: dict[str, int] = {}
        self._texts: dict[str, str] = {}
        self.published: dict[str, tuple[int | None, list[lsp.Diagnostic]]] = {}
        self._seq: dict[str, int] = {}  # publications received per document
        self._answered: dict[str, int] = {}  # the document version each last answer was for
        self.heard = 0  # messages received from the server: a slow server is not a hung one
        self._lag = 0.0  # seconds the last pushed answer took to follow its change
        self._news = asyncio.Event()
        self._register_handlers()

    # --- life cycle ------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        process = self._process
        return process is not None and process.returncode is None and not self.exited.is_set()

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    def stderr_tail(self) -> str:
        return "\n".join(self._stderr)

    async def start(self) -> None:
        """Start the process and finish the `initialize` handshake (the caller bounds the wait)."""
        command = self.launch.command
        # The server reads what commands wrote (a toolchain file, a config that loads plugins):
        # it runs in their sandbox, without the user's keys.
        try:
            argv, env = program_argv(
                command,
                self.sandbox,
                self.root,
                {**os.environ, **self.launch.spec.env},
                reveal=self.reveal,
            )
        except SandboxUnavailable as exc:
            raise ServerFailed(f"{command[0]} was not started: {exc}") from exc
        contained = argv != list(command)
        # pygls logs a warning for every server extension it does not know ($/typescriptVersion…);
        # they are not the user's concern.
        logging.getLogger("pygls").setLevel(logging.ERROR)
        try:
            await self._client.start_io(
                argv[0], *argv[1:], cwd=str(self.root), env=env, start_new_session=True
            )
        except OSError as exc:
            raise ServerFailed(f"{command[0]} could not be started: {exc}") from exc
        # pygls keeps the process private; we need it to drain stderr and to kill the group.
        self._process = self._client._server
        if self._process is not None and self._process.stderr is not None:
            self._tasks.append(asyncio.create_task(self._drain(self._process.stderr)))
        root_uri = self.root.as_uri()
        params = lsp.InitializeParams(
            capabilities=_CAPABILITIES,
            # In the sandbox's own pid namespace our pid names no process: a server watching it
            # would take us for dead and quit.
            process_id=None if contained else os.getpid(),
            client_info=lsp.ClientInfo(name="pycline"),
            root_uri=root_uri,
            root_path=str(self.root),
            workspace_folders=[lsp.WorkspaceFolder(uri=root_uri, name=self.root.name)],
            initialization_options=self.launch.initialization_options() or None,
        )
        result = await self._raced(self._client.initialize_async(params))
        self.pull = result.capabilities.diagnostic_provider is not None
        self._client.initialized(lsp.InitializedParams())

    async def close(self, *, grace: float = 1.0) -> None:
        """Ask the server to shut down; kill its process group if it does not within `grace`."""
        if self.alive:
            with contextlib.suppress(TimeoutError, RuntimeError, ServerFailed):
                await asyncio.wait_for(self._raced(self._client.shutdown_async(None)), grace)
                self._client.exit(None)
                if self._process is not None:
                    await asyncio.wait_for(self._process.wait(), grace)
        await self.kill()

    async def kill(self) -> None:
        process = self._process
        if process is not None:
            # The whole group, even when the server itself has exited: what it started (tsserver)
            # may still be running.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._client.stop(), 2.0)  # type: ignore[no-untyped-call]
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    # --- documents -------------------------------------------------------------------------

    def answered(self, path: Path, text: str) -> list[lsp.Diagnostic] | None:
        """The diagnostics already received for exactly this text of the document, if any."""
        uri = path.as_uri()
        version = self._versions.get(uri)
        if version is None or self._texts.get(uri) != text or self._answered.get(uri) != version:
            return None
        return list(self.published[uri][1])

    def sync(self, path: Path, text: str, language_id: str) -> int:
        """Send `text` as the document's content; returns its version."""
        if self._client.stopped:  # pygls refuses to send once it has seen the server exit
            raise ServerFailed(self._failure("stopped"))
        uri = path.as_uri()
        version = self._versions.get(uri, 0) + 1
        self._versions[uri] = version
        self._texts[uri] = text
        if version == 1:
            self._client.text_document_did_open(
                lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, language_id, version, text))
            )
        else:
            self._client.text_document_did_change(
                lsp.DidChangeTextDocumentParams(
                    lsp.VersionedTextDocumentIdentifier(version=version, uri=uri),
                    [lsp.TextDocumentContentChangeWholeDocument(text=text)],
                )
            )
        self._client.text_document_did_save(
            lsp.DidSaveTextDocumentParams(lsp.TextDocumentIdentifier(uri))
        )
        return version

    async def diagnostics(self, path: Path, version: int) -> list[lsp.Diagnostic]:
        """What the server reports for `version` of the document (the caller bounds the wait)."""
        uri = path.as_uri()
        if self.pull:
            report = await self._raced(
                self._client.text_document_diagnostic_async(
                    lsp.DocumentDiagnosticParams(lsp.TextDocumentIdentifier(uri))
                )
            )
            items = list(getattr(report, "items", None) or [])
            self.published[uri] = (version, items)
        else:
            items = await self._pushed(uri, version)
        self._answered[uri] = version
        return items

    async def _pushed(self, uri: str, version: int) -> list[lsp.Diagnostic]:
        seen = self._seq.get(uri, 0)
        known = uri in self.published
        loop = asyncio.get_running_loop()
        asked = loop.time()
        # The waits follow the server's pace: one that took long to answer last time (a cold
        # start, a loaded machine) may still be busy with the previous text.
        silent_until = asked + max(SILENT_SECONDS, 2 * self._lag)
        while not self._fresh(uri, seen, version):
            wait = silent_until - loop.time() if known else None
            if wait is not None and wait <= 0:
                self._lag /= 2
                return list(self.published[uri][1])  # nothing new: the old ones still stand
            if not await self._news_within(wait):
                continue
        self._lag = loop.time() - asked
        # Servers publish in rounds (TypeScript: syntax errors, then type errors); one slow to
        # say the first is as slow with the next, so quiet means quiet for as long.
        quiet = max(self.settle, self._lag)
        while True:
            seen = self._seq.get(uri, 0)
            if not await self._news_within(quiet):
                return list(self.published[uri][1])
            if self._seq.get(uri, 0) == seen:
                continue  # news about another document: keep waiting for quiet on this one

    def _fresh(self, uri: str, seen: int, version: int) -> bool:
        if self._seq.get(uri, 0) <= seen:
            return False
        published_version = self.published[uri][0]
        return published_version is None or published_version >= version

    async def _news_within(self, seconds: float | None) -> bool:
        """True when something was published within `seconds` (None: no limit)."""
        news = self._news
        try:
            await asyncio.wait_for(self._raced(news.wait()), seconds)
        except TimeoutError:
            return False
        return True

    async def _raced(self, awaitable: Any) -> Any:
        """`awaitable`'s result, unless the server exits first (then ServerFailed)."""
        work = asyncio.ensure_future(awaitable)
        exited = asyncio.ensure_future(self.exited.wait())
        try:
            await asyncio.wait({work, exited}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            exited.cancel()
            if not work.done():
                work.cancel()
        if not work.done() or work.cancelled():
            raise ServerFailed(self._failure("stopped"))
        try:
            return work.result()
        except JsonRpcException as exc:  # the server answered with an error
            raise ServerFailed(f"{self.launch.command[0]} answered with an error: {exc}") from exc
        except RuntimeError as exc:  # pygls fails what is pending this way when the server exits
            raise ServerFailed(self._failure("stopped")) from exc

    def _failure(self, what: str) -> str:
        tail = self.stderr_tail()
        return f"{self.launch.command[0]} {what}" + (f": {tail}" if tail else "")

    async def _drain(self, stream: asyncio.StreamReader) -> None:
        while line := await stream.readline():
            self._stderr.append(line.decode("utf-8", errors="replace").rstrip())

    # --- what the server sends -------------------------------------------------------------

    def _register_handlers(self) -> None:
        handlers: dict[str, Callable[[Any], Any]] = {
            lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: self._published,
            lsp.WORKSPACE_CONFIGURATION: _configuration,
            # Requests the server may send and a headless client has nothing to do with.
            lsp.CLIENT_REGISTER_CAPABILITY: _nothing,
            lsp.WINDOW_WORK_DONE_PROGRESS_CREATE: _nothing,
            lsp.WORKSPACE_DIAGNOSTIC_REFRESH: _nothing,
            lsp.WINDOW_LOG_MESSAGE: _nothing,
            lsp.WINDOW_SHOW_MESSAGE: _nothing,
            lsp.PROGRESS: _nothing,
        }
        for method, handler in handlers.items():
            # pygls labels each handler it registers, so each gets a function of its own.
            self._client.feature(method)(self._counted(handler))

    def _counted(self, handler: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def handle(params: Any) -> Any:
            self.heard += 1
            return handler(params)

        return handle

    def _published(self, params: lsp.PublishDiagnosticsParams) -> None:
        self.published[params.uri] = (params.version, list(params.diagnostics))
        self._seq[params.uri] = self._seq.get(params.uri, 0) + 1
        self._news.set()
        self._news = asyncio.Event()


def _nothing(params: Any) -> None:
    return None


def _configuration(params: lsp.ConfigurationParams) -> list[Any]:
    return [_setting(item.section) for item in params.items]


def _setting(section: str | None) -> Any:
    # Python servers: the standard rule set (basedpyright's default is stricter), open files
    # only, so a check never waits for the whole workspace.
    if section in ("python.analysis", "basedpyright.analysis"):
        return {"typeCheckingMode": "standard", "diagnosticMode": "openFilesOnly"}
    return None


def errors_only(found: Sequence[lsp.Diagnostic]) -> list[lsp.Diagnostic]:
    return [d for d in found if d.severity in (None, lsp.DiagnosticSeverity.Error)]


_CAPABILITIES = lsp.ClientCapabilities(
    workspace=lsp.WorkspaceClientCapabilities(configuration=True, workspace_folders=True),
    text_document=lsp.TextDocumentClientCapabilities(
        synchronization=lsp.TextDocumentSyncClientCapabilities(did_save=True),
        publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(version_support=True),
        diagnostic=lsp.DiagnosticClientCapabilities(related_document_support=False),
    ),
    window=lsp.WindowClientCapabilities(work_done_progress=False),
)
