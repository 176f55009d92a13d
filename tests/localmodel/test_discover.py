"""Local model servers already running on loopback are found, with their models; a port where
nothing listens, or where something that is no model server answers, is not listed."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from threading import Thread

from pycline.localmodel.discover import Candidate, discover
from pycline.localmodel.server import free_port
from tests.fakes.openai_server import FakeOpenAI


class _NotAModelServer(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return None

    def do_GET(self) -> None:
        raw = b"<html>hello</html>"
        self.send_response(200)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


def test_running_servers_are_listed_with_their_models_and_others_are_not() -> None:
    web = ThreadingHTTPServer(("127.0.0.1", 0), _NotAModelServer)
    Thread(target=web.serve_forever, daemon=True).start()
    try:
        with FakeOpenAI(models=("qwen2.5-coder:1.5b", "llama3.2")) as ollama, FakeOpenAI(
            models=("local-model",)
        ) as lmstudio:  # fmt: skip
            candidates = (
                Candidate("llamacpp", "llama.cpp server", free_port()),  # nothing listens
                Candidate("ollama", "Ollama", int(ollama.origin.rsplit(":", 1)[1])),
                Candidate("lmstudio", "LM Studio", int(lmstudio.origin.rsplit(":", 1)[1])),
                Candidate("vllm", "vLLM", web.server_address[1]),  # a web page, not a model
            )
            found = discover(candidates, timeout=10)
            ollama_url = ollama.base_url
    finally:
        web.shutdown()
        web.server_close()
    assert [(f.provider, f.models) for f in found] == [
        ("ollama", ("qwen2.5-coder:1.5b", "llama3.2")),
        ("lmstudio", ("local-model",)),
    ]
    assert found[0].base_url == ollama_url
