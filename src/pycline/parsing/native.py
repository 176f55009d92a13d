"""Native tool calls: the definitions sent to the model and the assembly of streamed calls.

A provider streams a call as pieces: an id and a name first, then its arguments as fragments of
one JSON object (`{"path": "a.py", "content": "…`). `NativeCallAssembler` turns those pieces into
the same `ToolUseBlock`s the XML parser yields: partial while arguments arrive (each string value
as far as it has come), complete at the end. Values are strings, as in XML calls; a non-string
argument (a boolean, a number, a list) becomes its JSON text.

The argument scanner keeps its state between fragments and looks at every character once, so a
long file's content costs time in proportion to its length however finely it is streamed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from pycline.parsing import json_limits
from pycline.parsing.blocks import ToolUseBlock
from pycline.parsing.surrogates import clean

__all__ = [
    "ArgumentScanner",
    "NativeCall",
    "NativeCallAssembler",
    "ToolDefinition",
    "arguments_to_params",
]

# Bounds on what a provider may hand us as one call: far above any real call (a model's whole
# reply is a few hundred kilobytes), low enough that a broken or hostile server cannot make the
# agent hold gigabytes or recurse without end.
MAX_ARGUMENT_CHARS: Final = 8_000_000
MAX_NAME_CHARS: Final = 256
MAX_ID_CHARS: Final = 256


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """A tool as the model sees it natively: a name, a description, a JSON schema."""

    name: str
    description: str
    parameters: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class NativeCall:
    """A complete native tool call: the provider's id, the tool, its arguments as strings."""

    id: str
    name: str
    params: dict[str, str]
    error: str = ""  # why the call cannot run (its arguments were not a JSON object)


def arguments_to_params(raw: str) -> dict[str, str] | None:
    """The complete arguments JSON as string params; None when it is not a JSON object."""
    parsed = _parse_arguments(raw)
    return parsed if isinstance(parsed, dict) else None


def _parse_arguments(raw: str) -> dict[str, str] | str:
    """The arguments as string params, or why they cannot be used (for the model)."""
    try:
        value = json_limits.loads(raw.strip() or "{}")
    except json_limits.TooDeep:
        return (
            f"The tool call's arguments were nested more than {json_limits.MAX_DEPTH} levels "
            "deep; give each parameter as a plain string."
        )
    except ValueError:
        return "The tool call's arguments were not a JSON object; retry with valid JSON."
    if not isinstance(value, dict):
        return "The tool call's arguments were not a JSON object; retry with valid JSON."
    return {clean(str(k)): clean(_as_string(v)) for k, v in value.items()}


