"""A real HTTP/1.1 server on 127.0.0.1 for fake model APIs, run in a background thread.

Streams are sent with chunked transfer encoding, split at odd places (inside an SSE line, inside a
UTF-8 character) into separate socket writes, so clients are tested against the framing they will
meet on a real network. Every request is recorded for assertions.
"""

from __future__ import annotations

import contextlib
import json
import random
import socket
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Generic, Self, TypeVar

# Bound on how long a stalled reply holds its connection if the test never closes the server.
STALL_LIMIT_SECONDS = 30.0


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    raw: bytes
    body: Any  # the parsed JSON body, or None

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


@dataclass(frozen=True)
class Planned:
    """One HTTP response: a JSON body, or an SSE stream (optionally dropped part-way)."""

    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    json_body: Any = None
    stream: bytes | None = None
    drop_after: int | None = None  # with `stream`: send this many bytes, then close the socket
    stall: bool = False  # send nothing until the server is closed
    content_type: str = "text/event-stream; charset=utf-8"  # of `stream`
    # Pacing, as a slow local model streams: seconds before anything is sent (a prompt being
    # read), seconds between two SSE events, and after how many events it goes silent.
    first_delay: float = 0.0
    gap: float = 0.0
    stall_after_events: int | None = None

    @property
    def paced(self) -> bool:
        return bool(self.first_delay or self.gap) or self.stall_after_events is not None


@dataclass(frozen=True)
class FakeToolCall:
    """A native tool call in a scripted reply; each fake sends it in its API's own shape."""

    name: str
    arguments: Mapping[str, Any]
    id: str = "call_1"


@dataclass(frozen=True)
class Stall:
    """A scripted step for either fake: accept the request and never answer (for timeouts)."""


Responder = Callable[[RecordedRequest], Planned]


def split_oddly(data: bytes, rng: random.Random, *, max_piece: int = 11) -> list[bytes]:
    """Cut `data` into pieces of 1..max_piece bytes, always inside the first line and inside the
    first multi-byte UTF-8 character (when there is one). Never an empty piece: in chunked
    encoding an empty chunk ends the body."""
    if not data:
        return []
    cuts = {3} if len(data) > 3 else set()
    for index, byte in enumerate(data):
        if 0x80 <= byte <= 0xBF:  # a continuation byte: cutting here splits a character
            cuts.add(index)
            break
    position = 0
    while position < len(data):
        position += rng.randint(1, max_piece)
        cuts.add(position)
    ordered = sorted(c for c in cuts if 0 < c < len(data))
    return [data[a:b] for a, b in zip([0, *ordered], [*ordered, len(data)], strict=True)]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: FakeHTTPServer

    def process_request(self, request: Any, client_address: Any) -> None:
        self.owner._track(request)
        super().process_request(request, client_address)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up (a cut-off test, a finished subprocess) is not a server bug.
        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked encoding, as real APIs speak
    disable_nagle_algorithm = True  # each piece leaves in its own segment, without delay
    timeout = 10  # an idle kept-alive connection does not hold its thread forever
    server: _Server

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def _serve(self) -> None:
        fake = self.server.owner
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        request = RecordedRequest(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            raw=raw,
            body=body,
        )
        fake._record(request)
        plan = fake.responder(request)
        try:
            self._send(plan, fake)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client went away: nothing more to do

    def _send(self, plan: Planned, fake: FakeHTTPServer) -> None:
        if plan.stall:
            fake.closing.wait(STALL_LIMIT_SECONDS)
            self.close_connection = True
            return
        if plan.paced and plan.stream is not None:
            self._send_paced(plan, fake)
            return
        self.send_response(plan.status)
        for name, value in plan.headers.items():
            self.send_header(name, value)
        if plan.stream is None:
            payload = json.dumps(plan.json_body).encode()
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            return
        self.send_header("Content-Type", plan.content_type)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        data = plan.stream if plan.drop_after is None else plan.stream[: plan.drop_after]
        for piece in split_oddly(data, fake.rng(), max_piece=fake.max_piece):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        if plan.drop_after is not None:
            # No final zero-length chunk: the client sees the body end mid-stream.
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        if fake.on_sent is not None:
            fake.on_sent()

    def _send_paced(self, plan: Planned, fake: FakeHTTPServer) -> None:
        assert plan.stream is not None
        if plan.first_delay and fake.closing.wait(plan.first_delay):
            return
        self.send_response(plan.status)
        self.send_header("Content-Type", plan.content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        events = [e + b"\n\n" for e in plan.stream.split(b"\n\n") if e]
        for number, event in enumerate(events):
            if number == plan.stall_after_events:
                fake.closing.wait(STALL_LIMIT_SECONDS)
                self.close_connection = True
                return
            if number and plan.gap and fake.closing.wait(plan.gap):
                return
            self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class FakeHTTPServer:
    """Serves `responder(request) -> Planned` on 127.0.0.1 at a free port while in a `with`."""

    def __init__(self, responder: Responder, *, seed: int = 0, max_piece: int = 11) -> None:
        self.responder = responder
        self.requests: list[RecordedRequest] = []
        self.closing = threading.Event()
        self._seed = seed
        # Bytes per socket write at most: tiny by default (framing bugs show), larger for
        # benches that stream megabytes (still cut inside the first line and character).
        self.max_piece = max_piece
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._streams_sent = 0
        # Called when a stream's last byte has been sent (benchmarks time the client's turn).
        self.on_sent: Callable[[], None] | None = None

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the fake server is not running; use it in a `with` block")
        return int(self._server.server_address[1])

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.owner = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        self.closing.set()
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            # Already closed by the client or the handler: nothing to do.
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def rng(self) -> random.Random:
        """A different but reproducible split pattern for each stream."""
        with self._lock:
            self._streams_sent += 1
            return random.Random(self._seed * 1_000 + self._streams_sent)

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _track(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.add(conn)


def sse(event: str | None, data: Any) -> bytes:
    """One server-sent event; `data` is JSON-encoded unless it is already a string."""
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    if not isinstance(data, str) and any("\ud800" <= c <= "\udfff" for c in payload):
        # Half of a character split between deltas, as real servers send it: an escaped
        # lone surrogate (it has no UTF-8 form of its own).
        payload = json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


def pieces(text: str, size: int) -> list[str]:
    step = max(1, size)
    return [text[i : i + step] for i in range(0, len(text), step)]


StepT = TypeVar("StepT")


class ScriptedFake(FakeHTTPServer, Generic[StepT]):
    """A fake API that answers each model request with the next scripted step, in order."""

    def __init__(self, replies: Iterable[StepT] = (), *, seed: int = 0) -> None:
        super().__init__(self._respond, seed=seed)
        self._script: deque[StepT] = deque(replies)
        self._script_lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return self.origin

    def add(self, *replies: StepT) -> None:
        with self._script_lock:
            self._script.extend(replies)

    def next_step(self) -> StepT | None:
        """The next scripted step; None when the script is used up."""
        with self._script_lock:
            return self._script.popleft() if self._script else None

    def _respond(self, request: RecordedRequest) -> Planned:
        raise NotImplementedError
