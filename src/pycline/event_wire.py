"""The JSON form of events (version 3) and its JSON Schema, both derived from the types.

One line of `pycline run --json` and one web UI message is one envelope:
`{"v": 3, "task_id": …, "seq": …, "ts": …, "kind": …, …the event's fields}`. Questions travel
inside `question_asked` events as a nested object with its own `kind`. The decoder accepts exactly
what the encoder writes and raises `WireError` on anything else: input from a socket is untrusted.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, TypeAlias, Union, get_args, get_origin

from pycline.events import EVENTS_VERSION, Envelope, Event, Question

JsonObject: TypeAlias = dict[str, Any]
_ENVELOPE_KEYS = ("v", "task_id", "seq", "ts")


class WireError(ValueError):
    """The JSON does not describe a valid event, question or answer."""


def members(alias: object) -> tuple[type[Any], ...]:
    return tuple(get_args(alias))


def kind_of(cls: type[Any]) -> str:
    default = next(f.default for f in dataclasses.fields(cls) if f.name == "kind")
    assert isinstance(default, str)
    return default


EVENT_TYPES: dict[str, type[Any]] = {kind_of(c): c for c in members(Event)}
QUESTION_TYPES: dict[str, type[Any]] = {kind_of(c): c for c in members(Question)}


_HINTS: dict[type[Any], dict[str, Any]] = {}


def _hints(cls: type[Any]) -> dict[str, Any]:
    """Resolved once per type: decoding runs for every message that comes in on a socket."""
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


# --- encoding --------------------------------------------------------------------------------


def encode(value: object) -> Any:
    """Dataclasses to objects, tuples to lists; everything else is already JSON."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): encode(v) for k, v in value.items()}
    return value


def envelope_json(envelope: Envelope) -> JsonObject:
    head = {"v": EVENTS_VERSION, "task_id": envelope.task_id, "seq": envelope.seq}
    return {**head, "ts": envelope.ts, **encode(envelope.event)}


# --- decoding --------------------------------------------------------------------------------


def envelope_from_json(data: object) -> Envelope:
    if not isinstance(data, dict):
        raise WireError("an envelope must be a JSON object")
    if data.get("v") != EVENTS_VERSION:
        raise WireError(f"unsupported events version {data.get('v')!r}")
    fields = {k: v for k, v in data.items() if k not in ("v", "seq", "ts")}
    if "task_id" not in _field_names(EVENT_TYPES.get(str(data.get("kind")))):
        fields.pop("task_id", None)
    event = decode_union(fields, EVENT_TYPES, "event")
    task_id = _check(data.get("task_id"), str, "task_id")
    seq = _check(data.get("seq"), int, "seq")
    ts = _check(data.get("ts"), float, "ts")
    return Envelope(task_id, seq, ts, event)


def question_from_json(data: object) -> Question:
    question: Question = decode_union(data, QUESTION_TYPES, "question")
    return question


def _field_names(cls: type[Any] | None) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)} if cls is not None else set()


def decode_union(data: object, table: Mapping[str, type[Any]], what: str) -> Any:
    if not isinstance(data, dict):
        raise WireError(f"{what} must be a JSON object")
    cls = table.get(str(data.get("kind")))
    if cls is None:
        raise WireError(f"unknown {what} kind {data.get('kind')!r}")
    return decode(cls, data, what)


def decode(tp: Any, data: object, where: str) -> Any:
    """`data` (parsed JSON) as a value of type `tp`; `WireError` when it is not one."""
    origin = get_origin(tp)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _decode_dataclass(tp, data, where)
    if tp is Any:
        return data
    if origin is Literal:
        if data not in get_args(tp):
            raise WireError(f"{where}: {data!r} is not one of {get_args(tp)}")
        return data
    if origin in (Union, types.UnionType):
        args = get_args(tp)
        if data is None and type(None) in args:
            return None
        rest = [a for a in args if a is not type(None)]
        if all(dataclasses.is_dataclass(a) for a in rest):
            return decode_union(data, {kind_of(a): a for a in rest}, where)
        for alternative in rest[:-1]:
            try:
                return decode(alternative, data, where)
            except WireError:
                continue
        return decode(rest[-1], data, where)
    if origin is tuple:
        item = get_args(tp)[0]
        if not isinstance(data, list):
            raise WireError(f"{where}: expected a list")
        return tuple(decode(item, v, f"{where}[]") for v in data)
    if origin in (Mapping, dict):
        _, value_type = get_args(tp)
        if not isinstance(data, dict):
            raise WireError(f"{where}: expected an object")
        return {str(k): decode(value_type, v, f"{where}.{k}") for k, v in data.items()}
    return _check(data, tp, where)


