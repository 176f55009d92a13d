"""Blocks in the conformance data's JSON shape, so failures read like the recorded cases."""

from __future__ import annotations

from typing import Any

from pycline.parsing.blocks import AssistantBlock, TextBlock


def as_json(blocks: list[AssistantBlock]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for b in blocks:
        if isinstance(b, TextBlock):
            out.append({"type": "text", "content": b.content, "partial": b.partial})
        else:
            out.append(
                {"type": "tool_use", "name": b.name, "params": dict(b.params), "partial": b.partial}
            )
    return out
