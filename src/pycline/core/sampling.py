"""A completion the task's model makes for a tool: an MCP server's sampling request.

It is one more request of the task's own model, charged to the task (its record, its caps), and
refused once the task's cost cap is reached. Asking the user is the tool's part; this is the
request itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from pycline.core.budget import CostGovernor
from pycline.core.capability import Capabilities
from pycline.core.requests import Requests
from pycline.core.streaming import StreamFailed, stream_reply
from pycline.events import Event
from pycline.messages import Message
from pycline.providers.base import Provider


async def complete(
    provider: Provider,
    capabilities: Capabilities,
    requests: Requests,
    system: str,
    messages: Sequence[Message],
) -> tuple[str, str] | str:
    """(the model's text, its id), or why there is none."""
    governor = capabilities.first(CostGovernor)
    if governor is not None and governor.reached() is not None:
        return "the task's cost cap is reached"
    try:
        reply = await stream_reply(provider, system, messages, _quiet)
    except StreamFailed as exc:
        return f"the model request failed: {exc}"
    requests.account(reply.usage, reply.text, messages, gauge=False)
    return reply.text, provider.model.id


def _quiet(event: Event) -> None:
    """A tool's completion is not streamed to the user as the task's own reply."""
