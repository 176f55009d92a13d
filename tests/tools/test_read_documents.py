from __future__ import annotations

import json
from pathlib import Path

import pytest

from pycline.errors import ToolError
from pycline.tools.base import ToolCall
from pycline.tools.read import ReadFileTool
from tests.tools.readcmd_support import make_ctx


def call(path: str, **params: str) -> ToolCall:
    return ToolCall("read_file", {"path": path, **params})


def make_pdf(path: Path, pages: list[str]) -> None:
    from pypdf import PdfWriter
    from pypdf.generic import ContentStream, DictionaryObject, NameObject

    writer = PdfWriter()
    for text in pages:
        page = writer.add_blank_page(612, 792)
        font = DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
        content = ContentStream(None, writer)
        content.set_data(f"BT /F1 18 Tf 72 700 Td ({text}) Tj ET".encode("latin-1"))
        page.replace_contents(content)
    writer.write(path)


async def test_pdf_text_is_extracted_page_by_page(workspace: Path) -> None:
    make_pdf(workspace / "report.pdf", ["Quarterly results", "Outlook is bright"])
    ctx, _ = make_ctx(workspace)
    result = await ReadFileTool().run(call("report.pdf"), ctx)
    assert result.text == (
        "--- Page 1 ---\nQuarterly results\n\n--- Page 2 ---\nOutlook is bright\n"
    )


async def test_pdf_without_text_says_so(workspace: Path) -> None:
    make_pdf(workspace / "scan.pdf", [""])
    ctx, _ = make_ctx(workspace)
    result = await ReadFileTool().run(call("scan.pdf"), ctx)
    assert "No text could be extracted" in result.text


async def test_corrupt_pdf_is_a_tool_error(workspace: Path) -> None:
    (workspace / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not really a pdf")
    ctx, _ = make_ctx(workspace)
    with pytest.raises(ToolError, match="could not be read as a PDF"):
        await ReadFileTool().run(call("broken.pdf"), ctx)


async def test_docx_paragraphs_headings_lists_and_tables(workspace: Path) -> None:
    from docx import Document

    doc = Document()
    doc.add_heading("Design notes", level=1)
    doc.add_paragraph("The cache is shared.")
    doc.add_paragraph("first point", style="List Bullet")
    table = doc.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "name", "size"
    table.cell(1, 0).text, table.cell(1, 1).text = "cache", "2 GB"
    doc.add_paragraph("After the table.")
    doc.save(str(workspace / "notes.docx"))
    ctx, _ = make_ctx(workspace)
    result = await ReadFileTool().run(call("notes.docx"), ctx)
    assert result.text == (
        "# Design notes\nThe cache is shared.\n- first point\n"
        "| name | size |\n|---|---|\n| cache | 2 GB |\nAfter the table.\n"
    )


async def test_corrupt_docx_is_a_tool_error(workspace: Path) -> None:
    (workspace / "bad.docx").write_bytes(b"PK\x03\x04 not a zip really")
    ctx, _ = make_ctx(workspace)
    with pytest.raises(ToolError, match="Word document"):
        await ReadFileTool().run(call("bad.docx"), ctx)


def notebook(cells: list[dict[str, object]]) -> str:
    return json.dumps(
        {
            "cells": cells,
            "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


async def test_notebook_cells_are_text_and_outputs_summarised(workspace: Path) -> None:
    long_stream = [f"epoch {i}\n" for i in range(50)]
    cells: list[dict[str, object]] = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Analysis\n", "Load the data."]},
        {
            "cell_type": "code",
            "metadata": {},
            "execution_count": 1,
            "source": "import pandas as pd\ndf = pd.read_csv('x.csv')",
            "outputs": [
                {"output_type": "stream", "name": "stdout", "text": long_stream},
                {
                    "output_type": "display_data",
                    "metadata": {},
                    "data": {"image/png": "iVBORw0KGgo=", "text/html": "<b>x</b>"},
                },
                {
                    "output_type": "execute_result",
                    "execution_count": 1,
                    "metadata": {},
                    "data": {"text/plain": ["   a  b\n", "0  1  2"]},
                },
                {
                    "output_type": "error",
                    "ename": "KeyError",
                    "evalue": "\x1b[31m'missing'\x1b[0m",
                    "traceback": ["\x1b[31mlong traceback\x1b[0m"],
                },
            ],
        },
    ]
    (workspace / "analysis.ipynb").write_text(notebook(cells), encoding="utf-8")
    ctx, _ = make_ctx(workspace)
    text = (await ReadFileTool().run(call("analysis.ipynb"), ctx)).text
    assert text.startswith("## Cell 1 (markdown)\n# Analysis\nLoad the data.\n\n## Cell 2 (code)\n")
    assert "```python\nimport pandas as pd\ndf = pd.read_csv('x.csv')\n```\nOutput:\n" in text
    assert "epoch 19\n(... 30 more lines)" in text and "epoch 20" not in text
    assert "[image/png output]" in text and "<b>x</b>" not in text
    assert "   a  b\n0  1  2" in text
    assert "KeyError: 'missing'" in text and "long traceback" not in text and "\x1b" not in text


async def test_notebook_range_reads_part_of_the_converted_text(workspace: Path) -> None:
    cells: list[dict[str, object]] = [
        {"cell_type": "markdown", "metadata": {}, "source": f"note {i}"} for i in range(5)
    ]
    (workspace / "n.ipynb").write_text(notebook(cells), encoding="utf-8")
    ctx, _ = make_ctx(workspace)
    result = await ReadFileTool().run(call("n.ipynb", start_line="4", end_line="5"), ctx)
    assert result.text.startswith("Lines 4-5 of 14:\n## Cell 2 (markdown)\nnote 1\n")


async def test_invalid_notebook_is_a_tool_error(workspace: Path) -> None:
    (workspace / "bad.ipynb").write_text("{not json", encoding="utf-8")
    (workspace / "odd.ipynb").write_text('{"cells": 3}', encoding="utf-8")
    ctx, _ = make_ctx(workspace)
    with pytest.raises(ToolError, match="not a valid notebook"):
        await ReadFileTool().run(call("bad.ipynb"), ctx)
    with pytest.raises(ToolError, match="no list of cells"):
        await ReadFileTool().run(call("odd.ipynb"), ctx)
