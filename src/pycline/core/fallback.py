"""The fallback chain: the models a task moves to when its model cannot answer.

`fallbackModels` in the settings (or a profile) lists them in order, each as `[PROVIDER/]MODEL`
(as `/model` takes it) or a saved profile's label. After the automatic retries of a rate limit,
an overload or a server error, the task moves to the next model of the list; when the context
window overflowed, to the next one whose window is larger. The chain only ever moves forward and
only to a model the user listed; a model that cannot be set up (an unknown provider, a missing
key) is skipped with a notice, never replaced by one of pycline's choosing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pycline.errors import ProviderError, ProviderErrorKind, PyclineError
from pycline.providers.base import Provider

# What moves a task on to the next model, once retrying the same one is over.
UNAVAILABLE = frozenset({ProviderErrorKind.RATE_LIMIT, ProviderErrorKind.SERVER})


@dataclass(frozen=True, slots=True)
class Moved:
    """The chain's next model, and why the task moves to it."""

    spec: str
    provider: Provider
    skipped: tuple[str, ...] = ()  # listed models that could not be set up, with why


@dataclass
class FallbackChain:
    """`specs` in the user's order; `make` sets one up (PyclineError when it cannot be)."""

    specs: Sequence[str] = ()
    make: Callable[[str], Provider] | None = None
    position: int = 0

    def takes(self, error: ProviderError) -> bool:
        """Whether this failure is one the chain answers (a model is left to move to)."""
        wanted = error.kind in UNAVAILABLE or error.kind is ProviderErrorKind.CONTEXT_OVERFLOW
        return wanted and self.make is not None and self.position < len(self.specs)

    def next_for(self, error: ProviderError, current: Provider) -> Moved | None:
        """The next listed model that can take over after `error`; None when none is left."""
        if not self.takes(error):
            return None
        assert self.make is not None
        skipped: list[str] = []
        overflow = error.kind is ProviderErrorKind.CONTEXT_OVERFLOW
        for index in range(self.position, len(self.specs)):
            spec = self.specs[index]
            try:
                provider = self.make(spec)
            except PyclineError as exc:
                skipped.append(f"{spec} ({exc})")
                continue
            if overflow and provider.model.context_window <= current.model.context_window:
                continue  # it could not hold this conversation either; kept for other failures
            self.position = index + 1
            return Moved(spec, provider, tuple(skipped))
        if not overflow:
            self.position = len(self.specs)
        return None
