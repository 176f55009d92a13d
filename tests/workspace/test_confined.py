"""The one reader for files pycline opens on its own: regular files only, bounded, resolved."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pycline.workspace.confined import NotReadable, read_file, read_json, read_text


def test_a_regular_file_is_read_up_to_the_bound(tmp_path: Path) -> None:
    file = tmp_path / "a.txt"
    file.write_bytes(b"x" * 100)
    assert read_file(file, 10) == b"x" * 10
    assert read_file(file, 100, whole=True) == b"x" * 100
    with pytest.raises(NotReadable, match="larger than"):
        read_file(file, 99, whole=True)
    assert read_text(file, 5) == "xxxxx"


@pytest.mark.parametrize("kind", ["fifo", "device link", "proc link", "directory"])
def test_what_is_not_a_regular_file_is_refused_without_blocking(tmp_path: Path, kind: str) -> None:
    file = tmp_path / "special"
    match kind:
        case "fifo":
            os.mkfifo(file)
        case "device link":
            file.symlink_to("/dev/zero")
        case "proc link":
            file.symlink_to("/proc/self/environ")
        case "directory":
            file.mkdir()
    with pytest.raises(OSError):
        read_file(file, 1_000_000)


def test_with_a_root_a_file_resolving_outside_it_is_refused(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside.txt"
    root.mkdir()
    outside.write_text("secret", encoding="utf-8")
    (root / "link").symlink_to(outside)
    with pytest.raises(NotReadable, match="outside"):
        read_file(root / "link", 100, root=root)
    assert read_file(root / "link", 100) == b"secret"  # no root: only the kind of file counts


def test_json_is_read_whole_and_bounded_in_depth(tmp_path: Path) -> None:
    file = tmp_path / "s.json"
    file.write_text('{"a": [1]}', encoding="utf-8")
    assert read_json(file, 100) == {"a": [1]}
    file.write_text('{"a": ' + "[" * 100 + "]" * 100 + "}", encoding="utf-8")
    with pytest.raises(ValueError, match="nested deeper"):
        read_json(file, 10_000)
    with pytest.raises(FileNotFoundError):
        read_json(tmp_path / "missing.json", 100)
