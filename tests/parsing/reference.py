"""A deliberately naive oracle: Cline's parseAssistantMessageV2 rules applied position by position.

At every index it asks "does a known tag end here?", exactly as the rules are stated, with no
cursor, look-back window or incremental bookkeeping. It is slow (it is only for tests) and shares
no code with the streaming parser, so agreement between the two means something.
"""

from __future__ import annotations

from pycline.parsing.blocks import AssistantBlock, TextBlock, ToolUseBlock
from pycline.parsing.vocab import JS_WHITESPACE, PARAM_NAMES, TOOL_NAMES


def _ends_at(s: str, tag: str, i: int) -> bool:
    return i >= len(tag) - 1 and s.startswith(tag, i - len(tag) + 1)


def reference_parse(s: str) -> list[AssistantBlock]:
    out: list[AssistantBlock] = []
    text_start = 0
    tool: ToolUseBlock | None = None
    tool_start = 0
    param: str | None = None
    param_start = 0
    for i in range(len(s)):
        if tool is not None and param is not None:
            close = f"</{param}>"
            if not _ends_at(s, close, i):
                continue
            tool.params[param] = s[param_start : i - len(close) + 1].strip(JS_WHITESPACE)
            param = None
        if tool is not None:
            opened = next((p for p in sorted(PARAM_NAMES) if _ends_at(s, f"<{p}>", i)), None)
            if opened is not None:
                param, param_start = opened, i + 1
                continue
            close = f"</{tool.name}>"
            if _ends_at(s, close, i):
                body = s[tool_start : i - len(close) + 1]
                if tool.name == "write_to_file" and "<content>" in body:
                    a = body.find("<content>")
                    b = body.rfind("</content>")
                    if b > a:
                        tool.params["content"] = body[a + 9 : b].strip(JS_WHITESPACE)
                tool.partial = False
                out.append(tool)
                tool = None
                text_start = i + 1
            continue
        for name in sorted(TOOL_NAMES):
            tag = f"<{name}>"
            if _ends_at(s, tag, i):
                text = s[text_start : i - len(tag) + 1].strip(JS_WHITESPACE)
                if text:
                    out.append(TextBlock(text, partial=False))
                tool, tool_start = ToolUseBlock(name, {}, partial=True), i + 1
                break
    if tool is not None:
        if param is not None:
            tool.params[param] = s[param_start:].strip(JS_WHITESPACE)
        out.append(tool)
    else:
        text = s[text_start:].strip(JS_WHITESPACE)
        if text:
            out.append(TextBlock(text, partial=True))
    return out
