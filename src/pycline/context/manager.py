"""The context window policy the task loop calls before each request (SPEC §8).

History on disk stays complete; what is sent is a view of it: the deleted range left out, earlier
copies of files replaced by a note, and a notice where history was cut. That state is small and is
saved to `context_history.json` so a resumed task sends the same view. On top of it, what later
messages superseded is left out (`lighten`, kept up to date as history grows by `LightView`).

Providers bill a repeated prompt prefix at about a tenth (OpenAI caches it on its own, Anthropic up
to our breakpoints), so what was sent once must be sent again byte for byte: any change to an
old message makes every message after it full price again. The view therefore changes only in
deliberate steps (`steps.py`): between two steps a request is the previous one plus the messages
added since, untouched; at a step the savings and the truncation are applied all at once, and the
result is frozen until the next step. A step comes when the context reaches its limit (a setting,
`contextLimit`; by default a size chosen for cost, see `steps.py`), and not before it has grown by
half the limit since the last one, so each step's one-off price is spread over many requests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from pycline.context import carry
from pycline.context.budget import max_allowed, should_compact
from pycline.context.dedupe import ReadEdit, apply_edits, find_duplicate_reads
from pycline.context.incremental import LightView
from pycline.context.steps import MAX_HALVINGS, Frozen, next_step_at, step_limit, step_target
from pycline.context.tokens import estimate_messages, estimate_text
from pycline.context.truncation import PAIR_SAFE_HEAD, Keep, Range, next_truncation_range
from pycline.messages import Message, TextContent

Action: TypeAlias = Literal["none", "truncate", "condense"]

# The notice's first line, for recognising it; the whole notice says what the gap held
# (`carry.notice`).
TRUNCATION_NOTICE = carry.HEADING
# Characters the notice may carry over from the gap, per token of the step limit: about a sixth
# of the limit, in tokens (the user's words, the last error, files, command tails).
CARRY_CHARS_PER_LIMIT_TOKEN = 0.6
STATE_VERSION = 1


@dataclass(frozen=True, slots=True)
class Prepared:
    messages: list[Message]  # what to send
    action: Action
    notice: str | None  # set while part of history is left out
    changed: bool  # the state changed: save `to_json()` to context_history.json
    tokens: int  # the request's expected total tokens, as far as we can tell
    stepped: bool = False  # the view was recomputed: the provider's cached prefix ends earlier


class ContextManager:
    def __init__(
        self, *, deleted_range: Range | None = None, edits: Sequence[ReadEdit] = ()
    ) -> None:
        self.deleted_range = deleted_range
        self.edits: tuple[ReadEdit, ...] = tuple(edits)
        self._view = LightView()  # `lighten` of what is sent, updated as history grows
        self._frozen: Frozen | None = None  # the view at the last step
        self._usage_stale = False  # the last reported usage describes a replaced history
        self._carry_chars = int(step_limit(0, None) * CARRY_CHARS_PER_LIMIT_TOKEN)

    # --- the decisions ------------------------------------------------------------------------

    def prepare(
        self,
        history: Sequence[Message],
        *,
        window: int,
        last_total_tokens: int | None,
        auto_condense: float | None = None,
        system: str = "",
        context_limit: int | None = None,
    ) -> Prepared:
        """The messages for the next request: the previous request's plus what was added since,
        or, at a step, the whole view lightened and, past the limit, trimmed (module docstring).

        `last_total_tokens` is the previous request's reported total (input + output + cache);
        None when the provider gave no usage. It is not what steps are decided on: that is our
        own count of the request (a reported figure describes the request before a step). `auto_condense` enables condensing at that fraction
        of the window (0 = at the budget) or at the limit, whichever comes first; None disables
        it. `context_limit` (tokens) is where a step trims history; None: the default
        (`steps.step_limit`).
        """
        changed = self._validate(history)
        budget = max_allowed(window)
        limit = step_limit(window, context_limit)
        self._carry_chars = int(limit * CARRY_CHARS_PER_LIMIT_TOKEN)
        used = self._tokens_used(history, system)
        action: Action = "none"
        # With condensing on, the summary replaces history at the limit at the latest (the cost
        # point), not only near the window's end, which the limit never lets history reach.
        # Condensing (Cline's threshold) also heeds the provider's own count; trimming does not.
        reported = 0 if self._usage_stale or last_total_tokens is None else last_total_tokens
        self._usage_stale = False
        sized = max(used, reported)
        condense = auto_condense is not None and (
            should_compact(sized, window, auto_condense) or sized >= limit
        )
        frozen = self._frozen
        stepped = (
            frozen is None
            or not frozen.extends(history)
            or used >= next_step_at(frozen, limit, budget)
        )
        if stepped:
            action, used = self._step(history, used, limit, budget, system)
            changed = changed or action != "none"
        if condense:
            action = "condense"
        return self._prepared(history, action, changed, used, stepped=stepped)

    def aggressive(self, history: Sequence[Message], *, system: str = "") -> Prepared:
        """After a context-overflow error: drop three quarters of the rest for one retry.

        `action` is "none" when nothing more can be removed (the retry would fail again).
        """
        changed = self._validate(history)
        before = self.render(history)
        used = estimate_text(system) + estimate_messages(before)
        action: Action = "none"
        if self._truncate_once(history, "quarter"):
            action, changed = "truncate", True
            view = self._full(history)
            used -= estimate_messages(before) - estimate_messages(view)
            self._frozen = Frozen(list(history), view, used)
        return self._prepared(history, action, changed, used, stepped=action != "none")

    def reset(self) -> None:
        """Forget all trimming (history was replaced, e.g. by a condensed summary)."""
        self.deleted_range = None
        self.edits = ()
        self._frozen = None
        self._usage_stale = True  # the last reported usage was for the old, long history

    # --- the view -----------------------------------------------------------------------------

    def render(self, history: Sequence[Message]) -> list[Message]:
        """What is sent: the view frozen at the last step and the messages added since, as they
        are; without a step that still fits `history`, the whole view (`_full`)."""
        frozen = self._frozen
        if frozen is not None and frozen.extends(history):
            return frozen.render(history)
        return self._full(history)

    def _full(self, history: Sequence[Message]) -> list[Message]:
        """The kept messages with edits applied and the notice at the gap, minus what later
        messages superseded (`lighten`)."""
        edited = apply_edits(history, self.edits)
        if self.deleted_range is None:
            return self._view.update(edited)
        start, end = self.deleted_range
        before_gap = edited[start - 1]
        said = carry.notice(edited[start : end + 1], edited[end + 1 :], self._carry_chars)
        noted = Message(before_gap.role, (*before_gap.content, TextContent(said)), before_gap.ts)
        return self._view.update([*edited[: start - 1], noted, *edited[end + 1 :]])

    def _kept_indices(self, length: int) -> list[int]:
        if self.deleted_range is None:
            return list(range(length))
        start, end = self.deleted_range
        return [*range(start), *range(end + 1, length)]

    def _plan_edits(self, history: Sequence[Message]) -> tuple[ReadEdit, ...]:
        """Duplicate-copy edits for the kept messages, in history indices.

        Computed over the kept messages only, so a copy is never replaced in favour of a later
        copy that is not sent.
        """
        kept = self._kept_indices(len(history))
        plan = find_duplicate_reads([history[i] for i in kept], start=1)
        return tuple(ReadEdit(kept[e.message], e.block, e.length, e.spans) for e in plan.edits)

    # --- steps --------------------------------------------------------------------------------

    def _step(
        self, history: Sequence[Message], used: int, limit: int, budget: int, system: str
    ) -> tuple[Action, int]:
        """Apply the savings and, past the limit, trim the oldest history; then freeze the view.

        Sizes are our own count of what is sent (`tokens`), so the step's result is the size the
        next decision starts from. Trimming goes down to `step_target`, keeping at least a
        quarter of what follows the task, except over the budget, where it goes on while the
        count is still over it, so one request never carries a known overflow.
        """
        fixed = estimate_text(system)
        # Whether to trim is decided on the size that triggered the step: the savings alone
        # would otherwise put off trimming to a step soon after.
        target = step_target(limit, fixed) if used >= limit else budget
        view = self._full(history)
        used = fixed + estimate_messages(view)
        action: Action = "none"
        halvings = 0
        while used >= budget or (used > target and halvings < MAX_HALVINGS):
            keep: Keep = "quarter" if used / 2 > budget else "half"
            if self._truncate_once(history, keep):
                action, halvings = "truncate", halvings + 1
            elif used >= budget and self.deleted_range is not None and self._carry_chars > 0:
                self._carry_chars //= 4  # nothing more to cut: the notice carries less
            else:
                break
            view = self._full(history)
            used = fixed + estimate_messages(view)
        self._frozen = Frozen(list(history), view, used)
        return action, used

    def _truncate_once(self, history: Sequence[Message], keep: Keep) -> bool:
        roles = [m.role for m in history]
        start, end = next_truncation_range(roles, self.deleted_range, keep, head=PAIR_SAFE_HEAD)
        # Histories that do not strictly alternate: end the gap on a tool result whose successor
        # is an assistant message, so no call is separated from its result.
        while end >= start and not _gap_end_ok(roles, end):
            end -= 1
        current_end = self.deleted_range[1] if self.deleted_range else start - 1
        if end <= current_end or roles[start] != "assistant":
            return False
        self.deleted_range = (start, end)
        self.edits = self._plan_edits(history)
        return True

    def _tokens_used(self, history: Sequence[Message], system: str) -> int:
        """Our own count of the request about to be sent (not the last reported usage, which
        describes the request before a step and would call for the same step again)."""
        frozen = self._frozen
        if frozen is not None and frozen.extends(history):
            return frozen.used + estimate_messages(history[len(frozen.source) :])
        return estimate_text(system) + estimate_messages(self.render(history))

    def _validate(self, history: Sequence[Message]) -> bool:
        """Drop state that no longer fits the history (rewound, replaced, or a foreign file).

        History that only grew since the last step keeps it valid: nothing to check."""
        if self._frozen is not None:
            if self._frozen.extends(history):
                return False
            self._frozen = None
        self._usage_stale = True  # the last reported usage was for the old, long history
        changed = False
        if self.deleted_range is not None and not _range_ok(history, self.deleted_range):
            self.deleted_range = None
            changed = True
        if self.edits:
            # Keep only spans still justified: their file's later copy must still be sent.
            planned: dict[tuple[int, int, int], set[tuple[int, int]]] = {}
            for e in self._plan_edits(history):
                planned.setdefault((e.message, e.block, e.length), set()).update(e.spans)
            kept: list[ReadEdit] = []
            for e in self.edits:
                ok = planned.get((e.message, e.block, e.length), set())
                spans = tuple(s for s in e.spans if s in ok)
                if spans:
                    kept.append(ReadEdit(e.message, e.block, e.length, spans))
            if tuple(kept) != self.edits:
                self.edits = tuple(kept)
                changed = True
        return changed

    def _prepared(
        self,
        history: Sequence[Message],
        action: Action,
        changed: bool,
        used: int,
        *,
        stepped: bool,
    ) -> Prepared:
        notice = TRUNCATION_NOTICE if self.deleted_range is not None else None
        return Prepared(self.render(history), action, notice, changed, max(used, 0), stepped)

    # --- persistence (context_history.json) ---------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "version": STATE_VERSION,
            "deleted_range": list(self.deleted_range) if self.deleted_range else None,
            "edits": [
                {
                    "message": e.message,
                    "block": e.block,
                    "length": e.length,
                    "spans": [list(s) for s in e.spans],
                }
                for e in self.edits
            ],
        }

    @staticmethod
    def from_json(data: object) -> ContextManager:
        """The saved state; anything unreadable (a Cline file, a damaged one) gives a fresh state.

        Losing the state only means history is trimmed again when the budget is next reached.
        """
        try:
            return _parse_state(data)
        except (KeyError, TypeError, ValueError):
            return ContextManager()


def _parse_state(data: object) -> ContextManager:
    if not isinstance(data, dict) or data.get("version") != STATE_VERSION:
        raise ValueError("not a pycline context state")
    raw_range = data.get("deleted_range")
    deleted: Range | None = None
    if raw_range is not None:
        start, end = (_int(v) for v in raw_range)
        deleted = (start, end)
    edits = [
        ReadEdit(
            _int(e["message"]),
            _int(e["block"]),
            _int(e["length"]),
            tuple((_int(a), _int(b)) for a, b in e["spans"]),
        )
        for e in data.get("edits", [])
    ]
    return ContextManager(deleted_range=deleted, edits=edits)


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {value!r}")
    return value


def _gap_end_ok(roles: Sequence[str], end: int) -> bool:
    return roles[end] == "user" and end + 1 < len(roles) and roles[end + 1] == "assistant"


def _range_ok(history: Sequence[Message], deleted: Range) -> bool:
    start, end = deleted
    roles = [m.role for m in history]
    return (
        start == PAIR_SAFE_HEAD
        and start <= end
        and end + 1 < len(roles)
        and roles[start] == "assistant"
        and _gap_end_ok(roles, end)
    )
