"""A local OTLP/HTTP receiver on loopback: what an operator's collector would be sent.

    with OtlpReceiver() as otlp:
        env = {"OTEL_EXPORTER_OTLP_ENDPOINT": otlp.endpoint}
        ...
        otlp.spans()  # every span received, decoded from protobuf

It answers `/v1/traces` and `/v1/metrics` as a collector does (200 with an empty export
response) and keeps every request's raw body, so a test can also look for text that must never
be sent.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self


@dataclass(frozen=True)
class Span:
    name: str
    span_id: bytes
    parent_span_id: bytes
    trace_id: bytes
    attributes: dict[str, Any]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length)
        self.server.owner.received(self.path, body)
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: OtlpReceiver


class OtlpReceiver:
    def __init__(self) -> None:
        self.bodies: list[tuple[str, bytes]] = []
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def endpoint(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def received(self, path: str, body: bytes) -> None:
        with self._lock:
            self.bodies.append((path, body))

    def raw(self) -> bytes:
        with self._lock:
            return b"".join(body for _, body in self.bodies)

    def spans(self) -> list[Span]:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )

        found = []
        with self._lock:
            bodies = [b for path, b in self.bodies if path == "/v1/traces"]
        for body in bodies:
            request = ExportTraceServiceRequest.FromString(body)
            for resource in request.resource_spans:
                for scope in resource.scope_spans:
                    for span in scope.spans:
                        attributes = {a.key: _value(a.value) for a in span.attributes}
                        found.append(
                            Span(span.name, span.span_id, span.parent_span_id, span.trace_id,
                                 attributes)
                        )  # fmt: skip
        return found

    def metric_names(self) -> set[str]:
        from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
            ExportMetricsServiceRequest,
        )

        names = set()
        with self._lock:
            bodies = [b for path, b in self.bodies if path == "/v1/metrics"]
        for body in bodies:
            request = ExportMetricsServiceRequest.FromString(body)
            for resource in request.resource_metrics:
                for scope in resource.scope_metrics:
                    names.update(metric.name for metric in scope.metrics)
        return names

    def __enter__(self) -> Self:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.owner = self
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)


def _value(value: Any) -> Any:
    kind = value.WhichOneof("value")
    return getattr(value, kind) if kind else None
