"""One MCP server connection over stdio, SSE or streamable HTTP, on the official `mcp` SDK.

The SDK's transports and session are anyio context managers that must be entered and left by the
same task, so each connection owns a runner task that holds them open; callers in other tasks
send requests through the live session. The runner ends when asked to, or when the transport
closes (the server exited or the HTTP stream dropped); `closed` then fires, and the hub decides
whether to restart.

Between the transport and the session sits a small pump. It tells us the moment the server's
stream ends (the SDK gives no such signal) and drops lines a stdio server printed that are not
JSON-RPC, counting them, so a chatty server neither derails the session nor floods our stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
import warnings
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pycline.errors import PeerToolError
from pycline.mcp.model import (
    McpOutput,
    McpResource,
    McpResourceTemplate,
    McpTool,
    ServerStatus,
)
from pycline.mcp.settings import RemoteServer, ServerConfig, StdioServer

if TYPE_CHECKING:
    from mcp.client.session import ClientSession, IncomingMessage

    from pycline.mcp.client_requests import (
        ElicitationPolicy,
        Elicitor,
        Sampler,
    )
    from pycline.mcp.oauth import LoginPolicy

STDERR_TAIL_BYTES = 4096
LIST_PAGE_CAP = 50  # a server that paginates forever cannot hang a connect
STOP_TIMEOUT = 10.0  # the SDK bounds stdio shutdown at ~6 s; HTTP teardown is one request
STDERR_SETTLE = 0.5  # after the server exits, how long to wait for its last stderr bytes

T = TypeVar("T")
R = TypeVar("R")  # a request a person answers
A = TypeVar("A")  # their answer


def describe_error(exc: BaseException) -> str:
    """A one-line reason, looking inside the exception groups anyio task groups raise."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(dict.fromkeys(describe_error(e) for e in exc.exceptions))
    if isinstance(exc, FileNotFoundError) and exc.filename:
        return f"command not found: {exc.filename}"
    if isinstance(exc, TimeoutError):
        return "timed out"
    message = str(exc).strip()
    name = type(exc).__name__
    return f"{name}: {message}" if message else name


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for e in exc.exceptions for leaf in _leaves(e)]
    return [exc]


class _StderrTail(asyncio.Protocol):
    """Keeps the last few KB a stdio server wrote to stderr (it is usually why it failed)."""

    def __init__(self) -> None:
        self.chunks: deque[bytes] = deque()
        self.size = 0
        self.eof = asyncio.Event()

    def data_received(self, data: bytes) -> None:
        self.chunks.append(data)
        self.size += len(data)
        while self.size - len(self.chunks[0]) >= STDERR_TAIL_BYTES:
            self.size -= len(self.chunks.popleft())

    def eof_received(self) -> bool | None:
        self.eof.set()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof.set()

    def text(self) -> str:
        raw = b"".join(self.chunks)[-STDERR_TAIL_BYTES:]
        return raw.decode("utf-8", errors="replace").strip()


def _quiet_sdk_logs() -> None:
    # The SDK logs a full traceback for every stdout line that is not JSON-RPC; we count those
    # lines instead. A NullHandler keeps Python's last-resort handler from printing them.
    logger = logging.getLogger("mcp")
    if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
        logger.addHandler(logging.NullHandler())


