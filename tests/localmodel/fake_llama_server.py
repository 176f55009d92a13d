"""A stand-in llama-server: parses the same flags, answers /health (503 for a moment while it
"loads", then 200), /v1/models, /props and one-word chat completions; --fail-start exits."""

from __future__ import annotations

import argparse
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

if "--version" in sys.argv:
    print("version: 0 (fake)")
    sys.exit(0)
p = argparse.ArgumentParser()
p.add_argument("--model", required=True)
p.add_argument("--host", required=True)
p.add_argument("--port", type=int, required=True)
p.add_argument("--ctx-size", type=int, required=True)
p.add_argument("--jinja", action="store_true")
p.add_argument("--alias", default="model")
p.add_argument("--parallel", type=int, default=1)
ns, _ = p.parse_known_args()
with open(ns.model, "rb") as model:
    magic = model.read(4)
if magic != b"GGUF":
    print("error: not a GGUF model", flush=True)
    sys.exit(1)
started = time.monotonic()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return None

    def _json(self, status: int, data: object) -> None:
        raw = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:
        if self.path == "/health":
            loading = time.monotonic() - started < 0.3
            self._json(503 if loading else 200, {"status": "loading" if loading else "ok"})
        elif self.path == "/v1/models":
            self._json(200, {"object": "list", "data": [{"id": ns.alias, "object": "model"}]})
        elif self.path == "/props":
            self._json(200, {"default_generation_settings": {"n_ctx": ns.ctx_size},
                             "jinja": ns.jinja, "build_info": "fake"})  # fmt: skip
        else:
            self._json(404, {"error": "no route"})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        text = f"ctx={ns.ctx_size} jinja={ns.jinja}"
        chunks = [
            {"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 2,
                                      "total_tokens": 5}},
        ]  # fmt: skip
        raw = b"".join(
            b"data: " + json.dumps({"id": "x", "object": "chat.completion.chunk", "model": ns.alias,
                                    **c}).encode() + b"\n\n"
            for c in chunks
        ) + b"data: [DONE]\n\n"  # fmt: skip
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


ThreadingHTTPServer((ns.host, ns.port), Handler).serve_forever()
