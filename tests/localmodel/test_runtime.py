"""Which llama-server the built-in model uses: the one named by PYCLINE_LLAMA_SERVER, else the
one built into PYCLINE_HOME, else one on PATH; and the build's pinned, portable flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from pycline.localmodel import catalog, runtime
from tests.localmodel.fakes import fake_server_binary


def test_the_named_then_the_built_then_the_path_server_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    on_path = fake_server_binary(tmp_path / "path-bin")
    monkeypatch.setenv("PATH", str(on_path.parent))
    monkeypatch.delenv(runtime.ENV, raising=False)
    assert runtime.find_server(home) == on_path
    built = fake_server_binary(runtime.built_binary(home).parent)
    assert runtime.find_server(home) == built
    named = fake_server_binary(tmp_path / "named")
    monkeypatch.setenv(runtime.ENV, str(named))
    assert runtime.find_server(home) == named
    monkeypatch.setenv(runtime.ENV, str(tmp_path / "missing"))
    assert runtime.find_server(home) is None  # a wrong name is not silently replaced
    assert runtime.version(named) == "version: 0 (fake)"


def test_the_build_is_portable_and_pinned() -> None:
    flags = set(catalog.CMAKE_FLAGS)
    assert {"-DGGML_NATIVE=OFF", "-DGGML_AVX2=ON", "-DGGML_AVX512=OFF"} <= flags
    assert all(f"-DGGML_AMX_{x}=OFF" in flags for x in ("TILE", "INT8", "BF16"))
    assert len(catalog.RUNTIME_SDIST_SHA256) == 64
