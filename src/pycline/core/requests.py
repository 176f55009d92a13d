"""One model request of the loop: the history made to fit, streamed, retried, paid for.

Before a request the context manager may trim the history or ask for it to be condensed (at the
`autoCondenseThreshold`); a request that fails is retried on its own when the error is transient
(back-off, the server's retry-after), falls back to XML tool calls when a server refuses native
ones, is cut hard once when the context window overflowed, and otherwise asks the user whether to
retry. Every reply's usage is charged to the task's record and its capabilities' caps.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Protocol

from pycline.context.manager import Prepared
from pycline.context.repeats import without_repeats
from pycline.context.tokens import estimate_messages, estimate_text
from pycline.core.capability import Capabilities, RunContext
from pycline.core.retry import RetryPolicy, one_line
from pycline.core.run import RunState, TaskDeps
from pycline.core.streaming import Reply, StreamFailed, stream_reply
from pycline.errors import ProviderError, ProviderErrorKind
from pycline.events import (
    RETRY,
    Answer,
    ErrorEvent,
    ErrorRetryQuestion,
    Event,
    Notice,
    Question,
    RequestStarted,
    Usage,
)
from pycline.messages import Message
from pycline.parsing.native import ToolDefinition
from pycline.providers.base import Provider, UsageChunk

OVERFLOW_STRATEGY = "standard-truncation-lastquarter"


class RequestHost(Protocol):
    """What a request needs from the task besides its deps and state."""

    @property
    def provider(self) -> Provider: ...

    @property
    def ctx(self) -> RunContext: ...

    @property
    def capabilities(self) -> Capabilities: ...

    def system(self) -> str: ...

    def native_tools(self) -> tuple[ToolDefinition, ...]: ...

    def say(self, event: Event) -> None: ...

    async def ask(self, question: Question) -> Answer: ...

    async def condense(self, strategy: str) -> bool | Reply: ...

    def set_provider(self, provider: Provider) -> None:
        """Use `provider` in the current mode from the next request on (announced)."""
        ...


class Requests:
    def __init__(self, deps: TaskDeps, state: RunState, host: RequestHost) -> None:
        self._deps = deps
        self._state = state
        self._host = host
        self._retry = RetryPolicy(deps.settings.max_retries, deps.settings.retry_base_delay)

    async def next_reply(self) -> Reply | None:
        """Stream one reply, retrying transient failures; None when the user gives up."""
        state, host = self._state, self._host
        messages = await self._prepare()
        if isinstance(messages, Reply):
            return messages  # the model finished the task instead of summarising it
        attempt = 0
        overflow_retried = False
        while True:
            state.requests += 1
            host.say(RequestStarted(state.requests))
            tools = host.native_tools()
            try:
                reply = await stream_reply(
                    host.provider,
                    host.system(),
                    messages,
                    host.say,
                    tools=tools,
                    temperature=host.capabilities.temperature(host.ctx),
                )
            except StreamFailed as failed:
                error = failed.error
                if state.tool_format.should_fall_back(error, native=bool(tools)):
                    host.say(Notice(state.tool_format.notice(error)))
                    continue
                if error.kind is ProviderErrorKind.CONTEXT_OVERFLOW and self._move_on(error):
                    prepared = await self._prepare()
                    if isinstance(prepared, Reply):
                        return prepared
                    messages, attempt = prepared, 0
                    continue
                if error.kind is ProviderErrorKind.CONTEXT_OVERFLOW and not overflow_retried:
                    overflow_retried = True
                    trimmed = await self._trim_after_overflow()
                    if trimmed is not None:
                        messages = trimmed
                        continue
                if failed.partial.strip():
                    host.say(
                        Notice(
                            f"The reply was interrupted after {len(failed.partial)} characters; "
                            "that partial reply is discarded (no tool in it was run)."
                        )
                    )
                delay = self._retry.delay(error, attempt)
                if delay is not None:
                    attempt += 1
                    tries = self._deps.settings.max_retries
                    host.say(
                        Notice(
                            f"{error} — retrying in {delay:.0f}s (attempt {attempt} of {tries})."
                        )
                    )
                    await self._deps.sleep(delay)
                    continue
                if self._move_on(error):
                    prepared = await self._prepare()
                    if isinstance(prepared, Reply):
                        return prepared
                    messages, attempt = prepared, 0
                    continue
                state.last_error = one_line(error)
                host.say(ErrorEvent(state.last_error))
                answer = await host.ask(ErrorRetryQuestion(state.last_error))
                if answer.chose(RETRY):
                    attempt = 0
                    continue
                return None
            if tools:
                state.tool_format.succeeded()
            if reply.limit_reached and not reply.limit_feedback:
                size = f" of {reply.limit_reached:,} tokens" if reply.limit_reached > 0 else ""
                host.say(
                    Notice(
                        f"The reply reached the output limit{size}; a tool call it cut short "
                        "was not run, and the model is asked to be shorter."
                    )
                )
            self.account(reply.usage, reply.text, messages)
            return reply

    def _move_on(self, error: ProviderError) -> bool:
        """Move to the next model of the user's fallback chain after `error`, saying so; False
        when the chain has none to take it."""
        host = self._host
        current = host.provider
        moved = self._deps.fallbacks.next_for(error, current)
        for skipped in moved.skipped if moved is not None else ():
            host.say(Notice(f"The fallback model {skipped} could not be set up; skipped."))
        if moved is None:
            return False
        new = moved.provider
        why = (
            "its context window is too small"
            if error.kind is ProviderErrorKind.CONTEXT_OVERFLOW
            else one_line(error)
        )
        host.say(
            Notice(
                f"{current.name}/{current.model.id} cannot answer ({why}); moving to the "
                f"fallback model {new.name}/{new.model.id}."
            )
        )
        host.set_provider(new)
        return True

    async def _prepare(self) -> list[Message] | Reply:
        """The history as the request sends it: trimmed, or condensed first when the context
        manager says so (never twice in a row; a condensed task may complete instead)."""
        state, host, settings = self._state, self._host, self._deps.settings
        window = host.provider.model.context_window
        prepared = self._deps.context.prepare(
            state.history,
            window=window,
            last_total_tokens=state.context_tokens or None,
            auto_condense=settings.auto_condense,
            system=host.system(),
            context_limit=settings.context_limit,
        )
        condensed: bool | Reply = False
        if prepared.action == "condense" and not state.auto_condensed:
            condensed = await host.condense("auto-condense")
            if isinstance(condensed, Reply):
                return condensed
        state.auto_condensed = condensed is True
        if state.auto_condensed:
            prepared = self._deps.context.prepare(
                state.history,
                window=window,
                last_total_tokens=None,
                system=host.system(),
                context_limit=settings.context_limit,
            )
        self.context_changed(prepared)
        # A reply sent again word for word goes once, with its latest result (context/repeats).
        return without_repeats(prepared.messages)

    async def _trim_after_overflow(self) -> list[Message] | None:
        """The history cut hard after the server said it does not fit; None: not possible."""
        host = self._host
        size = self._state.context_tokens
        go_on, _ = await host.capabilities.before_compact(host.ctx, OVERFLOW_STRATEGY, size)
        if not go_on:
            return None
        trimmed = self._deps.context.aggressive(self._state.history, system=host.system())
        if trimmed.action == "none":
            return None
        self.context_changed(trimmed)
        host.say(Notice("The context window overflowed; older history was trimmed."))
        return list(trimmed.messages)

    def context_changed(self, prepared: Prepared) -> None:
        if prepared.changed:
            self._deps.journal.context_changed(self._deps.context.to_json())
            if prepared.action == "truncate":
                self._host.say(Notice("Older history was trimmed to fit the context window."))

    def account(
        self, usage: UsageChunk | None, text: str, sent: Sequence[Message], *, gauge: bool = True
    ) -> None:
        """Charge a reply to the task's record and caps, and show what it cost. `gauge`: the
        request was the task's own (its size is the context in use); a tool's is not."""
        host = self._host
        if usage is None:
            # The stream was cut short before usage arrived: estimate, so cost is never silently 0.
            usage = UsageChunk(output_tokens=estimate_text(text))
        if not (usage.input_tokens or usage.cache_read_tokens or usage.cache_write_tokens):
            # Some local servers report no prompt tokens; the context gauge still needs a figure.
            estimate = estimate_text(host.system()) + estimate_messages(sent)
            usage = dataclasses.replace(usage, input_tokens=estimate)
        model = host.provider.model
        cost = model.cost(usage)
        r = self._state.record
        r.tokens_in += usage.input_tokens
        r.tokens_out += usage.output_tokens
        r.cache_writes += usage.cache_write_tokens
        r.cache_reads += usage.cache_read_tokens
        r.total_cost += cost
        label = f"{host.provider.name}/{model.id}"
        r.model_costs[label] = r.model_costs.get(label, 0.0) + cost
        total = (
            usage.input_tokens
            + usage.output_tokens
            + usage.cache_read_tokens
            + usage.cache_write_tokens
        )
        if total and gauge:
            self._state.context_tokens = total
        host.capabilities.charged(host.ctx, cost, total)
        host.say(
            Usage(
                usage.input_tokens,
                usage.output_tokens,
                usage.cache_write_tokens,
                usage.cache_read_tokens,
                cost,
                r.total_cost,
                self._state.context_tokens,
                model.context_window,
            )
        )
