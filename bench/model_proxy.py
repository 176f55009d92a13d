"""A recording loopback proxy between an agent and the model server of `real_model.py`.

Both agents talk to the same server through it, so both are counted alike: every request is a
turn; the tokens are the server's own usage figures (the last stream chunk's `usage`, or
llama-server's `timings`); each reply's text and tool calls are kept to tell why a run failed.
Past the turn cap it answers 429 and marks the run capped (the bench then stops the agent).
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Turn:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    text: str = ""
    calls: list[tuple[str, str]] = field(default_factory=list)  # (name, raw arguments)
    last_message: str = ""  # the newest message the agent sent (tool results, its feedback)
    status: int = 0  # 0: the reply had not ended when the run was stopped
    prompt_seconds: float = 0.0  # llama-server's own timings, when it sent them
    output_seconds: float = 0.0
    wall: float = 0.0  # from the request to the reply's last byte (or the stop)
    raw: bytearray = field(default_factory=bytearray, repr=False)
    request: bytes = field(default=b"", repr=False)
    counted: str = "server"  # "server": its usage figures; "tokenized": a reply cut short
    temperature: float | None = None  # as the agent asked for it (None: not sent)

    def finish(self) -> None:
        """Read what arrived of the reply (all of it, or up to where the run was stopped)."""
        _parse_reply(self, bytes(self.raw))


@dataclass
class Recording:
    cap: int
    turns: list[Turn] = field(default_factory=list)
    capped: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def close(self, upstream: str | None = None) -> None:
        """Parse every reply, the one cut off by a stop included. A reply the agent stopped
        reading early (at its first complete tool call) has no usage figures: with `upstream`
        (llama-server) its prompt and the part written are counted by the server's own
        template and tokenizer instead."""
        for turn in self.turns:
            turn.finish()
            if upstream and not turn.prompt_tokens and turn.request:
                _count_with_server(turn, upstream)

    @property
    def tokens_in(self) -> int:
        return sum(t.prompt_tokens for t in self.turns)

    @property
    def tokens_out(self) -> int:
        return sum(t.completion_tokens for t in self.turns)


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


class ModelProxy:
    def __init__(self, upstream: str) -> None:
        self.upstream = urlsplit(upstream)
        self.recording = Recording(cap=10**9)
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return None

            def do_GET(self) -> None:
                proxy._forward(self, None)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                proxy._forward(self, self.rfile.read(length))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    @property
    def upstream_origin(self) -> str:
        return f"http://{self.upstream.hostname}:{self.upstream.port}"

    def start(self) -> None:
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def record(self, cap: int) -> Recording:
        """A new recording for the next agent run."""
        self.recording = Recording(cap=cap)
        return self.recording

    def _forward(self, handler: BaseHTTPRequestHandler, body: bytes | None) -> None:
        recording = self.recording
        turn: Turn | None = None
        if body is not None and handler.path.rstrip("/").endswith("/chat/completions"):
            with recording.lock:
                if len(recording.turns) >= recording.cap:
                    recording.capped = True
                    _answer(handler, 429, {"error": {"message": "turn cap of the bench reached"}})
                    return
                turn = Turn()
                recording.turns.append(turn)
                begun = time.monotonic()
            try:
                request = json.loads(body)
                messages = request.get("messages") or []
                turn.last_message = _message_text(messages[-1]) if messages else ""
                sampled = request.get("temperature")
                turn.temperature = sampled if isinstance(sampled, (int, float)) else None
                turn.request = body
            except (ValueError, AttributeError, IndexError):
                pass
        connection = http.client.HTTPConnection(
            self.upstream.hostname or "127.0.0.1", self.upstream.port, timeout=3600
        )
        headers = {k: v for k, v in handler.headers.items()
                   if k.lower() not in ("host", "content-length", "connection")}  # fmt: skip
        try:
            connection.request(handler.command, handler.path, body=body, headers=headers)
            reply = connection.getresponse()
        except OSError as exc:
            _answer(handler, 502, {"error": {"message": f"model server unreachable: {exc}"}})
            return
        handler.send_response(reply.status)
        for key, value in reply.getheaders():
            if key.lower() not in ("transfer-encoding", "content-length", "connection"):
                handler.send_header(key, value)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.send_header("Connection", "close")
        handler.end_headers()
        kept = turn.raw if turn is not None else bytearray()
        try:
            while chunk := reply.read1(65536):
                kept += chunk
                if turn is not None:
                    turn.wall = time.monotonic() - begun
                handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                handler.wfile.flush()
            handler.wfile.write(b"0\r\n\r\n")
            handler.wfile.flush()
        except OSError:
            pass  # the agent hung up (stopped, or its own timeout)
        finally:
            connection.close()
        handler.close_connection = True
        if turn is not None:
            turn.status = reply.status
            turn.wall = time.monotonic() - begun


def _answer(handler: BaseHTTPRequestHandler, status: int, data: dict[str, Any]) -> None:
    raw = json.dumps(data).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(raw)))
    handler.end_headers()
    handler.wfile.write(raw)


def _parse_reply(turn: Turn, raw: bytes) -> None:
    text = raw.decode("utf-8", errors="replace")
    chunks: list[dict[str, Any]] = []
    if text.lstrip().startswith("{"):
        try:
            chunks = [json.loads(text)]
        except ValueError:
            return
    else:
        for line in text.splitlines():
            if line.startswith("data:") and line[5:].strip() not in ("", "[DONE]"):
                try:
                    chunks.append(json.loads(line[5:]))
                except ValueError:
                    continue
    calls: dict[int, list[str]] = {}
    turn.text = ""
    for chunk in chunks:
        usage = chunk.get("usage")
        timings = chunk.get("timings")
        if isinstance(usage, dict) and usage.get("prompt_tokens") is not None:
            turn.prompt_tokens = int(usage.get("prompt_tokens") or 0)
            turn.completion_tokens = int(usage.get("completion_tokens") or 0)
        elif isinstance(timings, dict) and not turn.prompt_tokens:
            turn.prompt_tokens = int(timings.get("prompt_n") or 0) + int(
                timings.get("cache_n") or 0
            )
            turn.completion_tokens = int(timings.get("predicted_n") or 0)
        if isinstance(timings, dict):
            turn.prompt_seconds = float(timings.get("prompt_ms") or 0) / 1000
            turn.output_seconds = float(timings.get("predicted_ms") or 0) / 1000
        for choice in chunk.get("choices") or []:
            part = choice.get("delta") or choice.get("message") or {}
            turn.text += part.get("content") or ""
            for i, call in enumerate(part.get("tool_calls") or []):
                slot = calls.setdefault(int(call.get("index", i)), ["", ""])
                function = call.get("function") or {}
                slot[0] += function.get("name") or ""
                slot[1] += function.get("arguments") or ""
    turn.calls = [(name, args) for name, args in (calls[k] for k in sorted(calls))]


def _post(upstream: str, path: str, body: bytes) -> dict[str, Any]:
    split = urlsplit(upstream)
    connection = http.client.HTTPConnection(split.hostname or "127.0.0.1", split.port, timeout=120)
    try:
        connection.request("POST", path, body=body, headers={"Content-Type": "application/json"})
        reply = connection.getresponse()
        data = json.loads(reply.read())
    finally:
        connection.close()
    return data if isinstance(data, dict) else {}


def _count_with_server(turn: Turn, upstream: str) -> None:
    try:
        prompt = _post(upstream, "/apply-template", turn.request).get("prompt")
        if not isinstance(prompt, str):
            return
        tokens = _post(upstream, "/tokenize", json.dumps({"content": prompt}).encode())
        written = turn.text + "".join(name + args for name, args in turn.calls)
        out = _post(upstream, "/tokenize", json.dumps({"content": written}).encode())
    except (OSError, ValueError):
        return
    turn.prompt_tokens = len(tokens.get("tokens") or [])
    turn.completion_tokens = len(out.get("tokens") or [])
    turn.counted = "tokenized"
