"""Generated malformed model replies for bench/fuzz.py, as the HTTP responses a server sends.

Every reply is built from a seeded `random.Random`, so a seed reproduces a run. Kinds:
- XML text replies: tool calls with broken, truncated, nested or unknown tags, huge, binary,
  NUL and lone-surrogate parameter values, deep nesting;
- native tool calls: arguments that are not JSON, not an object, nested without end, huge; odd
  ids, names and indexes; several calls in one reply;
- raw SSE oddities: `data:` lines that are not JSON, fields of the wrong type, comments, CRLF,
  unknown events, a stream cut off or dropped mid-way;
- HTTP errors: 5xx and 429 (retried), and bodies that are HTML, empty or malformed.
None ends the task (no attempt_completion, no hand-off), so one task takes many.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from tests.fakes import raw_streams as raw
from tests.fakes.raw_streams import Wire
from tests.fakes.server import Planned

TOOLS = (
    "read_file", "write_to_file", "replace_in_file", "search_files", "list_files",
    "list_code_definition_names", "ask_followup_question", "execute_command", "web_fetch",
    "browser_action", "use_mcp_tool", "access_mcp_resource", "new_rule", "use_skill",
    "no_such_tool", "read_fil", "READ_FILE", "",
)  # fmt: skip
PARAMS = (
    "path", "content", "diff", "regex", "file_pattern", "recursive", "question", "options",
    "command", "requires_approval", "timeout", "start_line", "end_line", "url", "action",
    "task_progress", "server_name", "tool_name", "arguments", "uri", "skill_name", "bogus",
)  # fmt: skip
NASTY = (
    "", " ", "a.txt", "code.py", "pipe", "sub", "../outside.txt", "/proc/self/environ",
    "/dev/zero", "/etc/passwd", "x\x00y", "\ud83d", "\ude00tail", "a\udcffb",
    "\x1b]52;c;ZQ==\x07", "[" * 3000, '["a", "b"]', "-1", "99999999999999999999", "true",
    "nan", "*", "(a|", "\\", "------- SEARCH\nx\n=======\ny\n+++++++ REPLACE",
    "------- SEARCH\n", "<path>", "</content>", "http://169.254.169.254/latest",
    "\u2028\u2029\x85", "é😀", "\t\t\t", "\r\n\r\n", "%s%n%x", "${HOME}", "$(id)",
    "- [ ] step\n- [x] done", '{"a": 1}', "1e308", "0x41",
)  # fmt: skip
SAFE_TEXT = "abcdefghijklmnopqrstuvwxyz ABCXYZ 0123456789 .,;:!?-_/\n\t<>&\"'{}[]()"


def text(rng: random.Random, size: int) -> str:
    """Printable text, now and then with control characters, surrogates or NUL."""
    out = "".join(rng.choice(SAFE_TEXT) for _ in range(size))
    if rng.random() < 0.3:
        out += rng.choice(("\x00", "\ud800", "\udfff", "\x07", "\x1b[2J", "\u202e", "\ufeff"))
    return out


def value(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.45:
        return rng.choice(NASTY)
    if roll < 0.85:
        return text(rng, rng.randint(0, 80))
    if roll < 0.95:
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 400))).decode("latin-1")
    return rng.choice(("x", "[", "\n", "é")) * rng.choice((20_000, 100_000, 300_000))


def params(rng: random.Random) -> dict[str, str]:
    return {rng.choice(PARAMS): value(rng) for _ in range(rng.randint(0, 4))}


# --- XML text replies ---------------------------------------------------------------------------


def xml_call(rng: random.Random) -> str:
    name = rng.choice(TOOLS)
    body = "".join(f"<{k}>{v}</{k}>\n" for k, v in params(rng).items())
    call = f"{text(rng, rng.randint(0, 30))}<{name}>\n{body}</{name}>"
    match rng.randint(0, 7):
        case 0:  # cut off anywhere
            call = call[: rng.randint(0, len(call))]
        case 1:  # never closed
            call = call.rsplit("</", 1)[0]
        case 2:  # a tag inside a tag
            call = call.replace("<path>", f"<path><{rng.choice(PARAMS)}>", 1)
        case 3:  # wrong closing tag
            call = call.replace(f"</{name}>", f"</{rng.choice(TOOLS)}>")
        case 4:  # two calls
            call += "\n" + xml_call(rng)
        case _:
            pass
    return call


# --- native calls -------------------------------------------------------------------------------


def native_arguments(rng: random.Random) -> Any:
    """The `arguments` a server sends: usually JSON text, sometimes not even text."""
    match rng.randint(0, 11):
        case 0:
            return json.dumps(params(rng))[: rng.randint(0, 40)]  # cut off
        case 1:
            return rng.choice(("[1, 2]", "5", '"text"', "null", "true", "{", "}", ""))
        case 2:
            depth = rng.choice((100, 5_000, 100_000))
            return '{"path": ' + "[" * depth + "]" * depth + "}"
        case 3:
            return rng.choice((5, [1], {"path": "a.txt"}, None, True))  # not a string at all
        case 4:
            return json.dumps({"content": "y" * rng.choice((100_000, 500_000)), "path": "big.txt"})
        case 5:
            return "{" + ",".join(f'"k{i}": {i}' for i in range(rng.randint(1, 2000))) + "}"
        case _:
            return json.dumps(params(rng))


def native_reply(wire: Wire, rng: random.Random) -> bytes:
    calls: list[bytes] = []
    for index in range(rng.choice((1, 1, 1, 2, 3))):
        name: Any = rng.choice(TOOLS)
        if rng.random() < 0.1:
            name = rng.choice(("x" * 5000, "list_\ud83dfiles", 7, None))
        call_id: Any = f"call_{rng.getrandbits(24):x}"
        if rng.random() < 0.1:
            call_id = rng.choice(("", "c\ud800", "i" * 3000, 9, None))
        where: Any = index if wire != "anthropic" else index + 1
        if rng.random() < 0.03:
            where = rng.choice(("0", -1, 10**9, None))
        calls.append(raw.TOOL_CALL[wire](name, native_arguments(rng), id=call_id, index=where))
    prose = raw.TEXT[wire](text(rng, rng.randint(0, 60))) if rng.random() < 0.4 else b""
    return raw.reply(wire, prose, *calls, stop=raw.TOOL_STOP[wire])


# --- raw stream oddities and HTTP errors --------------------------------------------------------


def stream_oddity(wire: Wire, rng: random.Random) -> Planned:
    good = raw.reply(
        wire, raw.TEXT[wire]("Let me look.\n<list_files>\n<path>.</path>\n</list_files>")
    )
    match rng.randint(0, 11):
        case 0:
            return Planned(stream=raw.START[wire]() + raw.data_line(text(rng, 30)) + good)
        case 1:
            return Planned(
                stream=raw.reply(wire, raw.TEXT[wire](rng.choice((5, [1, 2], {}, True))))
            )
        case 2:
            return Planned(stream=b": keep-alive\n\n" + good.replace(b"\n", b"\r\n"))
        case 3:
            return Planned(stream=good, drop_after=rng.randint(1, max(1, len(good) - 1)))
        case 4:
            return Planned(stream=good[: rng.randint(0, len(good))])  # ends early, cleanly
        case 5:
            return Planned(stream=raw.data_line("[" * 100_000 + "]" * 100_000) + good)
        case 6:
            return Planned(stream=b"event: surprise\ndata: {}\n\n" + good)
        case 7:
            return Planned(stream=b"\xef\xbb\xbf" + good)
        case 8:
            return Planned(stream=raw.data_line(b"\xff\xfe\x00garbage") + good)
        case 9:
            return Planned(stream=b"data: " + b"x" * 2_000_000 + b"\n\n" + good)
        case 10:
            return Planned(stream=good, content_type="text/html")
        case _:
            return Planned(stream=raw.data_line("null") + good)


def http_error(rng: random.Random) -> Planned:
    status = rng.choice((500, 502, 503, 529, 429))  # retried (no retry-after: no waiting)
    match rng.randint(0, 4):
        case 0:
            return Planned(status=status, json_body={"error": {"message": text(rng, 40)}})
        case 1:
            return Planned(status=status, json_body=None)
        case 2:
            page = b"<html><body>Bad gateway</body></html>"
            return Planned(status=status, stream=page, content_type="text/html")
        case 3:
            return Planned(status=status, json_body=[1, 2, {"error": None}])
        case _:
            error = {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}
            return Planned(status=status, json_body=error)


def reply(wire: Wire, native: bool, rng: random.Random) -> tuple[str, bytes | Planned]:
    """One generated reply and its kind (for the report)."""
    roll = rng.random()
    if roll < 0.08:
        return "http error", http_error(rng)
    if roll < 0.2:
        return "stream oddity", stream_oddity(wire, rng)
    if native and roll < 0.75:
        return "native call", native_reply(wire, rng)
    body = xml_call(rng) if rng.random() < 0.85 else text(rng, rng.randint(0, 200))
    return "xml reply", raw.reply(wire, raw.TEXT[wire](body))


Generator = Callable[[Wire, bool, random.Random], tuple[str, bytes | Planned]]
