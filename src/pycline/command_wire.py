"""The JSON form of commands (version 1) and of their replies, with the JSON Schema of both.

A command is one object: `{"v": 1, "task_id": …, "kind": …, …the command's fields}`, plus an
optional `"request"` (a string or number the sender picks) that its reply repeats: `{"v": 1,
"kind": "accepted", "task_id": …, "request": …}` or `{"v": 1, "kind": "rejected", "task_id": …,
"request": …, "error": …}`. The web socket, a background task's control socket and the tests speak
exactly this; over a byte stream each object is one line. The decoder accepts exactly what the
encoder writes and raises `WireError` on anything else: input from a socket is untrusted.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from pycline.commands import (
    COMMANDS_VERSION,
    Accepted,
    Command,
    CommandEnvelope,
    Rejected,
    Reply,
)
from pycline.event_wire import (
    JsonObject,
    WireError,
    decode,
    decode_union,
    encode,
    kind_of,
    members,
    object_schema,
)

__all__ = [
    "COMMAND_TYPES",
    "WireError",
    "accepted",
    "command_from_json",
    "command_json",
    "json_schema",
    "read_json",
    "rejected",
    "reply_from_json",
    "request_of",
]

COMMAND_TYPES: dict[str, type[Any]] = {kind_of(c): c for c in members(Command)}
REPLY_TYPES: dict[str, type[Any]] = {kind_of(c): c for c in members(Reply)}
_HEAD = ("v", "task_id", "request")
Request = str | int | None


def command_json(task_id: str, command: Command, *, request: Request = None) -> JsonObject:
    head: JsonObject = {"v": COMMANDS_VERSION, "task_id": task_id}
    if request is not None:
        head["request"] = request
    return {**head, **encode(command)}


def command_from_json(data: object) -> CommandEnvelope:
    if not isinstance(data, dict):
        raise WireError("a command must be a JSON object")
    if data.get("v") != COMMANDS_VERSION:
        raise WireError(
            f"unsupported commands version {data.get('v')!r} (this is {COMMANDS_VERSION})"
        )
    task_id = decode(str, data.get("task_id"), "task_id")
    request = decode(Request, data.get("request"), "request")
    fields = {k: v for k, v in data.items() if k not in _HEAD}
    command: Command = decode_union(fields, COMMAND_TYPES, "command")
    return CommandEnvelope(task_id, command, request)


def accepted(task_id: str, request: Request = None) -> JsonObject:
    return _reply(Accepted(task_id, request))


def rejected(task_id: str, error: str, request: Request = None) -> JsonObject:
    return _reply(Rejected(task_id, error, request))


def _reply(reply: Reply) -> JsonObject:
    data: JsonObject = {"v": COMMANDS_VERSION, **encode(reply)}
    if data.get("request") is None:
        data.pop("request")
    return data


def reply_from_json(data: object) -> Reply:
    if not isinstance(data, dict) or data.get("v") != COMMANDS_VERSION:
        raise WireError(f"a reply is a JSON object with v={COMMANDS_VERSION}")
    reply: Reply = decode_union({k: v for k, v in data.items() if k != "v"}, REPLY_TYPES, "reply")
    return reply


def read_json(raw: str | bytes) -> object:
    """One message from a socket, parsed: nesting is bounded and lone surrogates become U+FFFD
    (`WireError` for anything that is not JSON)."""
    from pycline.parsing import json_limits
    from pycline.parsing.surrogates import clean_json

    try:
        return clean_json(json_limits.loads(raw))
    except ValueError as exc:  # not JSON, not UTF-8, or nested without end
        raise WireError(f"not JSON: {exc}") from None


def request_of(data: object) -> Request:
    """The sender's request id in a message that may not be a valid command (for its reply)."""
    if isinstance(data, dict):
        with contextlib.suppress(WireError):
            value: Request = decode(Request, data.get("request"), "request")
            return value
    return None


# --- JSON Schema -----------------------------------------------------------------------------

SCHEMA_ID = f"https://pycline.dev/schema/commands.v{COMMANDS_VERSION}.json"


def json_schema() -> JsonObject:
    """The schema of one command and of one reply (draft 2020-12), generated from the types."""
    defs: JsonObject = {}
    request = {"type": ["string", "integer", "null"]}
    variants = []
    for kind, cls in COMMAND_TYPES.items():
        body = object_schema(cls, defs)
        props = {
            "v": {"const": COMMANDS_VERSION},
            "task_id": {"type": "string"},
            "request": request,
            **body["properties"],
        }
        required = sorted({"v", "task_id", *body["required"]})
        defs[f"command_{kind}"] = {**body, "properties": props, "required": required}
        variants.append({"$ref": f"#/$defs/command_{kind}"})
    replies = []
    for kind, cls in REPLY_TYPES.items():
        body = object_schema(cls, defs)
        props = {"v": {"const": COMMANDS_VERSION}, **body["properties"], "request": request}
        required = sorted({"v", *body["required"]})
        defs[f"reply_{kind}"] = {**body, "properties": props, "required": required}
        replies.append({"$ref": f"#/$defs/reply_{kind}"})
    defs["reply"] = {"oneOf": replies}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": f"pycline command to a task (version {COMMANDS_VERSION}); replies: #/$defs/reply",
        "oneOf": variants,
        "$defs": dict(sorted(defs.items())),
    }


def schema_text() -> str:
    """The shipped `pycline/schema/commands.v1.json` (regenerate: `python -m pycline.command_wire`)."""
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    from pathlib import Path

    target = Path(__file__).parent / "schema" / f"commands.v{COMMANDS_VERSION}.json"
    target.write_text(schema_text(), encoding="utf-8")
