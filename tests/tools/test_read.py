from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path

import pytest

from pycline.errors import ToolError
from pycline.tools.base import ToolCall
from pycline.tools.read import PAGE_CHARS, PAGE_LINES, ReadFileTool
from tests.tools.readcmd_support import FakeAccess, make_ctx


def call(path: str, **params: str) -> ToolCall:
    return ToolCall("read_file", {"path": path, **params})


def numbered(count: int) -> str:
    return "".join(f"line {i}\n" for i in range(1, count + 1))


def tiny_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


async def test_whole_text_file_comes_back_as_is(workspace: Path) -> None:
    (workspace / "a.py").write_text("print('hi')\n\n# end\n", encoding="utf-8")
    ctx, rec = make_ctx(workspace)
    result = await ReadFileTool().run(call("a.py"), ctx)
    assert result.text == "print('hi')\n\n# end\n"
    ((question, category, outside),) = rec.approvals
    assert category == "read" and not outside and question.tool == "read_file"


async def test_line_range_has_a_header(workspace: Path) -> None:
    (workspace / "a.txt").write_text(numbered(5), encoding="utf-8")
    ctx, _ = make_ctx(workspace)
    result = await ReadFileTool().run(call("a.txt", start_line="2", end_line="3"), ctx)
    assert result.text == "Lines 2-3 of 5:\nline 2\nline 3\n"


async def test_open_ended_ranges(workspace: Path) -> None:
    (workspace / "a.txt").write_text(numbered(5), encoding="utf-8")
    ctx, _ = make_ctx(workspace)
    tail = await ReadFileTool().run(call("a.txt", start_line="4"), ctx)
    head = await ReadFileTool().run(call("a.txt", end_line="2"), ctx)
    past = await ReadFileTool().run(call("a.txt", start_line="3", end_line="99"), ctx)
    assert tail.text == "Lines 4-5 of 5:\nline 4\nline 5\n"
    assert head.text == "Lines 1-2 of 5:\nline 1\nline 2\n"
    assert past.text == "Lines 3-5 of 5:\nline 3\nline 4\nline 5\n"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"start_line": "9"}, "past the end of the file \\(5 lines\\)"),
        ({"start_line": "x"}, "start_line must be a line number"),
        ({"start_line": "0"}, "1 or more"),
        ({"start_line": "4", "end_line": "2"}, "before start_line"),
    ],
)
async def test_bad_ranges_are_tool_errors(
    workspace: Path, params: dict[str, str], message: str
) -> None:
    (workspace / "a.txt").write_text(numbered(5), encoding="utf-8")
    ctx, _ = make_ctx(workspace)
    with pytest.raises(ToolError, match=message):
        await ReadFileTool().run(call("a.txt", **params), ctx)


async def test_large_file_returns_the_first_page_and_how_to_go_on(workspace: Path) -> None:
    (workspace / "big.log").write_text(numbered(2500), encoding="utf-8")
    ctx, _ = make_ctx(workspace)
    result = await ReadFileTool().run(call("big.log"), ctx)
    assert result.text.startswith(f"Lines 1-{PAGE_LINES} of 2500:\nline 1\n")
    assert f"line {PAGE_LINES}\n" in result.text and f"line {PAGE_LINES + 1}\n" not in result.text
    assert result.text.endswith(f"start_line={PAGE_LINES + 1} end_line={2 * PAGE_LINES}.]")
    second = await ReadFileTool().run(call("big.log", start_line=str(PAGE_LINES + 1)), ctx)
    assert second.text.startswith(f"Lines {PAGE_LINES + 1}-{2 * PAGE_LINES} of 2500:")


async def test_large_file_is_paged_by_size_too(workspace: Path) -> None:
    line = "y" * 999 + "\n"
    (workspace / "wide.txt").write_text(line * 300, encoding="utf-8")
    ctx, _ = make_ctx(workspace)
    result = await ReadFileTool().run(call("wide.txt"), ctx)
    shown = PAGE_CHARS // len(line)
    assert result.text.startswith(f"Lines 1-{shown} of 300:\n")
    assert len(result.text) < PAGE_CHARS + 500


async def test_one_enormous_line_is_cut(workspace: Path) -> None:
    (workspace / "min.js").write_text("z" * (PAGE_CHARS * 3), encoding="utf-8")
    ctx, _ = make_ctx(workspace)
    result = await ReadFileTool().run(call("min.js"), ctx)
    assert result.text.startswith("Lines 1-1 of 1:\n")
    assert "only its start is shown" in result.text
    assert len(result.text) < PAGE_CHARS + 500


async def test_empty_file_says_so(workspace: Path) -> None:
    (workspace / "empty.txt").write_text("", encoding="utf-8")
    ctx, _ = make_ctx(workspace)
    assert (await ReadFileTool().run(call("empty.txt"), ctx)).text == "(The file is empty.)"


async def test_binary_file_is_refused(workspace: Path) -> None:
    (workspace / "prog.bin").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4)
    ctx, _ = make_ctx(workspace)
    with pytest.raises(ToolError, match="binary file"):
        await ReadFileTool().run(call("prog.bin"), ctx)


async def test_undecodable_noise_without_nul_is_refused(workspace: Path) -> None:
    noise = bytes((i * 37 + 11) % 255 + 1 for i in range(4000))
    (workspace / "noise.dat").write_bytes(noise)
    ctx, _ = make_ctx(workspace)
    with pytest.raises(ToolError, match="binary file"):
        await ReadFileTool().run(call("noise.dat"), ctx)


async def test_legacy_8_bit_text_is_decoded(workspace: Path) -> None:
    (workspace / "old.txt").write_bytes("café crème – 10 €\n".encode("cp1252"))
    ctx, _ = make_ctx(workspace)
    assert (await ReadFileTool().run(call("old.txt"), ctx)).text == "café crème – 10 €\n"


