"""Bring the shadow index up to date with the workspace, the one expensive step of a checkpoint.

`git add -A` against a persistent index does the heavy lifting: files whose stat data is unchanged
are not re-read, and the untracked cache spares re-scanning unchanged folders. Around it we handle
what plain git gets wrong for us:

* Nested repositories (any folder holding a `.git` folder or gitfile: clones, submodules, linked
  worktrees). Left alone, `git add` records them as gitlinks (a bare commit id) and never looks at
  their files, so the agent's edits inside them would not be checkpointed. Cline works around this
  by renaming every nested `.git` for the duration of the commit, which corrupts repositories when
  it is interrupted. We never touch them. Git recurses into a folder as an ordinary one as soon as
  the index holds any entry below it, so before `git add` we put a placeholder entry (a path that
  does not exist on disk) under each nested root; `git add -A` then adds the folder's files as
  ordinary files — honouring its `.gitignore`, skipping its `.git` as always — and drops the
  placeholder because it is missing from disk. Roots are found in `ls-files --others` output, which
  shows a nested repository as `dir/`, and remembered in a state file.
* Files over the size limit: found by stat-ing what `ls-files` reports as new or modified,
  excluded by exact path in `info/exclude`, and dropped from the index if they were tracked.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import stat
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pycline.checkpoints.excludes import exclude_file_text
from pycline.checkpoints.runner import GitRunner
from pycline.checkpoints.types import CheckpointError

PLACEHOLDER_NAME = ".pycline-checkpoint-placeholder"
EMPTY_BLOB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
STATE_FILE = "pycline-state.json"
# Each round can only reveal repositories nested inside ones found in the previous round.
_MAX_DISCOVERY_ROUNDS = 8
# Each `git add` streams its blobs into one pack file instead of one loose object per file (the
# threshold is the size above which git uses that "bulk check-in" path): a sixth of the disk and
# no 50,000-file fan-out on the first checkpoint. Fast zlib: `gc` recompresses properly later.
# Only for `add`: the same threshold would make `diff` treat every file as binary.
ADD_CONFIG = ("core.bigFileThreshold=1", "core.compression=1")
_NO_COMMIT = b"' does not have a commit checked out"
_ADD_ATTEMPTS = 5
# Up to this many changed paths are handed to `update-index`, which stores each as a loose object;
# more (a first checkpoint, a big generated change) go through `git add -A`, which streams them all
# into one pack.
_MAX_LISTED = 500
_VANISHED = re.compile(r"unable to (stat|index file|open)\b.*No such file or directory")


@dataclass
class _State:
    nested: set[str] = field(default_factory=set)
    large: set[str] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class _Listing:
    nested: frozenset[str]  # candidate nested repository roots
    paths: frozenset[str]  # files new, modified or deleted since the index was last updated
    large_tracked: frozenset[str]
    large_untracked: frozenset[str]


def write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def has_git_component(rel: str) -> bool:
    return any(part.lower() == ".git" for part in rel.split("/"))


def nul_paths(paths: Iterable[str]) -> bytes:
    return b"".join(os.fsencode(p) + b"\0" for p in paths)


class Stager:
    def __init__(
        self,
        git: GitRunner,
        workspace: Path,
        *,
        static_excludes: Sequence[str],
        max_file_size: int,
    ) -> None:
        self._git = git
        self._ws = workspace
        self.static: tuple[str, ...] | list[str] = tuple(static_excludes)
        self._max = max_file_size
        self._state: _State | None = None
        self._saved: str | None = None

    @property
    def _exclude_path(self) -> Path:
        return self._git.git_dir / "info" / "exclude"

    @property
    def _state_path(self) -> Path:
        return self._git.git_dir / STATE_FILE

    def write_excludes(self) -> None:
        """Write `info/exclude` if its content changed (an unchanged file keeps git's cache valid)."""
        large = self._state.large if self._state is not None else self._load_state().large
        text = exclude_file_text(self.static, large)
        path = self._exclude_path
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            current = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            current = None
        if current != text:
            write_atomic(path, text)

    async def stage(self) -> None:
        """Bring the index up to date with one scan of the tree (`ls-files`), then hand git the
        exact paths that changed: unchanged files are never re-read, and the tree is not walked a
        second time as `git add -A` would."""
        state = await asyncio.to_thread(self._refresh_state)
        await asyncio.to_thread(self.write_excludes)

        changed: set[str] = set()
        seeded: set[str] = set()
        seen_large: set[str] = set()
        for _ in range(_MAX_DISCOVERY_ROUNDS):
            result = await self._git.run("ls-files", "-z", "-t", "-m", "-o", "--exclude-standard")
            listing = await asyncio.to_thread(self._classify, result.stdout)
            seen_large |= listing.large_tracked | listing.large_untracked
            changed |= listing.paths
            # A nested repository shows as `dir/` only while the index holds nothing below it.
            unseeded = listing.nested - seeded
            if not unseeded:
                break
            state.nested |= unseeded
            seeded |= unseeded
            await self._seed(unseeded)

        if seen_large - state.large:
            state.large |= seen_large
            await asyncio.to_thread(self.write_excludes)
        if seen_large:
            # Tracked files that grew too big leave the index so the exclude applies to them.
            await self._remove_from_index(seen_large)

        # Placeholders do not exist on disk, so `--remove` drops them in the same pass.
        placeholders = {f"{root}/{PLACEHOLDER_NAME}" for root in seeded}
        paths = (changed - seen_large) | placeholders
        if len(paths) > _MAX_LISTED or not await self._update(sorted(paths)):
            await self._stage_with_add(state, seen_large)
        await asyncio.to_thread(self._save_state)

    async def _update(self, paths: Sequence[str]) -> bool:
        """Record exactly `paths` (added, modified or deleted); False if git refused one of them
        (a file turned into a folder meanwhile): the caller then falls back to `git add -A`."""
        if not paths:
            return True
        result = await self._git.run(
            "update-index",
            "-z",
            "--add",
            "--remove",
            "--stdin",
            stdin=nul_paths(paths),
            ok=(0, 1, 128),
        )
        return result.returncode == 0

    async def _stage_with_add(self, state: _State, large: set[str]) -> None:
        gitlinks = await self._add_all()
        if gitlinks:
            # A repository appeared between the listing and the add (a background `git clone`):
            # undo the gitlink and add its files as ordinary ones like any other nested repo.
            await self._remove_from_index(gitlinks)
            state.nested |= gitlinks
            await self._seed(gitlinks)
            await self._add_all()
        # `add -A` drops placeholders (missing on disk) and cannot add excluded files; this also
        # covers files re-included by a `!pattern` in the workspace's .gitignore.
        leftovers = {f"{root}/{PLACEHOLDER_NAME}" for root in state.nested} | large
        if leftovers:
            await self._remove_from_index(leftovers)

    async def _add_all(self) -> set[str]:
        """`git add -A`; returns paths it recorded as gitlinks (folders)."""
        for attempt in range(_ADD_ATTEMPTS):
            # --ignore-errors: one unreadable file must not cost the whole checkpoint; git then
            # exits 1 and has added everything else.
            result = await self._git.run(
                "add", "-A", "-v", "--ignore-errors", ok=(0, 1, 128), config=ADD_CONFIG
            )
            if result.returncode != 128:
                break
            # A file that vanishes between git's directory scan and its stat (another program's
            # temporary file, e.g. an atomic save) is fatal even with --ignore-errors: the next
            # scan no longer sees it, so try again.
            error = result.stderr.decode("utf-8", errors="replace").strip()
            if not _VANISHED.search(error) or attempt == _ADD_ATTEMPTS - 1:
                raise CheckpointError(f"git add failed: {error or 'exit status 128'}")
        candidates = [
            line[5:-1]
            for line in result.stdout.split(b"\n")
            if line.startswith(b"add '") and line.endswith(b"'")
        ]
        # A repository without a commit cannot become a gitlink; git skips it with this error.
        candidates += [
            line[8 : -len(_NO_COMMIT)]
            for line in result.stderr.split(b"\n")
            if line.startswith(b"error: '") and line.endswith(_NO_COMMIT)
        ]
        gitlinks: set[str] = set()
        for raw in candidates:
            rel = os.fsdecode(raw).rstrip("/")
            path = self._ws / rel
            if rel and path.is_dir() and not path.is_symlink():
                gitlinks.add(rel)
        return gitlinks

    async def _seed(self, roots: Iterable[str]) -> None:
        entries = b"".join(
            f"100644 {EMPTY_BLOB}\t".encode() + os.fsencode(f"{root}/{PLACEHOLDER_NAME}") + b"\0"
            for root in sorted(roots)
        )
        if entries:
            await self._git.run("update-index", "-z", "--index-info", stdin=entries)

    async def _remove_from_index(self, paths: Iterable[str]) -> None:
        await self._git.run(
            "update-index", "-z", "--force-remove", "--stdin", stdin=nul_paths(paths)
        )

    def _classify(self, data: bytes) -> _Listing:
        nested: set[str] = set()
        paths: set[str] = set()
        large_tracked: set[str] = set()
        large_untracked: set[str] = set()
        for raw in data.split(b"\0"):
            if len(raw) < 3:
                continue
            tag, rel = raw[:1], os.fsdecode(raw[2:])
            if rel.endswith("/"):
                root = rel.rstrip("/")
                if os.path.lexists(self._ws / root / ".git"):
                    nested.add(root)
                continue
            if rel.rsplit("/", 1)[-1] == PLACEHOLDER_NAME:
                continue
            paths.add(rel)
            try:
                st = os.lstat(self._ws / rel)
            except OSError:  # deleted (ls-files -m lists deletions) or vanished meanwhile
                continue
            if stat.S_ISREG(st.st_mode) and st.st_size > self._max:
                (large_untracked if tag == b"?" else large_tracked).add(rel)
        return _Listing(
            frozenset(nested),
            frozenset(paths),
            frozenset(large_tracked),
            frozenset(large_untracked),
        )

    def _load_state(self) -> _State:
        try:
            raw = json.loads(self._state_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return _State()
        except (OSError, ValueError) as exc:
            raise CheckpointError(f"unreadable checkpoint state {self._state_path}: {exc}") from exc
        return _State(nested=set(raw.get("nested", [])), large=set(raw.get("large", [])))

    def _refresh_state(self) -> _State:
        """Forget nested roots whose `.git` is gone and large files that are gone or shrank."""
        if self._state is None:
            self._state = self._load_state()
        state = self._state
        state.nested = {r for r in state.nested if os.path.lexists(self._ws / r / ".git")}
        still_large = set()
        for rel in state.large:
            try:
                st = os.lstat(self._ws / rel)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and st.st_size > self._max:
                still_large.add(rel)
        state.large = still_large
        return state

    def _save_state(self) -> None:
        if self._state is None:
            return
        text = json.dumps(
            {"nested": sorted(self._state.nested), "large": sorted(self._state.large)}, indent=1
        )
        if text != self._saved:
            write_atomic(self._state_path, text)
            self._saved = text
