"""Local model servers already running on this machine's loopback, and the models they list.

Each is asked on its default port (llama.cpp 8080, Ollama 11434, LM Studio 1234, vLLM 8000)
for `/v1/models`, all at once with a short timeout, so nothing slow is waited for.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Candidate:
    provider: str  # the pycline provider that talks to it
    label: str
    port: int


@dataclass(frozen=True, slots=True)
class Found:
    provider: str
    label: str
    base_url: str
    models: tuple[str, ...]


DEFAULTS: tuple[Candidate, ...] = (
    Candidate("llamacpp", "llama.cpp server", 8080),
    Candidate("ollama", "Ollama", 11434),
    Candidate("lmstudio", "LM Studio", 1234),
    Candidate("vllm", "vLLM", 8000),
)


def _models(base_url: str, timeout: float) -> tuple[str, ...] | None:
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=timeout) as reply:
            data = json.loads(reply.read())
    except (OSError, ValueError, urllib.error.HTTPError):
        return None
    rows = data.get("data") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        return None
    return tuple(str(r["id"]) for r in rows if isinstance(r, dict) and "id" in r)


def discover(
    candidates: tuple[Candidate, ...] | None = None, host: str = "127.0.0.1", timeout: float = 1.0
) -> list[Found]:
    """The candidates (DEFAULTS) that answer like an OpenAI-compatible server, in order."""
    candidates = DEFAULTS if candidates is None else candidates
    if not candidates:
        return []

    def probe(c: Candidate) -> Found | None:
        base_url = f"http://{host}:{c.port}/v1"
        models = _models(base_url, timeout)
        return None if models is None else Found(c.provider, c.label, base_url, models)

    with ThreadPoolExecutor(max_workers=len(candidates)) as pool:
        found = list(pool.map(probe, candidates))
    return [f for f in found if f is not None]
