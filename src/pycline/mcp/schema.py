"""Check a tool's arguments against its JSON input schema before the call leaves pycline.

A server would reject bad arguments too, but often with a terse or server-specific message; the
model fixes its call faster when told exactly which field is wrong, next to the schema.
"""

from __future__ import annotations

import json
from typing import Any

from pycline.errors import ToolError

MAX_REPORTED = 8


def validation_problems(arguments: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """Readable problems, empty when the arguments fit (or the schema itself is unusable)."""
    # jsonschema ships no type information; this function is its only user.
    from jsonschema import exceptions, validators  # type: ignore[import-untyped]

    try:
        cls = validators.validator_for(schema)
        cls.check_schema(schema)
    except exceptions.SchemaError:
        # A server that publishes a broken schema gets its arguments unchecked: the server
        # remains the judge, and we must not block every call to it.
        return []
    validator = cls(schema)
    problems = []
    for error in sorted(validator.iter_errors(arguments), key=lambda e: list(e.absolute_path)):
        where = "".join(
            f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path
        ).lstrip(".")
        problems.append(f"{where}: {error.message}" if where else error.message)
    return problems


def check_arguments(tool: str, arguments: dict[str, Any], schema: dict[str, Any]) -> None:
    """Raise a ToolError naming every problem and showing the expected schema."""
    problems = validation_problems(arguments, schema)
    if not problems:
        return
    listed = "\n".join(f"- {p}" for p in problems[:MAX_REPORTED])
    if len(problems) > MAX_REPORTED:
        listed += f"\n- … and {len(problems) - MAX_REPORTED} more"
    raise ToolError(
        f"Invalid arguments for MCP tool '{tool}':\n{listed}\n"
        f"Expected input schema:\n{json.dumps(schema, ensure_ascii=False)}"
    )


def parse_arguments(raw: str | None) -> dict[str, Any]:
    """The `arguments` parameter: a JSON object (absent or empty means no arguments)."""
    if raw is None or not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ToolError(
            f"arguments must be a JSON object: {exc.msg} at line {exc.lineno}, column {exc.colno}."
        ) from exc
    if not isinstance(value, dict):
        raise ToolError(f"arguments must be a JSON object, not {type(value).__name__}.")
    return value