def _as_string(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


_Where = Literal["start", "key", "colon", "value", "string", "raw", "after"]
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class ArgumentScanner:
    """Reads a flat JSON object fragment by fragment; `partial()` gives the values so far.

    Only the top level is interpreted: a nested value (array, object) is kept as raw JSON text.
    Malformed input never raises here; the final parse (`arguments_to_params`) decides.
    """

    def __init__(self) -> None:
        self._where: _Where = "start"
        self._key: list[str] = []
        self._value: list[str] = []
        self._current_key = ""
        self._escape = ""  # an escape in progress: "\\" or "\\uXXX…"
        self._high = ""  # a high surrogate waiting for its pair
        self._depth = 0
        self._raw_in_string = False
        self._raw_escape = False
        self._in_key = False
        self.values: dict[str, str] = {}

    def feed(self, text: str) -> None:
        i, end = 0, len(text)
        while i < end:
            # Inside a string, everything up to the next quote or backslash is plain text:
            # taken in one slice, so a long value costs one search, not a step per character.
            if self._where == "string" and not self._escape:
                j = _next_special(text, i)
                if j > i:
                    target = self._key if self._in_key else self._value
                    if self._high:
                        target.append(self._high)
                        self._high = ""
                    target.append(text[i:j])
                    i = j
                    continue
            elif self._where == "raw" and self._raw_in_string and not self._raw_escape:
                j = _next_special(text, i)
                if j > i:
                    self._value.append(text[i:j])
                    i = j
                    continue
            self._step(text[i])
            i += 1

    @property
    def reading_value(self) -> bool:
        """Whether a value (not a key) is being read."""
        return self._where in ("string", "raw") and not self._in_key

    @property
    def key(self) -> str:
        return self._current_key

    def partial(self) -> dict[str, str]:
        """The values seen so far, the one being read included as far as it has arrived (lone
        surrogates, which no file or terminal accepts, as U+FFFD)."""
        out = {clean(k): clean(v) for k, v in self.values.items()}
        if self._where in ("string", "raw") and not self._in_key:
            out[clean(self._current_key)] = clean("".join(self._value))
        return out

    def _step(self, ch: str) -> None:
        match self._where:
            case "start":
                if ch == "{":
                    self._where = "key"
            case "key":
                if ch == '"':
                    self._in_key = True
                    self._key = []
                    self._where = "string"
            case "colon":
                if ch == ":":
                    self._where = "value"
            case "value":
                if ch == '"':
                    self._in_key = False
                    self._value = []
                    self._where = "string"
                elif not ch.isspace():
                    self._value = [ch]
                    self._depth = 1 if ch in "[{" else 0
                    self._raw_in_string = False
                    self._raw_escape = False
                    self._where = "raw"
                    if ch in ",}":
                        self._where = "key"
            case "string":
                self._string_char(ch)
            case "raw":
                self._raw_char(ch)
            case "after":
                if ch == ",":
                    self._where = "key"

    def _string_char(self, ch: str) -> None:
        target = self._key if self._in_key else self._value
        if self._escape:
            self._escape += ch
            if self._escape.startswith("\\u"):
                if len(self._escape) < 6:
                    return
                self._emit_code(int(self._escape[2:], 16) if _is_hex(self._escape[2:]) else 0xFFFD)
            else:
                target.append(_ESCAPES.get(ch, ch))
            self._escape = ""
            return
        if ch == "\\":
            self._escape = "\\"
            return
        if self._high:
            target.append(self._high)
            self._high = ""
        if ch == '"':
            if self._in_key:
                self._current_key = "".join(self._key)
                self._where = "colon"
            else:
                self.values[self._current_key] = "".join(self._value)
                self._where = "after"
            return
        target.append(ch)

    def _emit_code(self, code: int) -> None:
        target = self._key if self._in_key else self._value
        if 0xD800 <= code <= 0xDBFF:
            if self._high:
                target.append(self._high)
            self._high = chr(code)
            return
        if 0xDC00 <= code <= 0xDFFF and self._high:
            pair = 0x10000 + ((ord(self._high) - 0xD800) << 10) + (code - 0xDC00)
            self._high = ""
            target.append(chr(pair))
            return
        if self._high:
            target.append(self._high)
            self._high = ""
        target.append(chr(code))

    def _raw_char(self, ch: str) -> None:
        if self._raw_in_string:
            self._value.append(ch)
            if self._raw_escape:
                self._raw_escape = False
            elif ch == "\\":
                self._raw_escape = True
            elif ch == '"':
                self._raw_in_string = False
            return
        if self._depth == 0 and ch in ",}":
            self.values[self._current_key] = "".join(self._value).strip()
            self._where = "key"
            return
        if ch == '"':
            self._raw_in_string = True
        elif ch in "[{":
            self._depth += 1
        elif ch in "]}":
            self._depth -= 1
        self._value.append(ch)


_SPECIAL = re.compile(r'["\\]')


def _next_special(text: str, start: int) -> int:
    found = _SPECIAL.search(text, start)
    return found.start() if found is not None else len(text)


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdefABCDEF" for c in text)


@dataclass(slots=True)
class _Pending:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    size: int = 0
    too_large: bool = False
    scanner: ArgumentScanner = field(default_factory=ArgumentScanner)


class NativeCallAssembler:
    """Collects streamed call pieces by their index within the reply.

    What the provider sent is checked here, where it enters: the id and name are cleaned of lone
    surrogates and bounded in length, and arguments beyond `MAX_ARGUMENT_CHARS` are dropped (the
    call then reports the error instead of running)."""

    def __init__(self) -> None:
        self._calls: dict[int, _Pending] = {}

    def __bool__(self) -> bool:
        return bool(self._calls)

    def feed(self, index: int, *, id: str | None, name: str | None, arguments: str) -> None:
        call = self._calls.setdefault(index, _Pending())
        if id:
            call.id = clean(id[:MAX_ID_CHARS])
        if name:
            call.name = clean(name[:MAX_NAME_CHARS])
        if arguments and not call.too_large:
            call.size += len(arguments)
            if call.size > MAX_ARGUMENT_CHARS:
                call.too_large = True
                call.arguments.clear()
                return
            call.arguments.append(arguments)
            call.scanner.feed(arguments)

    @property
    def blocks(self) -> list[ToolUseBlock]:
        """The calls so far, each partial, with the arguments that have arrived."""
        return [
            ToolUseBlock(c.name, c.scanner.partial(), partial=True)
            for _, c in sorted(self._calls.items())
        ]

    def size(self, index: int) -> int:
        """How many characters of call `index`'s arguments have arrived."""
        return self._calls[index].size

    def shape(self, index: int) -> tuple[object, ...]:
        """The same while only one argument value of call `index` grows (reading `partial`
        costs the arguments' length); different after any other progress."""
        call = self._calls[index]
        scanner = call.scanner
        growing = scanner.reading_value
        return (call.id, call.name, len(scanner.values), scanner.key, growing or call.size)

    def partial(self, index: int) -> tuple[str, ToolUseBlock]:
        """One call so far: its id ("" until known) and its block."""
        call = self._calls[index]
        return call.id, ToolUseBlock(call.name, call.scanner.partial(), partial=True)

    def finish(self) -> list[NativeCall]:
        """Every call, complete; one whose arguments are not a JSON object carries an error."""
        out: list[NativeCall] = []
        for index, call in sorted(self._calls.items()):
            call_id = call.id or f"call_{index}"
            if call.too_large:
                error = (
                    f"The tool call's arguments were longer than {MAX_ARGUMENT_CHARS:,} "
                    "characters and were dropped; write large content in smaller parts."
                )
                out.append(NativeCall(call_id, call.name, {}, error))
                continue
            params = _parse_arguments("".join(call.arguments))
            if isinstance(params, str):
                out.append(NativeCall(call_id, call.name, {}, params))
            else:
                out.append(NativeCall(call_id, call.name, params))
        return out
