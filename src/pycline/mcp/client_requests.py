"""Answers to the requests an MCP server sends its client: elicitation, sampling and roots.

Elicitation (a server asking the user for input, as a form or by sending them to a URL) is
answered by the connection's `Elicitor` when a front end gives one; otherwise by policy:
"decline" (a headless run), or "defaults" (accept a form with the defaults its schema names).
Sampling (a server asking the client's model for a completion) is answered by the connection's
`Sampler` while a task's tool call runs: the task's own model, with the user's approval, its cost
charged to the task. With no sampler (no call running, or a run that gives none) it is refused
with an error that says why. Only text is sampled; a request with images or audio is refused.
Roots are the task's workspace folder (and its worktree), as `file://` URIs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

if TYPE_CHECKING:
    from mcp.client.context import ClientRequestContext
    from mcp.client.session import ElicitationFnT, ListRootsFnT, SamplingFnT
    from mcp_types import (
        CreateMessageRequestParams,
        CreateMessageResult,
        ElicitRequestParams,
        ElicitResult,
        ErrorData,
        ListRootsResult,
    )

ElicitAction: TypeAlias = Literal["accept", "decline", "cancel"]
ElicitationPolicy: TypeAlias = Literal["decline", "defaults"]


@dataclass(frozen=True, slots=True)
class ElicitationRequest:
    """What a server asks the user (our own type, for front ends)."""

    server: str
    message: str
    mode: Literal["form", "url"]
    schema: dict[str, Any] = field(default_factory=dict)  # form: the requested schema
    url: str = ""  # url mode: where to send the user


@dataclass(frozen=True, slots=True)
class ElicitationReply:
    action: ElicitAction
    content: dict[str, Any] | None = None


Elicitor: TypeAlias = Callable[[ElicitationRequest], Awaitable[ElicitationReply]]


@dataclass(frozen=True, slots=True)
class SamplingRequest:
    """A completion a server asks of the client's model (our own type, for the task)."""

    server: str
    messages: tuple[tuple[Literal["user", "assistant"], str], ...]
    system: str
    max_tokens: int


@dataclass(frozen=True, slots=True)
class SamplingReply:
    """The model's answer, or why there is none (`refused`)."""

    text: str = ""
    model: str = ""
    refused: str = ""
    cut_at_limit: bool = False


Sampler: TypeAlias = Callable[[SamplingRequest], Awaitable[SamplingReply]]
NO_SAMPLER = "pycline samples only while one of this server's tools is called by a task"


def schema_defaults(schema: dict[str, Any]) -> dict[str, Any]:
    """The defaults a form's schema names for its (top-level) fields."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return {}
    return {
        name: prop["default"]
        for name, prop in props.items()
        if isinstance(prop, dict) and "default" in prop
    }


def request_of(server: str, params: ElicitRequestParams) -> ElicitationRequest:
    from mcp_types import ElicitRequestURLParams

    if isinstance(params, ElicitRequestURLParams):
        return ElicitationRequest(server, params.message, "url", url=params.url)
    return ElicitationRequest(server, params.message, "form", schema=dict(params.requested_schema))


def by_policy(policy: ElicitationPolicy, request: ElicitationRequest) -> ElicitationReply:
    if policy == "defaults" and request.mode == "form":
        return ElicitationReply("accept", schema_defaults(request.schema))
    return ElicitationReply("decline")


def elicitation_callback(
    server: str, policy: ElicitationPolicy, elicitor: Callable[[], Elicitor | None]
) -> ElicitationFnT:
    async def answer(
        context: ClientRequestContext, params: ElicitRequestParams
    ) -> ElicitResult | ErrorData:
        from mcp_types import ElicitResult

        request = request_of(server, params)
        ask = elicitor()
        reply = await ask(request) if ask is not None else by_policy(policy, request)
        content = reply.content if reply.action == "accept" and request.mode == "form" else None
        return ElicitResult(action=reply.action, content=content)

    return answer


def sampling_request(server: str, params: CreateMessageRequestParams) -> SamplingRequest | str:
    """Our request for the server's, or why it cannot be sampled."""
    from mcp_types import TextContent

    messages: list[tuple[Literal["user", "assistant"], str]] = []
    for message in params.messages:
        blocks = message.content if isinstance(message.content, list) else [message.content]
        texts = [b.text for b in blocks if isinstance(b, TextContent)]
        if len(texts) != len(blocks):
            return "pycline samples text only; this request holds images, audio or tool results"
        messages.append((message.role, "\n".join(texts)))
    if not messages:
        return "the request holds no messages"
    return SamplingRequest(server, tuple(messages), params.system_prompt or "", params.max_tokens)


def sampling_callback(server: str, sampler: Callable[[], Sampler | None]) -> SamplingFnT:
    async def answer(
        context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult | ErrorData:
        from mcp_types import INVALID_REQUEST, CreateMessageResult, ErrorData, TextContent

        request = sampling_request(server, params)
        sample = sampler()
        if isinstance(request, str) or sample is None:
            why = request if isinstance(request, str) else NO_SAMPLER
            return ErrorData(code=INVALID_REQUEST, message=f"Sampling refused: {why}.")
        reply = await sample(request)
        if reply.refused:
            # -1: the user (or the task's cap) said no, as the spec's examples answer it.
            return ErrorData(code=-1, message=f"Sampling refused: {reply.refused}.")
        return CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text=reply.text),
            model=reply.model,
            stop_reason="maxTokens" if reply.cut_at_limit else "endTurn",
        )

    return answer


def roots_callback(
    roots: Callable[[], Sequence[Path]],
) -> ListRootsFnT:
    async def answer(context: ClientRequestContext) -> ListRootsResult | ErrorData:
        from mcp_types import ListRootsResult, Root

        return ListRootsResult(
            roots=[Root(uri=path.resolve().as_uri(), name=path.name) for path in roots()]  # type: ignore[arg-type]
        )

    return answer


def session_callbacks(
    server: str,
    policy: ElicitationPolicy,
    elicitors: list[Elicitor],
    samplers: list[Sampler],
    roots: Callable[[], Sequence[Path]],
) -> dict[str, Any]:
    """The session's answers to the server's requests: the newest elicitor and sampler (those
    of the call running now), the roots of the moment."""
    return {
        "elicitation_callback": elicitation_callback(
            server, policy, lambda: elicitors[-1] if elicitors else None
        ),
        "sampling_callback": sampling_callback(server, lambda: samplers[-1] if samplers else None),
        "list_roots_callback": roots_callback(roots),
    }
