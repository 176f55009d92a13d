"""`ShadowGit`: checkpoints of a workspace in a git repository kept outside it.

Layout: `<home>/checkpoints/<hash of the workspace path>/` is the git dir itself (bare-style, with
`core.worktree` = the workspace), so nothing is ever created inside the workspace. Each checkpoint
is a parentless commit named by a ref `refs/pycline/checkpoints/<seq>`: commit ids handed to the
task stay valid forever, and pruning is deleting refs (no history rewrite), then `gc`.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import hashlib
import os
import re
from collections.abc import AsyncIterator, Collection, Sequence
from datetime import UTC, datetime
from pathlib import Path

from pycline.checkpoints.diffing import file_changes, parse_raw
from pycline.checkpoints.excludes import ATTRIBUTES, DEFAULT_EXCLUDES, literal_pattern
from pycline.checkpoints.proclock import process_lock
from pycline.checkpoints.restore import restore_index_and_tree
from pycline.checkpoints.runner import DEFAULT_TIMEOUT, GitRunner
from pycline.checkpoints.staging import Stager, write_atomic
from pycline.checkpoints.types import Checkpoint, CheckpointError, FileChange, RestoreResult
from pycline.checkpoints.worktree_diff import NeedsStaging, diff_to_worktree
from pycline.workspace.confined import read_text

MiB = 1024 * 1024
LAYOUT_VERSION = "2"
REF_PREFIX = "refs/pycline/checkpoints/"
_ZERO_OID = "0" * 40
_SEQ_TRAILER = "\n\nPycline-Checkpoint: "
_COMMITISH = re.compile(r"[0-9a-fA-F]{4,64}")
# Every `git add` writes one pack; past this many, roll them up (geometric repack stays cheap).
_MAX_PACKS = 24
# Each checkpoint leaves a few loose objects (the changed files, their trees, the commit) and a
# loose ref, one file each: every this many checkpoints they go into a pack and `packed-refs`,
# so a long task leaves a few dozen files, not thousands, and writes less (a file costs a page).
ROLLUP_EVERY = 16

_CONFIG = (
    ("core.bare", "false"),
    ("core.autocrlf", "false"),
    ("core.fsmonitor", "false"),
    ("core.quotepath", "off"),
    ("core.logAllRefUpdates", "false"),
    ("core.preloadIndex", "true"),
    # Remembers, per folder, the untracked listing and the folder's mtime, so `add -A` does not
    # re-read unchanged folders; index v4 prefix-compresses paths (smaller index to rewrite).
    ("core.untrackedCache", "true"),
    ("feature.manyFiles", "true"),
    ("index.version", "4"),
    # manyFiles turns the index's checksum off in newer git; a checkpoint reads it to know the
    # index is unchanged (and skip `write-tree`).
    ("index.skipHash", "false"),
    # Each checkpoint rewrites the index; split, only the entries changed since the shared part
    # was last written are rewritten (the whole index is hundreds of KB on big workspaces), and
    # a replaced shared part is deleted at once.
    ("core.splitIndex", "true"),
    ("splitIndex.sharedIndexExpire", "now"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("diff.ignoreSubmodules", "all"),
)


def _user_message(stored: str) -> str:
    head, sep, _ = stored.rpartition(_SEQ_TRAILER)
    return (head if sep else stored).strip()


def _index_checksum(index: Path) -> bytes | None:
    """The checksum git ends its index file with (over all that precedes it), and the size."""
    try:
        with index.open("rb") as f:
            size = f.seek(0, os.SEEK_END)
            if size < 32:
                return None
            f.seek(-20, os.SEEK_END)
            checksum = f.read(20)
    except OSError:
        return None
    # All zeros: written with index.skipHash, so it says nothing about the content.
    return None if checksum == bytes(20) else checksum + size.to_bytes(8, "little")


def workspace_key(workspace: Path) -> str:
    return hashlib.sha256(os.fsencode(str(workspace.resolve()))).hexdigest()[:16]


def _disk_usage(root: Path) -> int:
    total = 0
    for dirpath, dirnames, filenames in os.walk(root):
        for name in (*dirnames, *filenames):
            try:
                st = os.lstat(os.path.join(dirpath, name))
            except FileNotFoundError:
                continue
            # Allocated blocks, not apparent size: thousands of tiny loose objects cost a block each.
            blocks = getattr(st, "st_blocks", None)
            total += blocks * 512 if blocks is not None else st.st_size
    return total


class ShadowGit:
    """Checkpoints of `workspace`, stored under `home`. One instance per workspace per process."""

    def __init__(
        self,
        workspace: Path,
        home: Path,
        *,
        max_file_size: int = 5 * MiB,
        extra_excludes: Sequence[str] = (),
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.workspace = workspace.resolve()
        self._home = home.resolve()
        self.git_dir = self._home / "checkpoints" / workspace_key(self.workspace)
        self._extra = tuple(extra_excludes)
        self._max_file_size = max_file_size
        self._git = GitRunner(self.git_dir, self.workspace, timeout=timeout)
        self._stager = Stager(
            self._git, self.workspace, static_excludes=(), max_file_size=max_file_size
        )
        self._lock = asyncio.Lock()
        self._ready = False
        self._next_seq: int | None = None
        self._since_rollup = 0
        self._tree_of: tuple[bytes, str] | None = None  # (index checksum, its tree)

    # -- public API ---------------------------------------------------------------------------

    @property
    def git_processes(self) -> int:
        """How many git processes this instance has started (benchmarks count them)."""
        return self._git.spawned

    async def init(self) -> None:
        """Create or open the shadow repository. Idempotent and cheap once done."""
        async with self._exclusive():
            await self._ensure_ready()

    async def commit(self, message: str) -> str:
        """Snapshot the workspace; returns the commit id (a new one even if nothing changed)."""
        async with self._exclusive():
            await self._ensure_ready()
            await self._stager.stage()
            tree = await self._tree()
            text = message.replace("\0", "").strip() or "checkpoint"
            commit = await self._record(tree, text)
            await self._maybe_repack()
            return commit

    async def restore(self, commit: str) -> RestoreResult:
        """Put the workspace's tracked files back to `commit` (see `restore.py` for the rules)."""
        async with self._exclusive():
            await self._ensure_ready()
            target = await self._resolve(commit)
            # Staging first saves every file we might delete or overwrite into the object store,
            # and tells us which files on disk are tracked (and so ours to change).
            await self._stager.stage()
            return await restore_index_and_tree(self._git, self.workspace, target)

    async def diff(
        self, from_commit: str, to_commit: str | None = None
    ) -> builtins.list[FileChange]:
        """Changes from `from_commit` to `to_commit`, or to the working tree now if None."""
        async with self._exclusive():
            await self._ensure_ready()
            if to_commit is None:
                if not _COMMITISH.fullmatch(from_commit):
                    raise CheckpointError(f"not a checkpoint id: {from_commit!r}")
                try:
                    return await diff_to_worktree(
                        self._git, self.workspace, from_commit, max_file_size=self._max_file_size
                    )
                except NeedsStaging:
                    a = await self._resolve(from_commit)
                    await self._stager.stage()
                    raw = await self._git.run(
                        "diff-index", "--cached", "-z", "--raw", "--no-renames", a
                    )
            else:
                a = await self._resolve(from_commit)
                b = await self._resolve(to_commit)
                raw = await self._git.run("diff-tree", "-r", "-z", "--raw", "--no-renames", a, b)
            return await file_changes(self._git, parse_raw(raw.stdout))

    async def list(self) -> builtins.list[Checkpoint]:
        """All checkpoints of this workspace, oldest first."""
        async with self._exclusive():
            await self._ensure_ready()
            return await self._list()

    async def disk_usage(self) -> int:
        """Bytes allocated on disk by the shadow repository."""
        return await asyncio.to_thread(_disk_usage, self.git_dir)

    async def gc(self) -> None:
        """Repack and drop objects no checkpoint (or the index) refers to."""
        async with self._exclusive():
            await self._ensure_ready()
            await self._git.run("gc", "--quiet", "--prune=now", timeout=self._git.timeout * 5)

    async def prune(self, keep_last: int) -> int:
        """Forget all but the newest `keep_last` checkpoints and reclaim their space."""
        if keep_last < 0:
            raise ValueError("keep_last must be >= 0")
        async with self._exclusive():
            await self._ensure_ready()
            checkpoints = await self._list()
            drop = checkpoints[: max(0, len(checkpoints) - keep_last)]
            if drop:
                script = "".join(f"delete {REF_PREFIX}{c.seq:010d} {c.commit}\n" for c in drop)
                await self._git.run("update-ref", "--stdin", stdin=script.encode())
            await self._git.run("gc", "--quiet", "--prune=now", timeout=self._git.timeout * 5)
            return len(drop)

    async def forget(self, commits: Collection[str]) -> int:
        """Delete exactly these checkpoints (others stay valid) and reclaim what only they used."""
        async with self._exclusive():
            await self._ensure_ready()
            wanted = set(commits)
            drop = [c for c in await self._list() if c.commit in wanted]
            if drop:
                script = "".join(f"delete {REF_PREFIX}{c.seq:010d} {c.commit}\n" for c in drop)
                await self._git.run("update-ref", "--stdin", stdin=script.encode())
                await self._git.run("gc", "--quiet", "--prune=now", timeout=self._git.timeout * 5)
            return len(drop)

    # -- internals ----------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _exclusive(self) -> AsyncIterator[None]:
        # One operation at a time: within this process (asyncio) and across processes (flock).
        async with self._lock, process_lock(self.git_dir, timeout=self._git.timeout):
            yield

    async def _ensure_ready(self) -> None:
        if self._ready:
            return
        await asyncio.to_thread(self._check_workspace)
        if not (self.git_dir / "HEAD").exists():
            self.git_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            # No templates: no sample hooks, nothing we would have to keep inert. Shared 0600:
            # git makes every file of it 0600 and every folder 0700, whatever the umask.
            await self._git.run("init", "--quiet", "--template=", "--shared=0600")
        layout = await self._git.run("config", "--get", "pycline.layout", ok=(0, 1))
        if layout.text != LAYOUT_VERSION:
            await self._configure()
        else:
            owner = await self._git.run("config", "--get", "pycline.workspace", ok=(0, 1))
            if owner.text != str(self.workspace):
                raise CheckpointError(
                    f"{self.git_dir} belongs to {owner.text!r}, not {self.workspace}"
                )
        self._stager.static = await asyncio.to_thread(self._static_excludes)
        await asyncio.to_thread(self._write_info_files)
        # The placeholder entries used for nested repositories point at the empty blob.
        await self._git.run("hash-object", "-w", "--stdin", stdin=b"")
        self._ready = True

    def _check_workspace(self) -> None:
        if not self.workspace.is_dir():
            raise CheckpointError(f"workspace {self.workspace} is not a folder")
        try:
            user_home = Path.home().resolve()
        except RuntimeError:  # no HOME and no passwd entry
            user_home = None
        if self.workspace in (user_home, Path(self.workspace.anchor)):
            # Tracking a whole home folder or disk is slow and almost never what the user meant.
            raise CheckpointError(f"checkpoints are disabled for {self.workspace}")

    async def _configure(self) -> None:
        settings = (
            *_CONFIG,
            ("core.worktree", str(self.workspace)),
            ("pycline.workspace", str(self.workspace)),
            ("pycline.layout", LAYOUT_VERSION),  # last: marks the configuration complete
        )
        for key, value in settings:
            await self._git.run("config", key, value)

    def _static_excludes(self) -> builtins.list[str]:
        patterns = [*DEFAULT_EXCLUDES, *self._extra]
        # pycline's own data folder inside the workspace must never be checkpointed.
        if self._home != self.workspace and self._home.is_relative_to(self.workspace):
            patterns.append(literal_pattern(self._home.relative_to(self.workspace).as_posix()))
        # The user's private excludes: reading is harmless, and they describe junk we should skip.
        try:
            text = read_text(self.workspace / ".git" / "info" / "exclude", 1_000_000)
        except OSError:  # absent, or `.git` is a gitfile (or not a regular file)
            text = ""
        lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
        if lines:
            patterns += ["# from the workspace's .git/info/exclude", *lines]
        return patterns

    def _write_info_files(self) -> None:
        info = self.git_dir / "info"
        info.mkdir(mode=0o700, parents=True, exist_ok=True)
        attributes = info / "attributes"
        if not attributes.exists() or attributes.read_text(encoding="utf-8") != ATTRIBUTES:
            write_atomic(attributes, ATTRIBUTES)
        self._stager.write_excludes()

    async def _tree(self) -> str:
        """The index's tree: `write-tree` only when the index changed since the last one (a turn
        that changed no file, the common case, spawns no git for it). The index's own trailing
        checksum says so, whichever process wrote it."""
        index = self.git_dir / "index"
        stamp = await asyncio.to_thread(_index_checksum, index)
        if stamp is not None and self._tree_of is not None and self._tree_of[0] == stamp:
            return self._tree_of[1]
        tree = (await self._git.run("write-tree")).text
        # Read after: write-tree itself rewrites the index (it stores the tree in it).
        after = await asyncio.to_thread(_index_checksum, index)
        self._tree_of = (after, tree) if after is not None else None
        return tree

    async def _resolve(self, commit: str) -> str:
        # Hex only: nothing that git could read as an option, a ref name or a path.
        if not _COMMITISH.fullmatch(commit):
            raise CheckpointError(f"not a checkpoint id: {commit!r}")
        result = await self._git.run(
            "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}", ok=(0, 1, 128)
        )
        if result.returncode != 0:
            raise CheckpointError(f"unknown checkpoint {commit}")
        return result.text

    async def _list(self) -> builtins.list[Checkpoint]:
        fmt = "%(refname)%00%(objectname)%00%(creatordate:unix)%00%(contents)%00"
        result = await self._git.run("for-each-ref", f"--format={fmt}", REF_PREFIX)
        checkpoints: builtins.list[Checkpoint] = []
        # Messages cannot hold NUL (we strip it), so "\0\n" only ever ends a record.
        for record in result.stdout.split(b"\0\n"):
            if not record.strip():
                continue
            ref, oid, when, message = record.lstrip(b"\n").split(b"\0", 3)
            checkpoints.append(
                Checkpoint(
                    commit=oid.decode("ascii"),
                    message=_user_message(message.decode("utf-8", errors="replace")),
                    created_at=datetime.fromtimestamp(int(when), UTC),
                    seq=int(ref.decode("ascii").removeprefix(REF_PREFIX)),
                )
            )
        checkpoints.sort(key=lambda c: c.seq)
        return checkpoints

    async def _record(self, tree: str, text: str) -> str:
        """Create the checkpoint commit and its ref; returns the commit id."""
        if self._next_seq is None:
            existing = await self._list()
            self._next_seq = existing[-1].seq + 1 if existing else 1
        for _ in range(5):
            seq = self._next_seq
            # The sequence number in the message makes every checkpoint's id unique, even for
            # an unchanged tree and the same message within one second.
            body = f"{text}{_SEQ_TRAILER}{seq}\n".encode()
            commit = (await self._git.run("commit-tree", tree, stdin=body)).text
            ref = f"{REF_PREFIX}{seq:010d}"
            # The all-zero old value makes this fail if the ref exists: another process sharing
            # this workspace took the number, so we move past its checkpoints and retry.
            result = await self._git.run("update-ref", ref, commit, _ZERO_OID, ok=(0, 1, 128))
            if result.returncode == 0:
                self._next_seq = seq + 1
                return commit
            existing = await self._list()
            self._next_seq = max(seq, existing[-1].seq if existing else 0) + 1
        raise CheckpointError("could not name a new checkpoint: its ref kept being taken")

    async def _maybe_repack(self) -> None:
        self._since_rollup += 1
        if self._since_rollup >= ROLLUP_EVERY:
            self._since_rollup = 0
            # A geometric repack also rolls the loose objects up into a pack.
            await self._git.run("repack", "-d", "-q", "--geometric=2")
            await self._git.run("pack-refs", "--all")
            return
        pack_dir = self.git_dir / "objects" / "pack"
        packs = await asyncio.to_thread(lambda: len(list(pack_dir.glob("*.pack"))))
        if packs > _MAX_PACKS:
            await self._git.run("repack", "-d", "-q", "--geometric=2")
