"""Typed conversation content: what the model sees, and the UI message log the user sees.

The API history is stored in Anthropic's content-block shape (SPEC §9) so that task folders stay
readable by tools that know Cline's format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias


@dataclass(frozen=True, slots=True)
class TextContent:
    text: str
    kind: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class ImageContent:
    media_type: str
    data_b64: str
    kind: Literal["image"] = "image"


Content: TypeAlias = TextContent | ImageContent
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
            if isinstance(c, TextContent):
                blocks.append({"type": "text", "text": c.text})
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
        ts = data.get("ts")
        return Message(role, tuple(content), float(ts) if ts is not None else None)


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
