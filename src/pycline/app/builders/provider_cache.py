"""The providers of one session: one per model configuration, shared by its tasks (and their
sub-agents) and closed with the session, so their connections are reused and released."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable

from pycline.app.builders import wiring
from pycline.app.settings.config import ModelConfig
from pycline.providers.base import Provider

_Key = tuple[str | int | None, ...]


def _key(config: ModelConfig) -> _Key:
    info = json.dumps(config.model_info, sort_keys=True) if config.model_info else None
    return (
        config.provider,
        config.model,
        config.base_url,
        config.api_key,
        config.reasoning_effort,
        config.thinking_budget,
        info,
    )


class ProviderCache:
    def __init__(self, build: Callable[[ModelConfig], Provider] = wiring.build_provider) -> None:
        self._build = build
        self._providers: dict[_Key, Provider] = {}

    def get(self, config: ModelConfig) -> Provider:
        """The provider for `config`, built on first use (`ConfigError` when it cannot be).

        A scripted provider is built anew each time: it replays its script from the start for
        every task, as a test expects."""
        if config.provider == "scripted":
            return self._build(config)
        key = _key(config)
        found = self._providers.get(key)
        if found is None:
            found = self._providers[key] = self._build(config)
        return found

    async def close(self) -> None:
        providers, self._providers = list(self._providers.values()), {}
        for provider in providers:
            close = getattr(provider, "aclose", None)
            if close is not None:
                # A connection already gone, or a client of a loop that has ended: closed.
                with contextlib.suppress(OSError, RuntimeError):
                    await close()
