"""A prompt's content blocks as what a task takes: text (with @-mentions) and images."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from pycline.messages import ImageContent

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


@dataclass(frozen=True, slots=True)
class UserInput:
    text: str
    images: tuple[ImageContent, ...] = ()


def user_input(blocks: Sequence[Any], root: Path) -> UserInput:
    """Text blocks in order; a linked workspace file becomes an @-mention (the task reads it);
    an embedded resource (an editor buffer, a selection) is included as it was sent."""
    parts: list[str] = []
    images: list[ImageContent] = []
    for block in blocks:
        match block.type:
            case "text":
                parts.append(block.text)
            case "image":
                if block.mime_type in IMAGE_TYPES:
                    images.append(ImageContent(block.mime_type, block.data))
                else:
                    parts.append(f"[an image of type {block.mime_type} was left out]")
            case "resource_link":
                parts.append(_link(block.uri, block.name, root))
            case "resource":
                resource = block.resource
                text = getattr(resource, "text", None)
                mime = resource.mime_type or ""
                if text is not None:
                    parts.append(_embedded(resource.uri, text, root))
                elif mime in IMAGE_TYPES:
                    images.append(ImageContent(mime, resource.blob))
                else:
                    parts.append(f"[{_display(resource.uri, root)}: binary content left out]")
            case _:
                parts.append(f"[{block.type} content is not supported and was left out]")
    return UserInput("\n".join(p for p in parts if p), tuple(images))


def _file_path(uri: str) -> Path | None:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(unquote(parsed.path))


def _display(uri: str, root: Path) -> str:
    path = _file_path(uri)
    if path is None:
        return uri
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _link(uri: str, name: str, root: Path) -> str:
    path = _file_path(uri)
    if path is not None:
        try:
            relative = path.resolve().relative_to(root).as_posix()
        except ValueError:
            return f"{name} ({path})"
        return f'@"/{relative}"' if " " in relative else f"@/{relative}"
    return f"{name} ({uri})"


def _embedded(uri: str, text: str, root: Path) -> str:
    where = _display(uri, root)
    return f'<file_content path="{where}">\n{text}\n</file_content>'
