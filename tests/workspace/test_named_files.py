"""The files a user's words name: by path, or by a name only one workspace file has; never one
the model may not see, one outside the workspace, or one too big to show whole."""

from __future__ import annotations

import os
from pathlib import Path

from pycline.workspace.ignore import IgnoreRules
from pycline.workspace.named_files import MAX_BYTES, MAX_FILES, attachment, named_files

from .helpers import write


def names(text: str, root: Path) -> list[str]:
    return named_files(text, root, IgnoreRules.load(root))


def test_paths_and_unique_names_are_found_in_the_order_written(workspace: Path) -> None:
    write(workspace, "numbers.go", "package x\n")
    write(workspace, "inventory/cart.py", "class Cart: ...\n")
    write(workspace, "src/time.ts", "export {}\n")
    text = "Fix parseDuration in src/time.ts (see numbers.go, and cart.py: the Cart class)."
    assert names(text, workspace) == ["src/time.ts", "numbers.go", "inventory/cart.py"]
    assert names("./numbers.go is wrong", workspace) == ["numbers.go"]


def test_a_name_many_files_have_a_missing_file_and_plain_words_name_nothing(
    workspace: Path,
) -> None:
    write(workspace, "a/util.py", "x = 1\n")
    write(workspace, "b/util.py", "x = 2\n")
    write(workspace, "README", "no extension\n")
    assert names("util.py is broken; see missing.py, e.g. the README", workspace) == []


def test_ignored_too_big_and_outside_files_are_not_shown(workspace: Path, tmp_path: Path) -> None:
    write(workspace, ".clineignore", "secrets.env\n")
    write(workspace, "secrets.env", "KEY=1\n")
    write(workspace, "big.txt", "x" * (MAX_BYTES + 1))
    outside = tmp_path / "outside"
    outside.mkdir()
    write(outside, "id_rsa.pem", "PRIVATE\n")
    os.symlink(outside / "id_rsa.pem", workspace / "key.pem")
    os.symlink(outside, workspace / "linked")
    text = "Use secrets.env, big.txt, key.pem, linked/id_rsa.pem and ../outside/id_rsa.pem"
    assert names(text, workspace) == []


def test_a_mention_is_left_to_the_mention_and_at_most_three_files_are_named(
    workspace: Path,
) -> None:
    for n in range(5):
        write(workspace, f"f{n}.py", f"n = {n}\n")
    assert names("see @/f0.py", workspace) == []
    assert len(names("f0.py f1.py f2.py f3.py f4.py f0.py", workspace)) == MAX_FILES


def test_the_attachment_shows_each_file_as_a_mention_does(workspace: Path) -> None:
    write(workspace, "numbers.go", "package x\n")
    shown = attachment(workspace, ["numbers.go"], IgnoreRules.load(workspace))
    assert shown == '<file_content path="numbers.go">\npackage x\n</file_content>'
