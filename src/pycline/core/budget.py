"""The cost governor: caps on what a task, a session and a day may spend.

Caps are in USD (`maxTaskCost`, `maxSessionCost`, `maxDailyCost`) and in tokens (`maxTaskTokens`,
`maxSessionTokens`). They are checked before each request, so a reached cap costs no further
request: the user is asked to raise it or stop; a headless run stops (its own exit code). After
each request the spend against every cap is shown ("spent / cap"). A sub-agent's spend is added to
its parent task through `charge`, so it counts against the same caps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from pycline.core.capability import Capability, RunContext, Stop
from pycline.events import RAISE_CAP, Answer, BudgetQuestion, BudgetStatus
from pycline.messages import Content

Scope: TypeAlias = Literal["task", "session", "day"]
Unit: TypeAlias = Literal["usd", "tokens"]


@dataclass(frozen=True, slots=True)
class BudgetLimits:
    max_task_cost: float | None = None
    max_session_cost: float | None = None
    max_daily_cost: float | None = None
    max_task_tokens: int | None = None
    max_session_tokens: int | None = None


@dataclass(slots=True)
class SessionSpend:
    """What every task of one session (and, for the day cap, earlier sessions) spent."""

    cost: float = 0.0
    tokens: int = 0
    earlier_today: float = 0.0  # spent today before this session started (from task history)


@dataclass(slots=True)
class CostGovernor(Capability):
    limits: BudgetLimits = field(default_factory=BudgetLimits)
    session: SessionSpend = field(default_factory=SessionSpend)
    task_cost: float = 0.0
    task_tokens: int = 0
    _caps: dict[tuple[Scope, Unit], float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        pairs: list[tuple[Scope, Unit, float | None]] = [
            ("task", "usd", self.limits.max_task_cost),
            ("session", "usd", self.limits.max_session_cost),
            ("day", "usd", self.limits.max_daily_cost),
            ("task", "tokens", self.limits.max_task_tokens),
            ("session", "tokens", self.limits.max_session_tokens),
        ]
        self._caps = {(s, u): float(c) for s, u, c in pairs if c is not None}

    def charge(self, cost: float, tokens: int) -> None:
        self.task_cost += cost
        self.task_tokens += tokens
        self.session.cost += cost
        self.session.tokens += tokens

    def spent(self, scope: Scope, unit: Unit) -> float:
        match scope, unit:
            case "task", "usd":
                return self.task_cost
            case "task", "tokens":
                return float(self.task_tokens)
            case "session", "usd":
                return self.session.cost
            case "session", "tokens":
                return float(self.session.tokens)
            case _:
                return self.session.earlier_today + self.session.cost

    def status(self) -> list[BudgetStatus]:
        return [BudgetStatus(s, u, self.spent(s, u), cap) for (s, u), cap in self._caps.items()]

    def reached(self) -> BudgetQuestion | None:
        """The first cap reached, as the question to ask; None while every cap has room."""
        for (scope, unit), cap in self._caps.items():
            spent = self.spent(scope, unit)
            if spent >= cap:
                return BudgetQuestion(scope, unit, spent, cap)
        return None

    def raise_cap(self, question: BudgetQuestion, answer: Answer) -> bool:
        """Apply the user's answer; True when the cap was raised, False to stop.

        A number typed (`12`, `$12`) becomes the new cap when it is above what is already spent;
        a number not above it, or text that is not a number, stops. Choosing "raise" without a
        number allows as much again as the cap reached (new cap: spent + that cap)."""
        key: tuple[Scope, Unit] = (_scope(question.scope), _unit(question.unit))
        if answer.chose(RAISE_CAP) and not answer.text.strip():
            self._caps[key] = question.spent + question.cap
            return True
        if not answer.chose(RAISE_CAP) and not answer.text.strip():
            return False
        try:
            wanted = float(answer.text.strip().lstrip("$"))
        except ValueError:
            return False
        if wanted <= question.spent:
            return False
        self._caps[key] = wanted
        return True

    # --- as a capability: checked before each request, charged after it ---------------------------

    async def before_request(self, ctx: RunContext) -> list[Content] | Stop:
        """A reached cap costs no further request: the user raises it, or the task stops."""
        while (question := self.reached()) is not None:
            answer = await ctx.ask(question)
            if not self.raise_cap(question, answer):
                return Stop(self.stop_reason(question), over_budget=True)
        return []

    def charged(self, ctx: RunContext, cost: float, tokens: int) -> None:
        self.charge(cost, tokens)
        for status in self.status():
            ctx.say(status)

    def stop_reason(self, question: BudgetQuestion) -> str:
        what = (
            f"${question.spent:.2f} of ${question.cap:.2f}"
            if question.unit == "usd"
            else f"{question.spent:,.0f} of {question.cap:,.0f} tokens"
        )
        return f"The {question.scope} spending cap was reached ({what}); stopped."


def _scope(value: str) -> Scope:
    return "task" if value == "task" else "session" if value == "session" else "day"


def _unit(value: str) -> Unit:
    return "usd" if value == "usd" else "tokens"
