"""Atomic writes: a new file, a replaced file, the mode asked for, with unnamed temp files and
without (where the file system has none)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from pycline.storage import atomic
from pycline.storage.atomic import atomic_write_bytes


@pytest.mark.parametrize("unnamed", [True, False])
def test_new_and_replaced_files_are_whole_with_the_mode_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unnamed: bool
) -> None:
    if not unnamed:
        monkeypatch.setattr(atomic, "_unnamed_file", lambda folder: None)
    target = tmp_path / "deep" / "a.txt"
    atomic_write_bytes(target, b"one\n", mode=0o640)
    assert target.read_bytes() == b"one\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    atomic_write_bytes(target, b"two\n" * 1000)
    assert target.read_bytes() == b"two\n" * 1000
    assert stat.S_IMODE(target.stat().st_mode) == 0o600  # no mode given: private
    assert sorted(p.name for p in target.parent.iterdir()) == ["a.txt"]


def test_a_symlink_in_the_way_is_replaced_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_bytes(b"keep\n")
    link = tmp_path / "link.txt"
    link.symlink_to(elsewhere)
    atomic_write_bytes(link, b"new\n")
    assert not link.is_symlink() and link.read_bytes() == b"new\n"
    assert elsewhere.read_bytes() == b"keep\n"