def _decode_dataclass(cls: type[Any], data: object, where: str) -> Any:
    if not isinstance(data, dict):
        raise WireError(f"{where}: expected an object")
    hints = _hints(cls)
    unknown = set(data) - _field_names(cls)
    if unknown:
        raise WireError(f"{where}: unknown fields {sorted(unknown)}")
    values = {}
    for f in dataclasses.fields(cls):
        if f.name in data:
            values[f.name] = decode(hints[f.name], data[f.name], f"{where}.{f.name}")
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise WireError(f"{where}: missing field {f.name!r}")
    return cls(**values)


def _check(value: object, tp: type[Any], where: str) -> Any:
    if tp is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, tp) or (tp is int and isinstance(value, bool)):
        raise WireError(f"{where}: expected {tp.__name__}, got {type(value).__name__}")
    return value


# --- JSON Schema -----------------------------------------------------------------------------

SCHEMA_ID = f"https://pycline.dev/schema/events.v{EVENTS_VERSION}.json"


def json_schema() -> JsonObject:
    """The schema of one envelope (draft 2020-12), generated from the event types."""
    defs: JsonObject = {}
    variants = []
    for kind, cls in EVENT_TYPES.items():
        body = object_schema(cls, defs)
        props = {
            "v": {"const": EVENTS_VERSION},
            "task_id": {"type": "string"},
            "seq": {"type": "integer", "minimum": 1},
            "ts": {"type": "number"},
            **body["properties"],
        }
        required = sorted({*_ENVELOPE_KEYS, *body["required"]})
        defs[f"event_{kind}"] = {**body, "properties": props, "required": required}
        variants.append({"$ref": f"#/$defs/event_{kind}"})
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": f"pycline task event (envelope, version {EVENTS_VERSION})",
        "oneOf": variants,
        "$defs": dict(sorted(defs.items())),
    }


def object_schema(cls: type[Any], defs: JsonObject) -> JsonObject:
    """The schema of dataclass `cls`; the types it refers to are added to `defs`."""
    hints = _hints(cls)
    props: JsonObject = {}
    required = []
    for f in dataclasses.fields(cls):
        props[f.name] = _type_schema(hints[f.name], defs)
        if f.name == "kind" or (
            f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        ):
            required.append(f.name)
    doc = (cls.__doc__ or "").strip().split("\n\n")[0]
    return {
        "type": "object",
        **({"description": " ".join(doc.split())} if doc else {}),
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


def _type_schema(tp: Any, defs: JsonObject) -> JsonObject:
    origin = get_origin(tp)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        name = tp.__name__
        if name not in defs:
            defs[name] = {}  # reserve first: a type may refer to itself through a union
            defs[name] = object_schema(tp, defs)
        return {"$ref": f"#/$defs/{name}"}
    if tp is Any:
        return {}
    if origin is Literal:
        values = get_args(tp)
        return {"const": values[0]} if len(values) == 1 else {"enum": list(values)}
    if origin in (Union, types.UnionType):
        return {"anyOf": [_type_schema(a, defs) for a in get_args(tp)]}
    if origin is tuple:
        return {"type": "array", "items": _type_schema(get_args(tp)[0], defs)}
    if origin in (Mapping, dict):
        return {"type": "object", "additionalProperties": _type_schema(get_args(tp)[1], defs)}
    simple = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}
    return {"type": simple[tp]}


def schema_text() -> str:
    """The shipped `pycline/schema/events.v3.json` (regenerate: `python -m pycline.event_wire`)."""
    import json

    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    from pathlib import Path

    target = Path(__file__).parent / "schema" / f"events.v{EVENTS_VERSION}.json"
    target.parent.mkdir(exist_ok=True)
    target.write_text(schema_text(), encoding="utf-8")
