"""Git facts for mentions: the working-directory changes and one commit, bounded in size.

Diffs of files hidden by `.clineignore` are left out: a patch would reveal their content.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
from pathlib import Path

from pycline.workspace import fifo_guard
from pycline.workspace.access import AccessRules
from pycline.workspace.safe_git import UnsafeRepository, safe_argv

MAX_CHARS = 50_000
GIT_TIMEOUT = 15.0
_EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_HASH = re.compile(r"[0-9a-f]{7,40}")


# The repository's own config may come from whoever packed it: nothing it names may run
# (`safe_git` turns off hooks, filters, drivers and the rest); no transport either.
_HARDENED = (
    "-c", "core.quotepath=off",
    "-c", "core.untrackedCache=false",
    "-c", "protocol.allow=never",
)  # fmt: skip


class _GitFailed(Exception):
    pass


async def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "LC_ALL": "C"}
    exe = shutil.which("git")
    if exe is None:
        raise _GitFailed("git is not installed")
    try:
        argv = await safe_argv(exe, cwd, env, args)
    except UnsafeRepository as exc:
        raise _GitFailed(str(exc)) from exc
    argv[1:1] = _HARDENED
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except OSError as exc:  # git not installed, or cwd missing
        raise _GitFailed(str(exc)) from exc
    try:
        async with asyncio.timeout(GIT_TIMEOUT):
            out, err = await fifo_guard.communicate(proc, cwd)
    except TimeoutError as exc:
        raise _GitFailed("git took too long") from exc
    finally:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
    if proc.returncode != 0:
        raise _GitFailed(err.decode("utf-8", errors="replace").strip())
    return out.decode("utf-8", errors="replace")


def _bounded(text: str) -> str:
    if len(text) <= MAX_CHARS:
        return text
    return text[:MAX_CHARS] + f"\n[… output truncated after {MAX_CHARS:,} characters]"


async def _toplevel(root: Path) -> Path | None:
    try:
        return Path((await _git(root, "rev-parse", "--show-toplevel")).strip())
    except _GitFailed:
        return None


def _split_allowed(top: Path, names: list[str], ignore: AccessRules) -> tuple[list[str], int]:
    allowed = [n for n in names if not ignore.blocked(top / n)]
    return allowed, len(names) - len(allowed)


def _hidden_note(hidden: int) -> str:
    if not hidden:
        return ""
    return f"\n({hidden} changed file(s) hidden by .clineignore are not shown.)"


async def working_changes(root: Path, *, ignore: AccessRules) -> str:
    """`git status` and the diff against HEAD (or the empty tree before the first commit)."""
    try:
        return await _working_changes(root, ignore)
    except _GitFailed as exc:
        return f"Error: git failed: {exc}"


async def changed_files(root: Path, *, ignore: AccessRules, limit: int = 50) -> list[Path]:
    """Files changed or added in the working tree (`git status`), ignored ones left out."""
    try:
        top = await _toplevel(root)
        if top is None:
            return []
        out = await _git(top, "status", "--porcelain=v1", "-z", "--untracked-files=all")
    except _GitFailed:
        return []
    entries = out.split("\0")
    found: list[Path] = []
    skip_next = False
    for entry in entries:
        if skip_next or len(entry) < 4:
            skip_next = False
            continue
        status, name = entry[:2], entry[3:]
        skip_next = "R" in status or "C" in status  # the next entry is the old name
        path = top / name
        if "D" not in status and not ignore.blocked(path) and path.is_file():
            found.append(path)
        if len(found) >= limit:
            break
    return found


async def commit_details(root: Path, commit: str, *, ignore: AccessRules) -> str:
    """Header, file statistics and patch of one commit."""
    try:
        return await _commit_details(root, commit, ignore)
    except _GitFailed as exc:
        return f"Error: git failed: {exc}"


async def _working_changes(root: Path, ignore: AccessRules) -> str:
    top = await _toplevel(root)
    if top is None:
        return "Not a git repository."
    status = (await _git(top, "status", "--short")).rstrip()
    if not status:
        return "No changes in the working directory."
    try:
        await _git(top, "rev-parse", "--verify", "--quiet", "HEAD")
        base = "HEAD"
    except _GitFailed:
        base = _EMPTY_TREE
    names = [
        n
        for n in (await _git(top, "diff", "--no-ext-diff", base, "--name-only", "-z")).split("\0")
        if n
    ]
    allowed, hidden = _split_allowed(top, names, ignore)
    diff = (
        (await _git(top, "diff", "--no-ext-diff", "--no-textconv", base, "--", *allowed)).rstrip()
        if allowed
        else ""
    )
    parts = [f"Status:\n{status}"]
    if diff:
        parts.append(f"Diff:\n{diff}")
    return _bounded("\n\n".join(parts) + _hidden_note(hidden))


async def _commit_details(root: Path, commit: str, ignore: AccessRules) -> str:
    if not _HASH.fullmatch(commit):
        return f"Error: {commit!r} is not a commit hash."
    top = await _toplevel(root)
    if top is None:
        return "Not a git repository."
    try:
        kind = (await _git(top, "cat-file", "-t", commit)).strip()
    except _GitFailed:
        kind = ""
    if kind != "commit":
        return f"Error: {commit} is not a commit in this repository."
    header = await _git(
        top, "show", "--no-patch", "--format=commit %H%nAuthor: %an <%ae>%nDate: %ad%n%n%B", commit
    )
    stat = await _git(top, "show", "--stat", "--format=", commit)
    names_out = await _git(top, "show", "--name-only", "--format=", "-z", commit)
    names = [n.strip("\n") for n in names_out.split("\0") if n.strip("\n")]
    allowed, hidden = _split_allowed(top, names, ignore)
    patch = (
        (
            await _git(
                top, "show", "--no-ext-diff", "--no-textconv", "--format=", commit, "--", *allowed
            )
        )
        if allowed
        else ""
    )
    stat = stat.strip("\n").rstrip()  # keep the leading space of the first stat line
    text = f"{header.rstrip()}\n\n{stat}"
    if patch.strip():
        text += f"\n\n{patch.rstrip()}"
    return _bounded(text + _hidden_note(hidden))
