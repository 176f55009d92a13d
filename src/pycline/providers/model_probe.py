"""Ask a server about a model the catalogue does not know: its context window, output limit,
prices and capabilities.

Ollama answers `POST /api/show`; LM Studio `GET /api/v0/models/{id}`; OpenRouter, Together, vLLM
and llama.cpp list their models with such facts at `GET {base}/models`. A local server's window is
the one it loaded the model with (llama.cpp's `n_ctx`, Ollama's `num_ctx`, LM Studio's loaded
length, vLLM's `max_model_len`), not the length the model was trained for: a longer prompt would be
cut or refused. Each question has a short timeout and any failure (no server, an unexpected answer)
just means "unknown": the caller falls back to conservative defaults. Answers are cached for the
process, so a session asks once.
"""

from __future__ import annotations

import re
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
            if not isinstance(data, dict):
                return {}
            if kind == "ollama":
                return _from_ollama(data)
            if kind == "lmstudio":
                return _from_lmstudio(data)
            facts = _from_models_list(data, model_id)
            if facts.pop(_ASK_PROPS, False):
                # An older llama.cpp lists only the trained length; /props has the loaded one.
                props = client.get(f"{_origin(base)}/props")
                loaded = _llamacpp_props_window(props.json()) if props.status_code == 200 else None
                if loaded:
                    facts["context_window"] = loaded
            return facts
    except (httpx2.HTTPError, ValueError):
        return {}  # unreachable, timed out, or not JSON: the server cannot tell us


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


_ASK_PROPS: Final = "_ask_props"  # internal marker: a llama.cpp listing without its loaded n_ctx
_SIZE_IN_NAME: Final = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*([bm])(?![a-z])", re.IGNORECASE)


def parameters_from_name(model_id: str) -> int:
    """`qwen2.5-coder:1.5b`, `Qwen2.5-Coder-7B-Instruct`, `smollm-360m` → parameters; 0: unknown.
    A mixture of experts (`30b-a3b`) counts by its total size, the first size in the name."""
    found = _SIZE_IN_NAME.search(model_id.replace("_", "-"))
    if found is None:
        return 0
    scale = 1e9 if found.group(2).lower() == "b" else 1e6
    return int(float(found.group(1)) * scale)


def _from_ollama(data: Mapping[str, Any]) -> Facts:
    facts: Facts = {}
    info = data.get("model_info")
    if isinstance(info, dict):
        # The key is named after the architecture: "llama.context_length", "qwen2.context_length".
        for name, value in info.items():
            if name.endswith(".context_length") and _int(value):
                facts["context_window"] = _int(value)
                break
        if _int(info.get("general.parameter_count")):
            facts["parameter_count"] = _int(info.get("general.parameter_count"))
    # A Modelfile's `PARAMETER num_ctx 8192` is the window the model is run with.
    parameters = data.get("parameters")
    if isinstance(parameters, str):
        for line in parameters.splitlines():
            name, _, value = line.strip().partition(" ")
            if name == "num_ctx" and value.strip().isdigit() and int(value.strip()) > 0:
                facts["context_window"] = int(value.strip())
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
    listed = [e for e in entries if isinstance(e, dict)]
    entry = next((e for e in listed if e.get("id") == model_id), None)
    if entry is None and len(listed) == 1 and listed[0].get("owned_by") == "llamacpp":
        entry = listed[0]  # llama-server serves its one model under any name
    if entry is None:
        return {}
    facts: Facts = {}
    top = _dict(entry.get("top_provider"))
    meta = _dict(entry.get("meta"))
    window = (
        _int(entry.get("context_length"))  # OpenRouter, Together
        or _int(entry.get("max_model_len"))  # vLLM
        or _int(top.get("context_length"))
        or _int(meta.get("n_ctx"))  # llama.cpp: the window it loaded the model with
    )
    if not window and _int(meta.get("n_ctx_train")):
        window = _int(meta.get("n_ctx_train"))  # what the model was trained for: an upper bound
        facts[_ASK_PROPS] = entry.get("owned_by") == "llamacpp"
    if window:
        facts["context_window"] = window
    if _int(meta.get("n_params")):
        facts["parameter_count"] = _int(meta.get("n_params"))
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


def _llamacpp_props_window(data: object) -> int | None:
    """llama.cpp's `GET /props`: `default_generation_settings.n_ctx` (older builds: `n_ctx`)."""
    if not isinstance(data, dict):
        return None
    settings = _dict(data.get("default_generation_settings"))
    return _int(settings.get("n_ctx")) or _int(data.get("n_ctx"))


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
