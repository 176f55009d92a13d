"""Ask a server about a model the catalogue does not know: its context window, output limit,
prices and capabilities.

Ollama answers `POST /api/show`; LM Studio `GET /api/v0/models/{id}`; OpenRouter, Together, vLLM
and llama.cpp list their models with such facts at `GET {base}/models`. Each question has a short
timeout and any failure (no server, an unexpected answer) just means "unknown": the caller falls
back to conservative defaults. Answers are cached for the process.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, Final

from pycline.providers.presets import ProbeKind

PROBE_TIMEOUT: Final = 2.0
# Field names (of `ModelInfo`) a probe may fill.
Facts = dict[str, Any]

_cache: dict[tuple[str, str, str], Facts] = {}
_lock = threading.Lock()


def probe(
    kind: ProbeKind,
    base_url: str,
    model_id: str,
    *,
    api_key: str | None = None,
    timeout: float = PROBE_TIMEOUT,
) -> Facts:
    """What the server says about `model_id`, as `ModelInfo` field values; {} when it cannot tell."""
    if kind == "none" or not model_id:
        return {}
    key = (kind, base_url.rstrip("/"), model_id)
    with _lock:
        if key in _cache:
            return dict(_cache[key])
    facts = _ask(kind, base_url.rstrip("/"), model_id, api_key, timeout)
    with _lock:
        _cache[key] = facts
    return dict(facts)


def clear_cache() -> None:
    with _lock:
        _cache.clear()


def _ask(kind: ProbeKind, base: str, model_id: str, api_key: str | None, timeout: float) -> Facts:
    import httpx2

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        with httpx2.Client(timeout=timeout, headers=headers) as client:
            if kind == "ollama":
                response = client.post(f"{_origin(base)}/api/show", json={"model": model_id})
            elif kind == "lmstudio":
                response = client.get(f"{_origin(base)}/api/v0/models/{model_id}")
            else:
                response = client.get(f"{base}/models")
            if response.status_code != 200:
                return {}
            data = response.json()
    except (httpx2.HTTPError, ValueError):
        return {}  # unreachable, timed out, or not JSON: the server cannot tell us
    if not isinstance(data, dict):
        return {}
    if kind == "ollama":
        return _from_ollama(data)
    if kind == "lmstudio":
        return _from_lmstudio(data)
    return _from_models_list(data, model_id)


def _origin(base: str) -> str:
    """http://host:port/v1 → http://host:port (the native APIs live beside the OpenAI one)."""
    return base[: -len("/v1")] if base.endswith("/v1") else base


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and value > 0:
        return value
    if isinstance(value, float) and value > 0 and value.is_integer():
        return int(value)
    return None


def _price(value: object, *, per_token: bool) -> float | None:
    try:
        number = float(value) if isinstance(value, int | float | str) else None
    except ValueError:
        return None
    if number is None or number < 0:
        return None
    return number * 1_000_000 if per_token else number


def _from_ollama(data: Mapping[str, Any]) -> Facts:
    facts: Facts = {}
    info = data.get("model_info")
    if isinstance(info, dict):
        # The key is named after the architecture: "llama.context_length", "qwen2.context_length".
        for name, value in info.items():
            if name.endswith(".context_length") and _int(value):
                facts["context_window"] = _int(value)
                break
    capabilities = data.get("capabilities")
    if isinstance(capabilities, list):
        facts["supports_images"] = "vision" in capabilities
        facts["supports_reasoning"] = "thinking" in capabilities
    return facts


def _from_lmstudio(data: Mapping[str, Any]) -> Facts:
    facts: Facts = {}
    # The length the model is loaded with is what the server will accept.
    window = _int(data.get("loaded_context_length")) or _int(data.get("max_context_length"))
    if window:
        facts["context_window"] = window
    if data.get("type") == "vlm":
        facts["supports_images"] = True
    return facts


def _from_models_list(data: Mapping[str, Any], model_id: str) -> Facts:
    entries = data.get("data")
    if not isinstance(entries, list):
        return {}
    entry = next(
        (e for e in entries if isinstance(e, dict) and e.get("id") == model_id),
        None,
    )
    if entry is None:
        return {}
    facts: Facts = {}
    top = _dict(entry.get("top_provider"))
    meta = _dict(entry.get("meta"))
    window = (
        _int(entry.get("context_length"))  # OpenRouter, Together
        or _int(entry.get("max_model_len"))  # vLLM
        or _int(top.get("context_length"))
        or _int(meta.get("n_ctx_train"))  # llama.cpp
    )
    if window:
        facts["context_window"] = window
    max_out = _int(top.get("max_completion_tokens"))
    if max_out:
        facts["max_output_tokens"] = max_out
    facts.update(_pricing(entry.get("pricing")))
    architecture = entry.get("architecture")
    if isinstance(architecture, dict) and isinstance(architecture.get("input_modalities"), list):
        facts["supports_images"] = "image" in architecture["input_modalities"]
    parameters = entry.get("supported_parameters")
    if isinstance(parameters, list):
        facts["supports_reasoning"] = "reasoning" in parameters
    return facts


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _pricing(raw: object) -> Facts:
    """OpenRouter: USD per token as strings (prompt, completion, input_cache_*); Together: USD per
    million tokens as numbers (input, output)."""
    if not isinstance(raw, dict):
        return {}
    per_token = "prompt" in raw or "completion" in raw
    names = (
        (
            ("prompt", "input_price"),
            ("completion", "output_price"),
            ("input_cache_write", "cache_write_price"),
            ("input_cache_read", "cache_read_price"),
        )
        if per_token
        else (
            ("input", "input_price"),
            ("output", "output_price"),
            ("cached_input", "cache_read_price"),
        )
    )
    facts: Facts = {}
    for wire, field in names:
        price = _price(raw.get(wire), per_token=per_token) if wire in raw else None
        if price is not None:
            facts[field] = price
    if facts.get("cache_read_price") or facts.get("cache_write_price"):
        facts["supports_prompt_cache"] = True
    return facts
