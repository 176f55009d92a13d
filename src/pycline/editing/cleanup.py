"""Cleaning what a model sends as file content, and spotting content it left out."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath

_FENCE_OPEN = re.compile(r"^\s*(`{3,}|~{3,})[\w+#.-]*\s*$")
_FENCE_CLOSE = re.compile(r"^\s*(`{3,}|~{3,})\s*$")
_MARKDOWN = {".md", ".mdx", ".markdown", ".rst", ".txt"}
_ENTITIES = {"&gt;": ">", "&lt;": "<", "&quot;": '"', "&amp;": "&", "&apos;": "'"}
_ENTITY = re.compile("|".join(map(re.escape, _ENTITIES)))


def unescape_html(text: str) -> str:
    """One pass, so `&amp;lt;` becomes `&lt;` (what the model meant), not `<`."""
    return _ENTITY.sub(lambda m: _ENTITIES[m.group(0)], text)


def model_text(text: str, path: str, model_family: str) -> str:
    """SPEC §3: non-Claude models' edit text is HTML-un-escaped (not for .xml) and loses U+FFFD."""
    if model_family == "claude":
        return text
    if PurePath(path).suffix.lower() != ".xml":
        text = unescape_html(text)
    return text.replace("\ufffd", "")


def strip_fences(content: str, path: str) -> str:
    """Drop the ``` lines a model wrapped around file content.

    In Markdown a file may really start or end with a fence, so there only a wrapping pair with
    no other fence between them is removed; elsewhere a lone leading or trailing fence line
    cannot be content and goes too (Cline's rule).
    """
    lines = content.split("\n")
    if not lines:
        return content
    opens = bool(_FENCE_OPEN.match(lines[0]))
    closes = len(lines) > 1 and bool(_FENCE_CLOSE.match(lines[-1]))
    if PurePath(path).suffix.lower() in _MARKDOWN:
        inner = lines[1:-1]
        if opens and closes and not any(_FENCE_OPEN.match(line) for line in inner):
            return "\n".join(inner)
        return content
    if opens:
        lines = lines[1:]
    if len(lines) > 0 and _FENCE_CLOSE.match(lines[-1]):
        lines = lines[:-1]
    return "\n".join(lines)


def clean_write_content(content: str, path: str, model_family: str) -> str:
    return strip_fences(model_text(content, path, model_family), path)


# A comment standing in for code the model did not write out.
_COMMENT = r"(?://|#|/\*|<!--|--|;)"
_PLACEHOLDER = re.compile(
    rf"^\s*{_COMMENT}\s*(?:\.\.\.|…)?\s*(?:"
    r"(?:the\s+)?rest\s+of\b|"
    r"(?:remaining|other|existing|previous|original)\s+(?:code|content|methods|functions|"
    r"implementation|lines|tests|sections|items|properties|fields|imports|file)\b|"
    r"(?:code|content|implementation|everything)\s+(?:remains\s+)?(?:unchanged|the\s+same|as\s+before)\b|"
    r"unchanged\b|same\s+as\s+before\b|"
    r"\.\.\.\s*$|…\s*$"
    r")",
    re.IGNORECASE,
)


_COMMENT_MARKS = re.compile(r"//|/\*|\*/|<!--|-->|#|--|;")


def _bare_ellipsis(line: str) -> bool:
    """`...`, `// ...`, `/* ... */`, `<!-- … -->`: nothing but an ellipsis in a comment."""
    return _COMMENT_MARKS.sub("", line).strip() in ("...", "…")


@dataclass(frozen=True, slots=True)
class Placeholder:
    line: int  # 1-based
    text: str


def omission_placeholders(new: str, old: str = "") -> list[Placeholder]:
    """Comment lines like `// rest of code unchanged` that the new content adds."""
    before = {line.strip() for line in old.split("\n")}
    found: list[Placeholder] = []
    for number, line in enumerate(new.split("\n"), start=1):
        if line.strip() in before:
            continue
        if _PLACEHOLDER.match(line) or _bare_ellipsis(line):
            found.append(Placeholder(number, line.strip()))
    return found


def truncation_warning(placeholders: list[Placeholder]) -> str:
    if not placeholders:
        return ""
    shown = "; ".join(f"line {p.line}: {p.text}" for p in placeholders[:5])
    return (
        "Warning: the new content looks truncated. It contains placeholder comments instead of "
        f"code ({shown}). write_to_file replaces the whole file, so anything such a comment stands "
        "for is now gone. If that was not intended, restore the missing parts: write the complete "
        "file, or use replace_in_file for targeted changes."
    )
