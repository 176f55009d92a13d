"""When the view of history changes, and the view frozen between two changes.

A request's cost is mostly its prefix read from the provider's cache, at about a tenth, plus
whatever changed since the previous request, at full price (a quarter more for an Anthropic cache
write). Leaving out what later messages superseded, or trimming the oldest history, makes every
later request smaller, but the request that first does it pays full price for everything after
the first message it changes. So changes are made in steps: at a step the view is recomputed
from scratch and frozen; until the next one, each request sends the frozen view and the messages
added since, unchanged, and only those are new to the provider.

Where the steps fall is a matter of cost. Keeping L tokens of context costs about 0.1·L on every
request; a step that trims to half of L costs about 0.9·L/2 once, every L/2 tokens of growth, so
every token of history is paid at full price about twice whatever L is, and a smaller L is simply
cheaper. Quality bounds it from below: the model must keep the recent work in view (the
truncation notice carries what it must not lose and asks it to re-read the rest). The default
follows the model: `LIMIT_SHARE` of its context window, between `MIN_LIMIT` and `MAX_LIMIT`
(at 128k tokens, about 19k; at 200k, 30k; a 1M-token window stops at 64k, where a request
already costs as much as a long Cline turn). The `contextLimit` setting changes it, and the
window's budget always caps it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pycline.context.budget import DEFAULT_WINDOW, max_allowed
from pycline.messages import Message

# The default limit: this share of the model's context window, within these bounds (tokens).
LIMIT_SHARE = 0.15
MIN_LIMIT = 8_000
MAX_LIMIT = 64_000
# A step that trims goes down to this share of what the limit leaves after the system prompt.
KEEP = 0.25
# Trimming keeps at least a quarter of what follows the task (two halvings) unless the request
# would not fit the window.
MAX_HALVINGS = 2


@dataclass(frozen=True, slots=True)
class Frozen:
    """The view made at the last step, for the history it was made from."""

    source: list[Message]
    view: list[Message]
    used: int  # tokens of a request right after the step

    def extends(self, history: Sequence[Message]) -> bool:
        """`history` is the step's history with messages added after it (none changed)."""
        n = len(self.source)
        # List equality checks identity first: cheap for the same message objects.
        return len(history) >= n and list(history[:n]) == self.source

    def render(self, history: Sequence[Message]) -> list[Message]:
        return [*self.view, *history[len(self.source) :]]


def default_limit(window: int) -> int:
    """The limit for a model with this context window (0: unknown, taken as `DEFAULT_WINDOW`)."""
    window = window if window > 0 else DEFAULT_WINDOW
    return max(MIN_LIMIT, min(MAX_LIMIT, int(window * LIMIT_SHARE)))


def step_limit(window: int, setting: int | None) -> int:
    """The size at which a step trims history: the setting or the default, within the budget."""
    return min(setting or default_limit(window), max_allowed(window))


def step_target(limit: int, fixed: int) -> int:
    """What a trimming step goes down to: the system prompt and KEEP of the rest of the limit."""
    return fixed + int(max(limit - fixed, 0) * KEEP)


def next_step_at(frozen: Frozen, limit: int, budget: int) -> int:
    """Tokens at which the next step comes: at the limit, but not before the context grew by
    half the limit since the last step (so one step's price is spread over many requests), and
    always before the budget is passed."""
    return min(budget, max(limit, frozen.used + limit // 2))
