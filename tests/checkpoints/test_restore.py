"""Restore puts tracked files back byte for byte and leaves everything else alone."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from pycline.checkpoints import ShadowGit

from .helpers import git_dirs_fingerprint, make_repo, worktree_state, write


async def test_restore_is_byte_exact_for_content_deletions_new_files_and_modes(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / "src/app.py", "print('v1')\n")
    write(workspace / "src/util.py", "x = 1\n")
    write(workspace / "docs/keep.md", "# Title\r\nwindows line\r\n")
    write(workspace / "data.bin", bytes(range(256)) * 4)
    write(workspace / "run.sh", "#!/bin/sh\necho hi\n")
    (workspace / "run.sh").chmod(0o755)
    (workspace / "link").symlink_to("src/app.py")
    sg = ShadowGit(workspace, isolated_home)
    first = await sg.commit("before the agent")
    expected = worktree_state(workspace)

    write(workspace / "src/app.py", "print('v2')\n")  # modified
    (workspace / "src/util.py").unlink()  # deleted
    write(workspace / "src/new.py", "new\n")  # created
    write(workspace / "fresh/deep/dir/file.txt", "created in new folders\n")
    (workspace / "run.sh").chmod(0o644)  # lost its executable bit
    (workspace / "data.bin").write_bytes(b"\0overwritten")
    (workspace / "link").unlink()
    (workspace / "link").symlink_to("elsewhere")
    await sg.commit("after the agent")

    result = await sg.restore(first)

    assert worktree_state(workspace) == expected
    assert stat.S_IMODE((workspace / "run.sh").stat().st_mode) & 0o111
    assert not (workspace / "fresh").exists()  # folders emptied by the restore go too
    assert result.skipped == ()
    assert result.deleted == 2


async def test_restore_can_go_forward_again_to_a_later_checkpoint(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / "a.txt", "one\n")
    sg = ShadowGit(workspace, isolated_home)
    first = await sg.commit("1")
    write(workspace / "a.txt", "two\n")
    write(workspace / "b.txt", "b\n")
    second = await sg.commit("2")
    later = worktree_state(workspace)

    await sg.restore(first)
    assert (workspace / "a.txt").read_text() == "one\n"
    assert not (workspace / "b.txt").exists()
    await sg.restore(second)
    assert worktree_state(workspace) == later


async def test_restore_of_uncommitted_edits_goes_back_to_the_checkpoint(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / "a.txt", "checkpointed\n")
    sg = ShadowGit(workspace, isolated_home)
    first = await sg.commit("1")
    write(workspace / "a.txt", "edited, never checkpointed\n")
    write(workspace / "scratch.txt", "temp\n")

    await sg.restore(first)

    assert worktree_state(workspace) == {"a.txt": ("file", 0o644, b"checkpointed\n")}


async def test_restore_is_byte_exact_despite_gitattributes_asking_for_eol_conversion(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / ".gitattributes", "* text=auto eol=crlf\n*.txt ident\n")
    mixed = b"unix\nwindows\r\nold mac\r$Id$\n"
    write(workspace / "mixed.txt", mixed)
    sg = ShadowGit(workspace, isolated_home)
    first = await sg.commit("1")
    write(workspace / "mixed.txt", "changed\n")

    await sg.restore(first)

    assert (workspace / "mixed.txt").read_bytes() == mixed


async def test_restore_leaves_ignored_and_excluded_files_alone(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / ".gitignore", "secret.env\nout/\n")
    write(workspace / "secret.env", "TOKEN=1\n")
    write(workspace / "out/build.o.txt", "old build\n")
    write(workspace / "node_modules/pkg/index.js", "v1\n")
    write(workspace / "main.py", "v1\n")
    sg = ShadowGit(workspace, isolated_home)
    first = await sg.commit("1")

    write(workspace / "secret.env", "TOKEN=2\n")
    write(workspace / "out/build.o.txt", "new build\n")
    write(workspace / "node_modules/pkg/index.js", "v2\n")
    write(workspace / "node_modules/new/index.js", "new dep\n")
    write(workspace / "main.py", "v2\n")

    await sg.restore(first)

    assert (workspace / "main.py").read_text() == "v1\n"
    assert (workspace / "secret.env").read_text() == "TOKEN=2\n"
    assert (workspace / "out/build.o.txt").read_text() == "new build\n"
    assert (workspace / "node_modules/pkg/index.js").read_text() == "v2\n"
    assert (workspace / "node_modules/new/index.js").exists()


async def test_restore_never_overwrites_a_file_that_grew_past_the_size_limit(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / "dump.txt", "small\n")
    sg = ShadowGit(workspace, isolated_home, max_file_size=1000)
    first = await sg.commit("1")
    big = b"x" * 5000
    write(workspace / "dump.txt", big)
    await sg.commit("2")

    result = await sg.restore(first)

    assert (workspace / "dump.txt").read_bytes() == big
    assert result.skipped == ("dump.txt",)


async def test_restore_skips_a_file_whose_place_is_now_a_folder_holding_a_repository(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / "lib", "was a plain file\n")
    write(workspace / "other.txt", "v1\n")
    sg = ShadowGit(workspace, isolated_home)
    first = await sg.commit("1")
    (workspace / "lib").unlink()
    make_repo(workspace / "lib", {"code.py": "print(1)\n"})
    write(workspace / "other.txt", "v2\n")
    await sg.commit("2")
    before = git_dirs_fingerprint(workspace)

    result = await sg.restore(first)

    # git itself would have deleted lib/ recursively, .git included; we refuse that one path.
    assert result.skipped == ("lib",)
    assert (workspace / "lib/.git").is_dir()
    assert git_dirs_fingerprint(workspace) == before
    assert (workspace / "other.txt").read_text() == "v1\n"


async def test_restore_replaces_a_folder_of_tracked_files_by_the_file_it_was(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / "thing", "file\n")
    sg = ShadowGit(workspace, isolated_home)
    first = await sg.commit("1")
    (workspace / "thing").unlink()
    write(workspace / "thing/inner.txt", "now a folder\n")
    await sg.commit("2")

    result = await sg.restore(first)

    assert (workspace / "thing").read_text() == "file\n"
    assert result.skipped == ()


async def test_restore_does_not_follow_a_symlinked_folder_out_of_the_workspace(
    workspace: Path, isolated_home: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    write(outside / "precious.txt", "do not touch\n")
    write(workspace / "d/file.txt", "v1\n")
    sg = ShadowGit(workspace, isolated_home)
    first = await sg.commit("1")
    (workspace / "d/file.txt").unlink()
    (workspace / "d").rmdir()
    (workspace / "d").symlink_to(outside, target_is_directory=True)
    await sg.commit("2")

    await sg.restore(first)

    assert (outside / "precious.txt").read_text() == "do not touch\n"
    assert sorted(os.listdir(outside)) == ["precious.txt"]
    assert (workspace / "d/file.txt").read_text() == "v1\n"
    assert not (workspace / "d").is_symlink()


async def test_restored_workspace_is_clean_for_the_next_checkpoint(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / "a.txt", "1\n")
    sg = ShadowGit(workspace, isolated_home)
    first = await sg.commit("1")
    write(workspace / "a.txt", "2\n")
    write(workspace / "b.txt", "b\n")
    await sg.commit("2")
    await sg.restore(first)

    assert await sg.diff(first) == []
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
        "GIT_DIR": str(sg.git_dir),
        "GIT_WORK_TREE": str(workspace),
    }
    # The shadow index matches the disk (stat data included), so nothing is left to re-hash.
    for args in (["diff-files", "--name-only"], ["ls-files", "-o", "--exclude-standard"]):
        done = subprocess.run(
            ["git", *args], cwd=workspace, env=env, capture_output=True, check=True
        )
        assert done.stdout == b""
