"""An MCP server's request for input (elicitation), asked of the user through the task's host.

Every front end already answers a follow-up question (a text reply or a suggested option): the
terminal prompts, the web page shows it with its options, an editor (ACP) shows it and takes the
next message as the reply. So the form becomes one such question: the server's message, its
fields (type, default, allowed values), and the options "Use the defaults" (when it names some),
"Decline" and "Cancel". The reply is `field: value` lines (or JSON, or, for a one-field form, the
value itself); it is checked against the schema and asked again once when it does not fit. A URL
request asks for consent and opens the address in the browser when given. A headless run never
gets here: its connection declines (or takes the defaults) by policy.
"""

from __future__ import annotations

import json
import webbrowser
from typing import Any

from pycline.events import Answer, FollowupQuestion, Option
from pycline.mcp.client_requests import (
    ElicitationReply,
    ElicitationRequest,
    Elicitor,
    schema_defaults,
)
from pycline.tools.base import ToolContext

DEFAULTS = Option("defaults", "Use the defaults")
FILL = Option("fill", "Send")
OPEN = Option("open", "Open it")
DECLINE = Option("decline", "Decline")
CANCEL = Option("cancel", "Cancel")


class BadReply(ValueError):
    pass


def _describe(name: str, prop: dict[str, Any], required: bool) -> str:
    kind = prop.get("type", "string")
    parts = [f"- {name} ({kind}{', required' if required else ''})"]
    title = prop.get("title") or prop.get("description")
    if title:
        parts.append(f": {title}")
    choices = prop.get("enum") or [o.get("const") for o in prop.get("oneOf", []) if "const" in o]
    if choices:
        parts.append(f"; one of {', '.join(str(c) for c in choices)}")
    if "default" in prop:
        parts.append(f"; default {prop['default']}")
    return "".join(parts)


def form_text(request: ElicitationRequest) -> str:
    props = request.schema.get("properties") or {}
    required = set(request.schema.get("required") or ())
    lines = [f"The MCP server '{request.server}' asks: {request.message}"]
    if props:
        lines.append("Fields:")
        lines.extend(
            _describe(n, p, n in required) for n, p in props.items() if isinstance(p, dict)
        )
        lines.append(
            "Reply with `field: value` lines, or on one line separated by `;` (a one-field "
            "form: just the value)."
        )
    return "\n".join(lines)


def _coerce(name: str, prop: dict[str, Any], raw: Any) -> Any:
    kind = prop.get("type", "string")
    text = raw if isinstance(raw, str) else None
    try:
        if kind == "boolean":
            if isinstance(raw, bool):
                return raw
            lowered = (text or "").strip().lower()
            if lowered in ("yes", "y", "true", "1"):
                return True
            if lowered in ("no", "n", "false", "0"):
                return False
            raise BadReply(f"{name}: answer yes or no")
        if kind == "integer":
            return int(raw)
        if kind == "number":
            return float(raw)
        if kind == "array":
            items = raw if isinstance(raw, list) else [s.strip() for s in str(raw).split(",")]
            return [str(i) for i in items if str(i)]
    except (TypeError, ValueError) as exc:
        if isinstance(exc, BadReply):
            raise
        raise BadReply(f"{name}: expected {kind}, got {raw!r}") from None
    value = str(raw).strip()
    choices = prop.get("enum") or [o.get("const") for o in prop.get("oneOf", []) if "const" in o]
    if choices and value not in [str(c) for c in choices]:
        raise BadReply(f"{name}: one of {', '.join(str(c) for c in choices)}")
    return value


def parse_reply(schema: dict[str, Any], text: str) -> dict[str, Any]:
    """The content for a typed reply, checked against the form's schema (BadReply if not)."""
    props: dict[str, Any] = {
        k: v for k, v in (schema.get("properties") or {}).items() if isinstance(v, dict)
    }
    raw: dict[str, Any] = {}
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            loaded = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise BadReply(f"not valid JSON ({exc.msg})") from None
        if not isinstance(loaded, dict):
            raise BadReply("expected a JSON object")
        raw = loaded
    elif len(props) == 1 and ":" not in stripped.split("\n", 1)[0]:
        raw = {next(iter(props)): stripped}
    else:
        for line in _pairs(stripped):
            if not line.strip():
                continue
            key, sep, value = line.partition(":")
            if not sep:
                raise BadReply(f"expected `field: value`, got {line!r}")
            raw[key.strip()] = value.strip()
    unknown = set(raw) - set(props)
    if unknown:
        raise BadReply(f"no such field: {', '.join(sorted(unknown))}")
    content = schema_defaults(schema)
    for name, value in raw.items():
        content[name] = _coerce(name, props[name], value)
    missing = [n for n in schema.get("required") or () if n not in content]
    if missing:
        raise BadReply(f"missing: {', '.join(missing)}")
    return content


def _pairs(text: str) -> list[str]:
    """`field: value` lines; a line of several pairs separated by `;` (a terminal's prompt takes
    one line) is split when every part is a pair."""
    pairs: list[str] = []
    for line in text.splitlines():
        parts = line.split(";")
        if len(parts) > 1 and all(":" in p for p in parts if p.strip()):
            pairs.extend(p for p in parts if p.strip())
        else:
            pairs.append(line)
    return pairs


def elicitor_for(ctx: ToolContext) -> Elicitor | None:
    """Who answers a server's request during this call: the user, unless the run is headless."""
    if ctx.headless:
        return None

    async def ask(request: ElicitationRequest) -> ElicitationReply:
        if request.mode == "url":
            answer = await ctx.ask(
                FollowupQuestion(
                    f"The MCP server '{request.server}' asks you to open {request.url}\n"
                    f"{request.message}",
                    (OPEN, DECLINE, CANCEL),
                )
            )
            if answer.chose(OPEN):
                webbrowser.open(request.url)
                return ElicitationReply("accept")
            return _refusal(answer)
        defaults = schema_defaults(request.schema)
        options = (*((DEFAULTS,) if defaults else ()), DECLINE, CANCEL)
        note = ""
        for _ in range(2):
            answer = await ctx.ask(FollowupQuestion(form_text(request) + note, options))
            if answer.chose(DEFAULTS):
                return ElicitationReply("accept", defaults)
            if answer.option in (DECLINE.id, CANCEL.id) or not answer.text.strip():
                return _refusal(answer)
            try:
                return ElicitationReply("accept", parse_reply(request.schema, answer.text))
            except BadReply as exc:
                note = f"\n(That reply did not fit: {exc}. Try again.)"
        return ElicitationReply("cancel")

    return ask


def _refusal(answer: Answer) -> ElicitationReply:
    return ElicitationReply("decline" if answer.chose(DECLINE) else "cancel")
