"""What pycline asks a provider's server before using it (`pycline setup`, `pycline doctor`, the
web UI's Settings and model picker): which models it offers, whether a key is accepted, how long
a model's context is.

Each question is one cheap GET (no tokens are spent) with a short timeout. Failures come back as
typed results the wizard turns into a clear question to the user, never as exceptions.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Final, Literal

from pycline.providers import model_probe, presets

CHECK_TIMEOUT: Final = 10.0


@dataclass(frozen=True, slots=True)
class Reply:
    """The outcome of one question to a server."""

    status: Literal["ok", "rejected", "unreachable", "error"]
    reason: str = ""
    models: tuple[str, ...] = ()


async def _get(url: str, headers: dict[str, str]) -> Reply:
    import httpx2

    try:
        async with httpx2.AsyncClient(timeout=CHECK_TIMEOUT, headers=headers) as client:
            response = await client.get(url)
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


def _models_request(
    provider: str, base_url: str | None, api_key: str | None
) -> tuple[str, dict[str, str]] | None:
    """Where `provider` lists its models, and the headers that carry the key (None: no
    address is known)."""
    if provider == "anthropic":
        from pycline.providers.anthropic_provider import DEFAULT_BASE_URL

        url = (base_url or DEFAULT_BASE_URL).rstrip("/").removesuffix("/v1")
        headers = {"anthropic-version": "2023-06-01", **({"x-api-key": api_key} if api_key else {})}
        return f"{url}/v1/models", headers
    if provider == "gemini":
        from pycline.providers.gemini_provider import GEMINI_BASE_URL

        url = (base_url or GEMINI_BASE_URL).rstrip("/")
        return f"{url}/v1beta/models", ({"x-goog-api-key": api_key} if api_key else {})
    found = presets.preset(provider)
    base = base_url or (found.base_url if found is not None else None)
    if not base or not base.startswith(("http://", "https://")):
        return None
    return f"{base.rstrip('/')}/models", ({"Authorization": f"Bearer {api_key}"} if api_key else {})


async def list_models(
    provider: str, base_url: str | None = None, api_key: str | None = None
) -> Reply:
    """The models `provider`'s server offers (its own address, or `base_url`); a key that is
    refused comes back as "rejected", so this also checks a key (listing is free everywhere)."""
    request = _models_request(provider, base_url, api_key)
    if request is None:
        return Reply("error", f"no server address to check for {provider or 'this provider'}")
    return await _get(*request)


def list_models_now(
    provider: str, base_url: str | None = None, api_key: str | None = None
) -> Reply:
    """`list_models` for code that is not async (the setup wizard, the doctor's thread)."""
    return asyncio.run(list_models(provider, base_url, api_key))


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
