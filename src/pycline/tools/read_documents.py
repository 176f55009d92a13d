"""Documents read_file turns into text: PDF, Word (.docx) and Jupyter notebooks.

The libraries are imported when a document is read, never at start-up.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pycline.errors import ToolError
from pycline.terminal.cleaning import strip_ansi

# Notebook outputs can be huge (training logs, data frames): the model gets a glimpse.
OUTPUT_LINES = 20
OUTPUT_CHARS = 2000


def converter_for(path: Path) -> Callable[[Path], str] | None:
    return _CONVERTERS.get(path.suffix.lower())


def pdf_to_text(path: Path) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(path)
        if reader.is_encrypted and not reader.decrypt(""):
            raise ToolError(f"{path.name} is a password-protected PDF; its text cannot be read.")
        pages = [
            f"--- Page {number} ---\n{(page.extract_text() or '').strip()}"
            for number, page in enumerate(reader.pages, 1)
        ]
    except (PyPdfError, ValueError, KeyError) as exc:
        raise ToolError(f"{path.name} could not be read as a PDF: {exc}") from exc
    text = "\n\n".join(pages)
    if not any(line.strip() and not line.startswith("--- Page") for line in text.splitlines()):
        text += "\n\n(No text could be extracted: the pages may be scanned images.)"
    return text + "\n"


def docx_to_text(path: Path) -> str:
    from docx import Document
    from docx.opc.exceptions import PackageNotFoundError
    from docx.table import Table

    try:
        document = Document(str(path))
        blocks: list[str] = []
        for block in document.iter_inner_content():
            if isinstance(block, Table):
                blocks.append(_table_text([[c.text for c in row.cells] for row in block.rows]))
            else:
                style = block.style.name if block.style is not None else ""
                blocks.append(_paragraph_prefix(style or "") + block.text)
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise ToolError(f"{path.name} could not be read as a Word document: {exc}") from exc
    return "\n".join(blocks).strip("\n") + "\n"


def _paragraph_prefix(style: str) -> str:
    if style == "Title":
        return "# "
    if style.startswith("Heading "):
        level = style.removeprefix("Heading ").strip()
        return "#" * int(level) + " " if level.isdigit() and 0 < int(level) < 7 else ""
    if style.startswith("List Bullet"):
        return "- "
    if style.startswith("List Number"):
        return "1. "
    return ""


def _table_text(rows: list[list[str]]) -> str:
    if not rows:
        return ""
    lines = ["| " + " | ".join(" ".join(cell.split()) for cell in row) + " |" for row in rows]
    lines.insert(1, "|" + "---|" * len(rows[0]))
    return "\n".join(lines)


def notebook_to_text(path: Path) -> str:
    try:
        notebook = json.loads(path.read_text(encoding="utf-8-sig"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ToolError(f"{path.name} is not a valid notebook (JSON): {exc}") from exc
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise ToolError(f"{path.name} is not a Jupyter notebook: it has no list of cells.")
    language = _notebook_language(notebook)
    parts: list[str] = []
    for number, cell in enumerate(notebook["cells"], 1):
        if not isinstance(cell, dict):
            continue
        kind = str(cell.get("cell_type", "unknown"))
        source = _joined(cell.get("source"))
        if kind == "code":
            part = f"## Cell {number} (code)\n```{language}\n{source.rstrip()}\n```"
            outputs = cell.get("outputs")
            summary = _outputs_text(outputs) if isinstance(outputs, list) else ""
            if summary:
                part += f"\nOutput:\n{summary}"
        else:
            part = f"## Cell {number} ({kind})\n{source.rstrip()}"
        parts.append(part)
    if not parts:
        return "(The notebook has no cells.)\n"
    return "\n\n".join(parts) + "\n"


def _notebook_language(notebook: dict[str, Any]) -> str:
    metadata = notebook.get("metadata")
    if isinstance(metadata, dict):
        for key, field in (("kernelspec", "language"), ("language_info", "name")):
            section = metadata.get(key)
            name = section.get(field) if isinstance(section, dict) else None
            if isinstance(name, str) and name:
                return name
    return "python"


def _joined(value: object) -> str:
    if isinstance(value, list):
        return "".join(str(v) for v in value)
    return "" if value is None else str(value)


def _outputs_text(outputs: list[Any]) -> str:
    texts: list[str] = []
    for output in outputs:
        if not isinstance(output, dict):
            continue
        kind = output.get("output_type")
        if kind == "stream":
            texts.append(_glimpse(_joined(output.get("text"))))
        elif kind in ("execute_result", "display_data"):
            data = output.get("data")
            if isinstance(data, dict):
                texts.append(_rich_output(data))
        elif kind == "error":
            texts.append(f"{output.get('ename', 'Error')}: {output.get('evalue', '')}")
    return strip_ansi("\n".join(t for t in texts if t))


def _rich_output(data: dict[str, Any]) -> str:
    if "text/plain" in data:
        return _glimpse(_joined(data["text/plain"]))
    shown = [kind for kind in data if kind.startswith("image/")] or list(data)
    return ", ".join(f"[{kind} output]" for kind in shown)


def _glimpse(text: str) -> str:
    lines = text.rstrip("\n").split("\n")
    kept = "\n".join(lines[:OUTPUT_LINES])[:OUTPUT_CHARS]
    hidden = len(lines) - kept.count("\n") - 1
    return kept + (f"\n(... {hidden} more lines)" if hidden > 0 else "")


_CONVERTERS: dict[str, Callable[[Path], str]] = {
    ".pdf": pdf_to_text,
    ".docx": docx_to_text,
    ".ipynb": notebook_to_text,
}
