"""What `pycline setup` asks a provider before saving anything: which models a server offers, how
long their context is, and whether a key is accepted.

Each question is one cheap GET (no tokens are spent) with a short timeout. Failures come back as
typed results the wizard turns into a clear question to the user, never as exceptions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

from pycline.providers import model_probe, presets

CHECK_TIMEOUT: Final = 5.0
ANTHROPIC_URL: Final = "https://api.anthropic.com"
GEMINI_URL: Final = "https://generativelanguage.googleapis.com/v1beta"


@dataclass(frozen=True, slots=True)
class Reply:
    """The outcome of one question to a server."""

    status: Literal["ok", "rejected", "unreachable", "error"]
    reason: str = ""
    models: tuple[str, ...] = ()


def _get(url: str, headers: dict[str, str]) -> Reply:
    import httpx2

    try:
        with httpx2.Client(timeout=CHECK_TIMEOUT, headers=headers) as client:
            response = client.get(url)
    except httpx2.HTTPError as exc:
        return Reply("unreachable", f"{type(exc).__name__}: {exc}" if str(exc) else repr(exc))
    if response.status_code in (401, 403):
        return Reply("rejected", f"HTTP {response.status_code}: {_message(response)}")
    if response.status_code != 200:
        return Reply("error", f"HTTP {response.status_code}: {_message(response)}")
    try:
        data: Any = response.json()
    except ValueError:
        return Reply("error", "the answer was not JSON (is this the API's base URL?)")
    return Reply("ok", models=_model_ids(data))


def _message(response: Any) -> str:
    """The error text a server gave, kept short; never the request (which carries the key)."""
    try:
        data = response.json()
    except ValueError:
        return str(response.reason_phrase or "no details")
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])[:200]
    if isinstance(error, str):
        return error[:200]
    return str(response.reason_phrase or "no details")


def _model_ids(data: Any) -> tuple[str, ...]:
    # OpenAI-compatible servers: {"data": [{"id"}]}; Gemini: {"models": [{"name": "models/x"}]}.
    entries = data.get("data") or data.get("models") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return ()
    ids: list[str] = []
    for entry in entries:
        if isinstance(entry, dict):
            name = entry.get("id") or entry.get("name")
            if isinstance(name, str) and name:
                ids.append(name.removeprefix("models/"))
    return tuple(ids)


def list_models(base_url: str, api_key: str | None = None) -> Reply:
    """`GET {base}/models` of an OpenAI-compatible server (Ollama, LM Studio, vLLM, llama.cpp)."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    return _get(f"{base_url.rstrip('/')}/models", headers)


def check_key(provider: str, api_key: str, base_url: str | None = None) -> Reply:
    """Whether the provider accepts the key, by listing its models (free on every provider)."""
    if provider == "anthropic":
        url = (base_url or ANTHROPIC_URL).rstrip("/")
        headers = {"x-api-key": api_key, "anthropic-version": "2023-06-01"}
        return _get(f"{url}/v1/models", headers)
    if provider == "gemini":
        return _get(f"{GEMINI_URL}/models", {"x-goog-api-key": api_key})
    found = presets.preset(provider)
    url = base_url or (found.base_url if found is not None else presets.OPENAI.base_url)
    return list_models(url, api_key)


def context_window(
    provider: str, base_url: str, model: str, api_key: str | None = None
) -> int | None:
    """The context length the server runs `model` with, when it says; None when it cannot tell.

    llama.cpp reports it at `/props`; Ollama at `/api/show`, LM Studio at `/api/v0/models`, vLLM
    as `max_model_len` in its model list (see `model_probe`). A server of unknown kind is asked in
    the OpenAI-compatible and llama.cpp ways.
    """
    found = presets.preset(provider)
    kind: presets.ProbeKind = found.probe if found is not None else "models_list"
    if provider == "openai" and base_url.rstrip("/") != presets.OPENAI.base_url:
        kind = "models_list"
    if provider != "llamacpp" and kind != "none":
        facts = model_probe.probe(kind, base_url, model, api_key=api_key)
        window = facts.get("context_window")
        if isinstance(window, int):
            return window
    if provider in ("llamacpp", "openai"):
        return _llamacpp_props(base_url, api_key)
    return None


def _llamacpp_props(base_url: str, api_key: str | None) -> int | None:
    import httpx2

    origin = base_url.rstrip("/").removesuffix("/v1")
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        with httpx2.Client(timeout=CHECK_TIMEOUT, headers=headers) as client:
            response = client.get(f"{origin}/props")
        data = response.json() if response.status_code == 200 else None
    except (httpx2.HTTPError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    settings = data.get("default_generation_settings")
    for value in (
        settings.get("n_ctx") if isinstance(settings, dict) else None,
        data.get("n_ctx"),
    ):
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None
