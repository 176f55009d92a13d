"""When a failed model request is tried again on its own, and after how long (SPEC §4)."""

from __future__ import annotations

from dataclasses import dataclass

from pycline.errors import ProviderError, ProviderErrorKind


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Transient failures are retried with exponential back-off (or the server's retry-after);
    after `max_retries` the user decides."""

    max_retries: int = 3
    base_delay: float = 1.0

    def delay(self, error: ProviderError, attempt: int) -> float | None:
        """Seconds to wait before retry `attempt + 1`; None when it is not retried automatically."""
        if not error.retryable or attempt >= self.max_retries:
            return None
        return error.retry_after or self.base_delay * (2**attempt)


def one_line(error: ProviderError) -> str:
    """The error as the user sees it: one line, saying plainly when the reply was cut off."""
    text = " ".join(str(error).split())
    if error.kind is ProviderErrorKind.CUT_OFF and "cut" not in text.lower():
        text = f"The model's reply was cut off: {text}"
    return text
