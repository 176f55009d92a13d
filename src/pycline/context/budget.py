"""How many tokens a request may use before history must shrink (SPEC §8).

The reserve leaves room for the reply and for the next tool result, which is not yet counted
when the decision is made.
"""

from __future__ import annotations

DEFAULT_WINDOW = 128_000  # what a model without a known window is assumed to have

_RESERVE_BY_WINDOW = {64_000: 27_000, 128_000: 30_000, 200_000: 40_000}


def max_allowed(window: int) -> int:
    """The budget for one request's total tokens (input, output and cache reads/writes)."""
    if window <= 0:
        window = DEFAULT_WINDOW
    reserve = _RESERVE_BY_WINDOW.get(window)
    if reserve is not None:
        return window - reserve
    return max(window - 40_000, int(window * 0.8))


def should_compact(tokens_used: int, window: int, threshold_pct: float | None) -> bool:
    """True when auto-condense should run.

    `threshold_pct` is a fraction of the window (0.75 = at 75%); None or 0 means "at the budget".
    The threshold never exceeds the budget, so a high percentage cannot let history overflow.
    """
    if tokens_used <= 0:
        return False
    if window <= 0:
        window = DEFAULT_WINDOW
    budget = max_allowed(window)
    threshold = int(window * threshold_pct) if threshold_pct else budget
    return tokens_used >= min(threshold, budget)
