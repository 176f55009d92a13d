"""Typed conversation content: what the model sees, and the UI message log the user sees.

The API history is stored in Anthropic's content-block shape (SPEC §9) so that task folders stay
readable by tools that know Cline's format.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias


@dataclass(frozen=True, slots=True)
class TextContent:
    """Text; with `tool_use_id` it is the result of that native tool call (a `tool_result`)."""

    text: str
    tool_use_id: str | None = None
    kind: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class ImageContent:
    media_type: str
    data_b64: str
    kind: Literal["image"] = "image"

    @property
    def data_url(self) -> str:
        return f"data:{self.media_type};base64,{self.data_b64}"

    @classmethod
    def from_data_url(cls, url: str) -> ImageContent | None:
        """`data:image/png;base64,…` as an image; None when it is not a base64 image URL."""
        head, sep, data = url.partition(",")
        media = head.removeprefix("data:").removesuffix(";base64")
        if not (sep and head.startswith("data:image/") and head.endswith(";base64")):
            return None
        try:
            base64.b64decode(data, validate=True)
        except ValueError:  # binascii.Error: not base64
            return None
        return cls(media, data)


@dataclass(frozen=True, slots=True)
class ToolUseContent:
    """A native tool call in an assistant turn, kept in the provider-neutral Anthropic shape."""

    id: str
    name: str
    params: tuple[tuple[str, str], ...]
    kind: Literal["tool_use"] = "tool_use"

    @property
    def text(self) -> str:
        """The call written as an XML tool call: how it reads to a model without native tools."""
        body = "".join(f"<{k}>{v}</{k}>\n" for k, v in self.params)
        return f"<{self.name}>\n{body}</{self.name}>"


Content: TypeAlias = TextContent | ImageContent | ToolUseContent
Role: TypeAlias = Literal["user", "assistant"]


@dataclass(frozen=True, slots=True)
class Message:
    role: Role
    content: tuple[Content, ...]
    ts: float | None = None

    @staticmethod
    def user(
        text: str, *, images: tuple[ImageContent, ...] = (), ts: float | None = None
    ) -> Message:
        return Message("user", (TextContent(text), *images), ts)

    @staticmethod
    def assistant(text: str, *, ts: float | None = None) -> Message:
        return Message("assistant", (TextContent(text),), ts)

    @property
    def text(self) -> str:
        return "\n".join(c.text for c in self.content if isinstance(c, TextContent))

    def to_json(self) -> dict[str, Any]:
        blocks: list[dict[str, Any]] = []
        for c in self.content:
            if isinstance(c, TextContent) and c.tool_use_id is not None:
                blocks.append(
                    {
                        "type": "tool_result",
                        "tool_use_id": c.tool_use_id,
                        "content": [{"type": "text", "text": c.text}],
                    }
                )
            elif isinstance(c, TextContent):
                blocks.append({"type": "text", "text": c.text})
            elif isinstance(c, ToolUseContent):
                blocks.append(
                    {"type": "tool_use", "id": c.id, "name": c.name, "input": dict(c.params)}
                )
            else:
                blocks.append(
                    {
                        "type": "image",
                        "source": {
                            "type": "base64",
                            "media_type": c.media_type,
                            "data": c.data_b64,
                        },
                    }
                )
        out: dict[str, Any] = {"role": self.role, "content": blocks}
        if self.ts is not None:
            out["ts"] = self.ts
        return out

    @staticmethod
    def from_json(data: dict[str, Any]) -> Message:
        role = data["role"]
        if role not in ("user", "assistant"):
            raise ValueError(f"unknown role {role!r}")
        raw = data["content"]
        content: list[Content] = []
        if isinstance(raw, str):
            content.append(TextContent(raw))
        else:
            for block in raw:
                if block.get("type") == "text":
                    content.append(TextContent(str(block["text"])))
                elif block.get("type") == "image":
                    src = block["source"]
                    content.append(ImageContent(str(src["media_type"]), str(src["data"])))
                elif block.get("type") == "tool_use":
                    raw_input = block.get("input")
                    params = raw_input if isinstance(raw_input, dict) else {}
                    content.append(
                        ToolUseContent(
                            str(block["id"]),
                            str(block["name"]),
                            tuple((str(k), str(v)) for k, v in params.items()),
                        )
                    )
                elif block.get("type") == "tool_result":
                    content.append(
                        TextContent(_result_text(block.get("content")), str(block["tool_use_id"]))
                    )
        ts = data.get("ts")
        return Message(role, tuple(content), float(ts) if ts is not None else None)


def _result_text(raw: Any) -> str:
    if isinstance(raw, str):
        return raw
    if isinstance(raw, list):
        return "\n".join(
            str(b.get("text", "")) for b in raw if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


UiType: TypeAlias = Literal["ask", "say"]


@dataclass(slots=True)
class UiMessage:
    """One entry of `ui_messages.json` (Cline's ClineMessage shape)."""

    ts: float
    type: UiType
    kind: str  # the `ask` or `say` value: "text", "tool", "command", "completion_result", ...
    text: str = ""
    partial: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ts": self.ts,
            "type": self.type,
            self.type: self.kind,
            "text": self.text,
        }
        if self.partial:
            out["partial"] = True
        out.update(self.extra)
        return out

    @staticmethod
    def from_json(data: dict[str, Any]) -> UiMessage:
        typ = data["type"]
        if typ not in ("ask", "say"):
            raise ValueError(f"unknown ui message type {typ!r}")
        known = {"ts", "type", "ask", "say", "text", "partial"}
        return UiMessage(
            ts=float(data["ts"]),
            type=typ,
            kind=str(data.get(typ, "")),
            text=str(data.get("text", "")),
            partial=bool(data.get("partial", False)),
            extra={k: v for k, v in data.items() if k not in known},
        )
