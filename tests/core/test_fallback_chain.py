"""The fallback chain moves forward through the models the user listed, and only those."""

from __future__ import annotations

from pycline.core.fallback import FallbackChain
from pycline.errors import ConfigError, ProviderError, ProviderErrorKind
from pycline.providers.base import ModelInfo, Provider
from pycline.providers.scripted import ScriptedProvider

WINDOWS = {"small": 8_000, "big": 200_000, "other": 8_000}


def _make(spec: str) -> Provider:
    if spec == "broken":
        raise ConfigError("no key for broken")
    return ScriptedProvider([], model_info=ModelInfo(id=spec, context_window=WINDOWS[spec]))


def _error(kind: ProviderErrorKind) -> ProviderError:
    return ProviderError(kind, "failed")


def test_a_rate_limit_moves_to_the_next_model_and_skips_one_that_cannot_be_set_up() -> None:
    chain = FallbackChain(("broken", "other", "big"), _make)
    current = _make("small")
    moved = chain.next_for(_error(ProviderErrorKind.RATE_LIMIT), current)
    assert moved is not None and moved.spec == "other"
    assert moved.skipped == ("broken (no key for broken)",)
    moved = chain.next_for(_error(ProviderErrorKind.SERVER), moved.provider)
    assert moved is not None and moved.spec == "big"
    assert chain.next_for(_error(ProviderErrorKind.SERVER), moved.provider) is None


def test_an_overflow_moves_only_to_a_larger_window_and_keeps_the_rest() -> None:
    chain = FallbackChain(("other", "big"), _make)
    current = _make("small")
    moved = chain.next_for(_error(ProviderErrorKind.CONTEXT_OVERFLOW), current)
    assert moved is not None and moved.spec == "big"
    none_larger = FallbackChain(("other",), _make)
    assert none_larger.next_for(_error(ProviderErrorKind.CONTEXT_OVERFLOW), current) is None
    # The smaller model is still there for a rate limit.
    again = none_larger.next_for(_error(ProviderErrorKind.RATE_LIMIT), current)
    assert again is not None and again.spec == "other"


def test_other_failures_and_an_empty_chain_never_move() -> None:
    current = _make("small")
    assert FallbackChain(("big",), _make).next_for(_error(ProviderErrorKind.AUTH), current) is None
    assert FallbackChain().next_for(_error(ProviderErrorKind.RATE_LIMIT), current) is None