class McpConnection:
    def __init__(
        self,
        name: str,
        config: ServerConfig,
        *,
        connect_timeout: float = 30.0,
        cwd: Path | None = None,
        client_name: str = "pycline",
        login: LoginPolicy | None = None,
        elicitation: ElicitationPolicy = "decline",
    ) -> None:
        self.name = name
        self.login = login
        self.elicitation: ElicitationPolicy = elicitation
        # Who answers the server's requests for input now (the task whose call is running).
        self.elicitors: list[Elicitor] = []
        self.samplers: list[Sampler] = []  # who answers its requests for a completion now
        # The folders the server may work in: the workspace (and its worktree).
        self.roots: list[Path] = [cwd] if cwd is not None else []
        self.needs_login = False
        self.config = config
        self.connect_timeout = connect_timeout
        self.base_cwd = cwd
        self.client_name = client_name
        self.status: ServerStatus = "connecting"
        self.error = ""
        self.tools: tuple[McpTool, ...] = ()
        self.resources: tuple[McpResource, ...] = ()
        self.templates: tuple[McpResourceTemplate, ...] = ()
        self.server_version = ""
        self.protocol_version = ""  # the MCP revision spoken, e.g. "2025-11-25"
        self.instructions = ""
        self.garbage_lines = 0
        self.last_transport_error = ""
        self.connected_at: float | None = None
        self.closed = asyncio.Event()
        self.stop_requested = False
        self._session: ClientSession | None = None
        self._stderr: _StderrTail | None = None
        self._stderr_transport: asyncio.ReadTransport | None = None
        self._ready = asyncio.Event()
        self._wake = asyncio.Event()
        self._transport_closed = False
        self._refresh_wanted = False
        self._runner: asyncio.Task[None] | None = None
        self._login_refused: Exception | None = None
        self._asking = 0  # a person is answering the server's question
        self._handshake_clock: asyncio.Timeout | None = None
        self._person_done = 0.0  # when the last answer was given (loop time)

    # --- lifecycle --------------------------------------------------------------------------

    async def connect(self) -> bool:
        """Start the runner and wait until connected or failed; True when connected."""
        if self._runner is None:
            _quiet_sdk_logs()
            self._runner = asyncio.create_task(self._run(), name=f"mcp:{self.name}")
        await self._ready.wait()  # the runner bounds the handshake by connect_timeout
        return self.status == "connected"

    async def close(self) -> None:
        """Disconnect and wait for the server to be gone (bounded)."""
        self.stop_requested = True
        self._wake.set()
        runner = self._runner
        if runner is None:
            self.closed.set()
            return
        try:
            await asyncio.wait_for(asyncio.shield(runner), STOP_TIMEOUT)
        except TimeoutError:
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner

    def stderr_tail(self) -> str:
        return self._stderr.text() if self._stderr is not None else ""

    # --- requests ---------------------------------------------------------------------------

    def _live_session(self) -> ClientSession:
        if self._transport_closed and self.status == "connected":
            raise PeerToolError(self._gone_message())  # the runner has yet to notice
        if self._session is None or self.status != "connected":
            reason = f": {self.error}" if self.error else ""
            raise PeerToolError(
                f"MCP server '{self.name}' is not connected ({self.status}){reason}."
            )
        return self._session

    async def call_tool(
        self,
        tool: str,
        arguments: dict[str, Any],
        timeout: float | None = None,
        *,
        elicitor: Elicitor | None = None,
        sampler: Sampler | None = None,
        roots: Sequence[Path] = (),
    ) -> McpOutput:
        """Call `tool`. `elicitor` and `sampler`: who answers the server's requests for input
        and for a completion meanwhile (the time a person takes to answer does not count
        against the timeout); `roots`, the calling task's folders, become the server's roots
        (it is told when they change: a task in another worktree)."""
        from mcp_types import CallToolResult

        from pycline.mcp.content import tool_output

        session = self._live_session()
        limit = self.config.timeout if timeout is None else timeout
        if roots and list(roots) != self.roots:
            self.roots = list(roots)
            with contextlib.suppress(Exception), warnings.catch_warnings():
                # Deprecated by the 2026-07-28 revision, still what older servers listen for; a
                # server that is gone is found by the call itself.
                warnings.simplefilter("ignore")
                await session.send_roots_list_changed()
        asking = self._while_asking(elicitor) if elicitor is not None else None
        sampling = self._while_asking(sampler) if sampler is not None else None
        if asking is not None:
            self.elicitors.append(asking)
        if sampling is not None:
            self.samplers.append(sampling)
        person = asking is not None or sampling is not None
        try:
            result = await self._bounded(
                session.call_tool(tool, arguments, read_timeout_seconds=None if person else limit),
                limit,
                f"tool '{tool}'",
            )
        finally:
            if asking is not None:
                self.elicitors.remove(asking)
            if sampling is not None:
                self.samplers.remove(sampling)
        assert isinstance(result, CallToolResult)
        return tool_output(result)

    def _while_asking(self, answer: Callable[[R], Awaitable[A]]) -> Callable[[R], Awaitable[A]]:
        """`answer`, with the time it takes kept off the call's timeout."""

        async def asking_person(request: R) -> A:
            self._asking += 1
            try:
                return await answer(request)
            finally:
                self._asking -= 1
                self._person_done = asyncio.get_running_loop().time()

        return asking_person

    async def read_resource(self, uri: str, timeout: float | None = None) -> McpOutput:
        from pycline.mcp.content import resource_output

        session = self._live_session()
        limit = self.config.timeout if timeout is None else timeout
        result = await self._bounded(session.read_resource(uri), limit, f"resource '{uri}'")
        return resource_output(result)

    async def _bounded(self, request: Awaitable[T], limit: float, what: str) -> T:
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT
        from pydantic import ValidationError

        try:
            # The SDK enforces `limit` itself; our own bound (a little later) is the backstop that
            # guarantees no call outlives the server's timeout, whatever the transport does.
            # While a person answers the server's question the clock stops.
            return await self._waiting(request, limit + 1.0)
        except TimeoutError:
            raise self._timeout_error(what, limit) from None
        except MCPError as exc:
            if exc.code == REQUEST_TIMEOUT:
                raise self._timeout_error(what, limit) from None
            if exc.code == CONNECTION_CLOSED:
                raise PeerToolError(self._gone_message()) from None
            raise PeerToolError(
                f"MCP server '{self.name}' returned an error for {what}: {exc.message}"
            ) from None
        except ValidationError as exc:
            raise PeerToolError(
                f"MCP server '{self.name}' sent a malformed answer for {what}: "
                f"{exc.error_count()} validation error(s)"
            ) from None
        except (RuntimeError, ValueError) as exc:
            # The SDK raises these for results it will not hand over (input-required rounds,
            # extension results) and for invalid structured output.
            raise PeerToolError(f"MCP server '{self.name}' failed on {what}: {exc}") from None

    async def _waiting(self, request: Awaitable[T], limit: float) -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.ensure_future(request)
        deadline = loop.time() + limit
        self._login_refused = None
        try:
            while True:
                remaining = deadline - loop.time()
                done, _ = await asyncio.wait({task}, timeout=min(max(remaining, 0.0), 0.5))
                if done:
                    return task.result()
                if self._login_refused is not None:  # the server wants a (wider) login
                    self.needs_login = True
                    raise PeerToolError(str(self._login_refused))
                if loop.time() < deadline:
                    continue
                if self._asking or self._person_done > deadline - limit:
                    deadline = max(loop.time(), self._person_done) + limit
                    continue
                raise TimeoutError
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    def _timeout_error(self, what: str, limit: float) -> PeerToolError:
        note = (
            f" (last transport error: {self.last_transport_error})"
            if self.last_transport_error
            else ""
        )
        return PeerToolError(
            f"MCP server '{self.name}' did not answer {what} within {limit:g} s (its timeout)"
            f"{note}. The request was abandoned."
        )

    def _gone_message(self) -> str:
        tail = self.stderr_tail()
        detail = f"\nLast output on its stderr:\n{tail[-800:]}" if tail else ""
        return f"MCP server '{self.name}' disconnected before answering.{detail}"

    # --- the runner -------------------------------------------------------------------------

    async def _run(self) -> None:
        try:
            async with AsyncExitStack() as stack:
                try:
                    async with asyncio.timeout(self.connect_timeout) as clock:
                        self._handshake_clock = clock
                        session = await self._open_session(stack)
                        await self._negotiate(session)
                        await self._refresh_lists(session)
                except Exception as exc:  # boundary: a failed handshake is a status
                    self.status, self.error = "error", self._failure_text(exc)
                    if self._transport_closed:
                        await self._settle_stderr()  # the server is gone: its last words count
                    # Report now; shutting down a hung server takes seconds the caller need not wait.
                    self._ready.set()
                    return
                info = session.server_info
                self.server_version = f"{info.name} {info.version}".strip() if info else ""
                self.protocol_version = session.protocol_version or ""
                found = session.initialize_result or session.discover_result
                self.instructions = (found.instructions if found else None) or ""
                self._session = session
                self.status = "connected"
                self.error = ""
                self.connected_at = time.monotonic()
                self._ready.set()
                await self._serve(session)
        except asyncio.CancelledError:
            self.status = "disconnected"
            raise
        except Exception as exc:  # boundary: any failure of a third-party server is a status
            self.status = "error"
            self.error = self._failure_text(exc)
        finally:
            self._session = None
            await self._settle_stderr()
            self._close_stderr()
            if self.stop_requested:
                self.status, self.error = "disconnected", ""
            elif self.status == "connected":
                self.status, self.error = "error", "the server closed the connection"
            elif self.status == "connecting":
                self.status = "disconnected"
            self._ready.set()
            self.closed.set()

    def _person_waits(self, waiting: bool) -> None:
        """The handshake's clock stops while the user logs in in the browser."""
        clock = self._handshake_clock
        if clock is None or self._session is not None:
            return
        loop = asyncio.get_running_loop()
        clock.reschedule(None if waiting else loop.time() + self.connect_timeout)

    async def _negotiate(self, session: ClientSession) -> None:
        """The protocol revision: the initialize handshake of the revisions up to 2025-11-25,
        which servers of the stateless 2026-07-28 revision still answer (the SDK's do); a server
        that speaks only 2026-07-28 refuses it naming its versions, and is then asked with
        `server/discover` (the SDK's own negotiation)."""
        from mcp.shared.exceptions import MCPError
        from mcp_types import UNSUPPORTED_PROTOCOL_VERSION

        try:
            await session.initialize()
        except MCPError as exc:
            if exc.code != UNSUPPORTED_PROTOCOL_VERSION or isinstance(self.config, StdioServer):
                raise
            from mcp.client._probe import negotiate_auto

            await negotiate_auto(session)

    def _failure_text(self, exc: BaseException) -> str:
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED

        from pycline.mcp.oauth import is_needs_login

        needs = is_needs_login(exc) or self._login_refused
        if needs is not None:
            self.needs_login = True
            return str(needs)

        if isinstance(exc, TimeoutError) and self._session is None:
            return f"no answer to the MCP handshake within {self.connect_timeout:g} s"
        # "Connection closed" says nothing about why; a transport error beside it does.
        causes = [
            e for e in _leaves(exc) if not (isinstance(e, MCPError) and e.code == CONNECTION_CLOSED)
        ]
        if causes:
            return "; ".join(dict.fromkeys(describe_error(e) for e in causes))
        if self._transport_closed and self._session is None:
            if self.last_transport_error:
                return f"could not connect: {self.last_transport_error}"
            if isinstance(self.config, StdioServer):
                return "the server exited during the MCP handshake"
            return "the server closed the connection during the MCP handshake"
        return describe_error(exc)

    async def _serve(self, session: ClientSession) -> None:
        while not (self.stop_requested or self._transport_closed):
            await self._wake.wait()
            self._wake.clear()
            if self._refresh_wanted and not (self.stop_requested or self._transport_closed):
                self._refresh_wanted = False
                with contextlib.suppress(Exception):  # boundary: keep the old lists on failure
                    async with asyncio.timeout(self.config.timeout):
                        await self._refresh_lists(session)

    async def _open_session(self, stack: AsyncExitStack) -> ClientSession:
        import anyio
        from mcp.client.session import ClientSession
        from mcp.shared.message import SessionMessage
        from mcp_types import Implementation

        from pycline import __version__

        if isinstance(self.config, StdioServer):
            read, write = await self._open_stdio(stack, self.config)
        else:
            read, write = await self._open_remote(stack, self.config)

        forward_send, forward_recv = anyio.create_memory_object_stream[SessionMessage](0)
        pump_group = await stack.enter_async_context(anyio.create_task_group())
        # Unwinding is LIFO: cancel the pump before its task group is awaited.
        stack.callback(pump_group.cancel_scope.cancel)
        pump_group.start_soon(self._pump, read, forward_send)
        from pycline.mcp.client_requests import session_callbacks

        return await stack.enter_async_context(
            ClientSession(
                forward_recv,
                write,
                message_handler=self._on_message,
                client_info=Implementation(name=self.client_name, version=__version__),
                **session_callbacks(
                    self.name, self.elicitation, self.elicitors, self.samplers, lambda: self.roots
                ),
            )
        )

    async def _pump(self, read: Any, forward: Any) -> None:
        try:
            async with forward:
                async for item in read:
                    if isinstance(item, Exception):
                        from pycline.mcp.oauth import is_needs_login

                        if (needs := is_needs_login(item)) is not None:
                            self._login_refused = needs
                        self.garbage_lines += 1
                        self.last_transport_error = describe_error(item)[:300]
                        continue
                    await forward.send(item)
        finally:
            self._transport_closed = True
            self._wake.set()

    async def _on_message(self, message: IncomingMessage) -> None:
        from mcp_types import ResourceListChangedNotification, ToolListChangedNotification

        if isinstance(message, ToolListChangedNotification | ResourceListChangedNotification):
            # Re-listing from inside the dispatcher's callback could wait on itself; the runner
            # does it instead.
            self._refresh_wanted = True
            self._wake.set()

    async def _refresh_lists(self, session: ClientSession) -> None:
        from pycline.mcp.content import resource_of, template_of, tool_of

        caps = session.server_capabilities
        tools: list[McpTool] = []
        resources: list[McpResource] = []
        templates: list[McpResourceTemplate] = []
        if caps is None or caps.tools is not None:
            async for page in self._pages(session.list_tools):
                tools.extend(tool_of(t) for t in page.tools)
        if caps is None or caps.resources is not None:
            async for page in self._pages(session.list_resources):
                resources.extend(resource_of(r) for r in page.resources)
            async for page in self._pages(session.list_resource_templates):
                templates.extend(template_of(t) for t in page.resource_templates)
        self.tools, self.resources, self.templates = (
            tuple(tools),
            tuple(resources),
            tuple(templates),
        )

    @staticmethod
    async def _pages(fetch: Any) -> Any:
        from mcp_types import PaginatedRequestParams

        params: PaginatedRequestParams | None = None
        for _ in range(LIST_PAGE_CAP):
            page = await fetch(params=params)
            yield page
            if not page.next_cursor:
                return
            params = PaginatedRequestParams(cursor=page.next_cursor)

    # --- transports -------------------------------------------------------------------------

    async def _open_stdio(self, stack: AsyncExitStack, config: StdioServer) -> tuple[Any, Any]:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        cwd = Path(os.path.expanduser(config.cwd)) if config.cwd else None
        if cwd is not None and not cwd.is_absolute() and self.base_cwd is not None:
            cwd = self.base_cwd / cwd
        if cwd is not None and not cwd.is_dir():
            raise NotADirectoryError(f"cwd {cwd} is not a folder")
        params = StdioServerParameters(
            command=os.path.expanduser(config.command),
            args=list(config.args),
            env=dict(config.env) or None,
            cwd=cwd,
            # One undecodable byte must not end the session.
            encoding_error_handler="replace",
        )
        errlog = await self._stderr_pipe()
        try:
            streams: tuple[Any, Any] = await stack.enter_async_context(
                stdio_client(params, errlog=errlog)
            )
        finally:
            errlog.close()  # the child holds its own copy; ours would keep EOF from coming
        return streams

    async def _stderr_pipe(self) -> Any:
        read_fd, write_fd = os.pipe()
        tail = _StderrTail()
        loop = asyncio.get_running_loop()
        reader = os.fdopen(read_fd, "rb", buffering=0)
        transport, _ = await loop.connect_read_pipe(lambda: tail, reader)
        self._stderr, self._stderr_transport = tail, transport
        return os.fdopen(write_fd, "w", encoding="utf-8")

    async def _settle_stderr(self) -> None:
        if self._stderr is None:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stderr.eof.wait(), STDERR_SETTLE)

    def _close_stderr(self) -> None:
        if self._stderr_transport is not None:
            self._stderr_transport.close()
            self._stderr_transport = None

    async def _open_remote(self, stack: AsyncExitStack, config: RemoteServer) -> tuple[Any, Any]:
        headers = dict(config.headers)
        auth = None
        if self.login is not None:
            from pycline.mcp.oauth import build_auth

            auth = build_auth(self.name, config, self.login, self._person_waits)
        if config.type == "sse":
            from mcp.client.sse import sse_client

            return await stack.enter_async_context(
                sse_client(
                    config.url, headers=headers or None, timeout=self.connect_timeout, auth=auth
                )
            )
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        # Built here (not by the SDK) to carry the configured headers; the long read timeout lets
        # the server hold a response stream open, as the SDK's own default does.
        client = await stack.enter_async_context(
            httpx2.AsyncClient(
                headers=headers,
                timeout=httpx2.Timeout(self.connect_timeout, read=300.0),
                auth=auth,
            )
        )
        return await stack.enter_async_context(
            streamable_http_client(config.url, http_client=client)
        )