async def test_byte_order_marks_are_honoured(workspace: Path) -> None:
    (workspace / "bom8.txt").write_bytes("\ufeffhello\n".encode())
    (workspace / "bom16.txt").write_text("wide ☃\n", encoding="utf-16")
    ctx, _ = make_ctx(workspace)
    assert (await ReadFileTool().run(call("bom8.txt"), ctx)).text == "hello\n"
    assert (await ReadFileTool().run(call("bom16.txt"), ctx)).text == "wide ☃\n"


async def test_missing_file_suggests_list_files(workspace: Path) -> None:
    ctx, rec = make_ctx(workspace)
    with pytest.raises(ToolError, match=r"File not found: nope\.txt.*list_files"):
        await ReadFileTool().run(call("nope.txt"), ctx)
    assert rec.approvals == []


async def test_a_missing_file_names_the_files_it_may_mean_but_never_a_hidden_one(
    workspace: Path,
) -> None:
    # What Qwen2.5-Coder 1.5B did on a real task: `src/numbers.go` for `numbers.go`, three times.
    (workspace / "numbers.go").write_text("package numbers\n")
    (workspace / "cmd").mkdir()
    (workspace / "cmd" / "numbers.go").write_text("package main\n")
    (workspace / "secret").mkdir()
    (workspace / "secret" / "numbers.go").write_text("key\n")
    (workspace / "stats.py").write_text("x = 1\n")
    access = FakeAccess(hidden={(workspace / "secret").resolve()})
    ctx, _ = make_ctx(workspace, access=access)
    with pytest.raises(ToolError) as raised:
        await ReadFileTool().run(call("src/numbers.go"), ctx)
    told = str(raised.value)
    assert "Did you mean numbers.go or cmd/numbers.go?" in told
    assert "secret" not in told
    # No file of that name: a close spelling of the path.
    with pytest.raises(ToolError, match=r"Did you mean stats\.py\?"):
        await ReadFileTool().run(call("stat.py"), ctx)
    # Nothing close: the plain advice.
    with pytest.raises(ToolError, match=r"File not found: zzz/qqq\.rs\. Check the path"):
        await ReadFileTool().run(call("zzz/qqq.rs"), ctx)


async def test_directory_suggests_list_files(workspace: Path) -> None:
    (workspace / "src").mkdir()
    ctx, _ = make_ctx(workspace)
    with pytest.raises(ToolError, match=r"src is a directory.*list_files"):
        await ReadFileTool().run(call("src"), ctx)


async def test_blocked_path_is_refused_without_asking(workspace: Path) -> None:
    secret = workspace / ".env"
    secret.write_text("KEY=1\n", encoding="utf-8")
    ctx, rec = make_ctx(workspace, access=FakeAccess(hidden={secret.resolve()}))
    with pytest.raises(ToolError, match=r"\.clineignore"):
        await ReadFileTool().run(call(".env"), ctx)
    assert rec.approvals == []


async def test_denied_read_returns_feedback(workspace: Path) -> None:
    (workspace / "a.txt").write_text("secret\n", encoding="utf-8")
    ctx, _ = make_ctx(workspace, approve=False, feedback="read b.txt instead")
    result = await ReadFileTool().run(call("a.txt"), ctx)
    assert result.denied and "secret" not in result.text
    assert result.text.startswith("The user denied this operation.")
    assert "read b.txt instead" in result.text


async def test_file_outside_the_workspace_is_flagged_for_approval(
    workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("far away\n", encoding="utf-8")
    ctx, rec = make_ctx(workspace)
    result = await ReadFileTool().run(call(str(outside)), ctx)
    assert result.text == "far away\n"
    ((question, category, flagged),) = rec.approvals
    assert category == "read" and flagged and question.outside_workspace


async def test_image_is_attached_for_a_vision_model(workspace: Path) -> None:
    data = tiny_png()
    (workspace / "dot.png").write_bytes(data)
    ctx, _ = make_ctx(workspace, supports_images=True)
    result = await ReadFileTool().run(call("dot.png"), ctx)
    (image,) = result.images
    assert image.media_type == "image/png"
    assert base64.b64decode(image.data_b64) == data
    assert "dot.png" in result.text


async def test_image_type_comes_from_the_content(workspace: Path) -> None:
    (workspace / "really-png.jpg").write_bytes(tiny_png())
    ctx, _ = make_ctx(workspace, supports_images=True)
    result = await ReadFileTool().run(call("really-png.jpg"), ctx)
    assert result.images[0].media_type == "image/png"


async def test_image_without_vision_explains_it_cannot_be_seen(workspace: Path) -> None:
    (workspace / "dot.png").write_bytes(tiny_png())
    ctx, _ = make_ctx(workspace, supports_images=False)
    result = await ReadFileTool().run(call("dot.png"), ctx)
    assert result.images == ()
    assert "cannot see images" in result.text


async def test_broken_image_is_a_tool_error(workspace: Path) -> None:
    (workspace / "fake.png").write_text("not an image", encoding="utf-8")
    ctx, _ = make_ctx(workspace, supports_images=True)
    with pytest.raises(ToolError, match="not a valid"):
        await ReadFileTool().run(call("fake.png"), ctx)


async def test_missing_path_parameter(workspace: Path) -> None:
    ctx, _ = make_ctx(workspace)
    with pytest.raises(ToolError, match="path"):
        await ReadFileTool().run(ToolCall("read_file", {}), ctx)


def test_summary_names_the_path() -> None:
    assert ReadFileTool().summary(call("src/a.py")) == "read_file for 'src/a.py'"
