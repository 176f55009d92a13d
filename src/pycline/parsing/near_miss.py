"""Tool calls that nearly follow the format, read the way they were plainly meant, each with the
exact correction to tell the model (small models make these slips all the time; told precisely,
they stop making them).

Only slips with one possible reading are repaired:
- a call written as JSON, the way many models were trained to call tools
  (`<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>`, or the same
  object in a code fence) when the reply has no XML call;
- a parameter under another name (`<file_path>` for `<path>`) when the tool lacks that
  parameter and exactly one known alias of it was given;
- a file's whole content wrapped in a Markdown code fence (not for Markdown files, where a
  fence may be the content);
- a value written bare inside the call, outside any parameter tag
  (`<read_file>\nsrc/app.py\n</read_file>`, or a path before the `<diff>` of a
  `replace_in_file`), when exactly one required parameter is missing (a path only when the value
  is one line, nothing with markup in it).
Anything else is left as it was, and the tool's own checks answer it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from pycline.parsing import json_limits
from pycline.parsing.blocks import ToolUseBlock

# Names a model gives a parameter instead of the real one.
ALIASES: Final[Mapping[str, tuple[str, ...]]] = {
    "path": ("file_path", "filepath", "file", "filename", "file_name", "directory", "dir",
             "folder", "target_file"),
    "content": ("file_content", "contents", "code", "text", "body", "new_content"),
    "command": ("cmd", "shell_command", "bash", "shell", "script"),
    "diff": ("changes", "patch", "edit", "edits", "replacement"),
    "regex": ("pattern", "query", "search", "search_pattern", "regexp"),
    "result": ("summary", "message", "answer", "response", "text"),
    "question": ("query", "text", "message"),
    "response": ("message", "answer", "text", "plan"),
}  # fmt: skip

_TAG: Final = re.compile(r"<([A-Za-z_][\w-]{0,40})>(.*?)</\1>", re.DOTALL)
_JSON_CALL: Final = re.compile(r"<tool_call>\s*(\{.*?\})\s*(?:</tool_call>|$)", re.DOTALL)
_FENCED_JSON: Final = re.compile(r"```(?:json)?\s*\n(\{.*?\})\s*\n```", re.DOTALL)
_FENCE_LINE: Final = re.compile(r"^\s*```[\w+.-]*\s*$")
_MARKDOWN: Final = (".md", ".markdown", ".mdx", ".rst", ".txt")


@dataclass(frozen=True, slots=True)
class Repaired:
    block: ToolUseBlock
    corrections: list[str] = field(default_factory=list)


def json_call(text: str, tools: Sequence[str]) -> Repaired | None:
    """A call written as a JSON object naming one of `tools`, when the reply has no XML call."""
    for pattern in (_JSON_CALL, _FENCED_JSON):
        for found in pattern.finditer(text):
            call = _json_object(found.group(1))
            if call is None:
                continue
            name = call.get("name")
            arguments = call.get("arguments", call.get("parameters", {}))
            if isinstance(arguments, str):
                arguments = _json_object(arguments)
            if not isinstance(name, str) or name not in tools or not isinstance(arguments, dict):
                continue
            params = {
                str(k): v if isinstance(v, str) else json.dumps(v) for k, v in arguments.items()
            }
            block = ToolUseBlock(name, params, partial=False)
            xml = "".join(f"<{k}>…</{k}>" for k in params)
            return Repaired(
                block,
                [
                    f"Note: your tool call was written as JSON; it was read as <{name}>. Write "
                    f"tool calls in XML as the system prompt shows: <{name}>{xml}</{name}>"
                ],
            )
    return None


def _json_object(raw: str) -> dict[str, object] | None:
    try:
        value = json_limits.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def repair_params(
    block: ToolUseBlock,
    raw_text: str,
    expected: Sequence[str],
    required: Sequence[str] = (),
) -> Repaired:
    """`block` with each missing expected parameter taken from its one alias, if given once, or
    with the one `required` parameter taken from a bare value."""
    params = dict(block.params)
    corrections: list[str] = []
    body = _tool_body(raw_text, block.name)
    given = {m.group(1): m.group(2) for m in _TAG.finditer(body)} if body is not None else {}
    bare = _bare_value(body, params, required)
    if bare is not None:
        param = next(name for name in required if not params.get(name, "").strip())
        params[param] = bare
        shown = bare if len(bare) <= 80 and "\n" not in bare else "…"
        corrections.append(
            f"Note: your <{block.name}> call gave a value with no parameter tag; it was read as "
            f"<{param}>. Put every parameter in its own tag: <{param}>{shown}</{param}>"
        )
    for name in expected:
        if params.get(name, "").strip():
            continue
        candidates = [
            a for a in ALIASES.get(name, ()) if a not in expected and (a in params or a in given)
        ]
        if len(candidates) != 1:
            continue
        alias = candidates[0]
        value = params.pop(alias, None)
        params[name] = value if value is not None else given[alias].strip("\n")
        corrections.append(
            f"Note: {block.name} has no parameter <{alias}>; it was read as <{name}>. Use <{name}>."
        )
    if block.name == "write_to_file" and "content" in params:
        content, unwrapped = unfence(params["content"], params.get("path", ""))
        if unwrapped:
            params["content"] = content
            corrections.append(
                "Note: the content was wrapped in a ``` code fence, which was left out of the "
                "file. Send a file's content as it is, without a fence."
            )
    if body is not None and f"</{block.name}>" not in raw_text:
        corrections.append(
            f"Note: your call had no closing </{block.name}> tag; it was read as if closed. "
            "Close every tag."
        )
    return Repaired(ToolUseBlock(block.name, params, partial=False), corrections)


def unfence(content: str, path: str) -> tuple[str, bool]:
    """A whole content in a code fence, unwrapped; Markdown and text files are left alone."""
    if path.lower().endswith(_MARKDOWN):
        return content, False
    lines = content.strip("\n").split("\n")
    if len(lines) < 2 or not _FENCE_LINE.match(lines[0]) or lines[-1].strip() != "```":
        return content, False
    inner = lines[1:-1]
    if any(line.strip().startswith("```") for line in inner):
        return content, False  # fences inside: not one wrapper around the whole
    return "\n".join(inner), True


def _bare_value(body: str | None, params: Mapping[str, str], required: Sequence[str]) -> str | None:
    """The value of the one required parameter missing from a call, written with no tag around
    it (the text of the call outside its tags)."""
    missing = [name for name in required if not params.get(name, "").strip()]
    if body is None or len(missing) != 1:
        return None
    rest = _TAG.sub("", body)
    if "<" in rest:
        return None  # a tag left open, or markup: not one plain value
    value = rest.strip("\n")
    if not value.strip():
        return None
    if missing[0] == "path":
        value = value.strip()
        return None if "\n" in value else value
    return value


def _tool_body(text: str, name: str) -> str | None:
    start = text.find(f"<{name}>")
    if start == -1:
        return None
    start += len(name) + 2
    end = text.find(f"</{name}>", start)
    return text[start:] if end == -1 else text[start:end]
