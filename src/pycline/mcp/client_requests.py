"""Answers to the requests an MCP server sends its client: elicitation and roots.

Elicitation (a server asking the user for input, as a form or by sending them to a URL) is
answered by the connection's `Elicitor` when a front end gives one; otherwise by policy:
"decline" (a headless run), or "defaults" (accept a form with the defaults its schema names).
Roots are the task's workspace folder (and its worktree), as `file://` URIs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

if TYPE_CHECKING:
    from mcp.client.context import ClientRequestContext
    from mcp.client.session import ElicitationFnT, ListRootsFnT
    from mcp_types import ElicitRequestParams, ElicitResult, ErrorData, ListRootsResult

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


def roots_callback(
    roots: Callable[[], Sequence[Path]],
) -> ListRootsFnT:
    async def answer(context: ClientRequestContext) -> ListRootsResult | ErrorData:
        from mcp_types import ListRootsResult, Root

        return ListRootsResult(
            roots=[Root(uri=path.resolve().as_uri(), name=path.name) for path in roots()]  # type: ignore[arg-type]
        )

    return answer
