"""Running git in a repository someone else made: nothing its config says may run a program.

A repository's own config (and a packed project ships one) can name programs git then runs on
its own: hooks, an fsmonitor, clean/smudge/process filters chosen by `.gitattributes`, diff
drivers (`textconv`, `command`), merge drivers, a pager, an editor, a signing program. Before
each call the config is listed, and every such entry is overridden on the command line:
filters and merge drivers of any scope are emptied (a merge that needs one conflicts), hooks
and fsmonitor are off, diffs run with `--no-ext-diff --no-textconv`, and a program named by the
repository instead of the user's own (global or system) config is replaced by the user's, or by
the plain default. A config that includes a file from the work tree or the git directory
(which a sandboxed command can rewrite between our look and git's) is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

SCAN_TIMEOUT = 15.0

# Always passed: they win over any config file.
FORCED = (
    "core.fsmonitor=false",
    f"core.hooksPath={os.devnull}",
    "diff.external=",
    "core.pager=cat",
    "gc.auto=0",
    "maintenance.auto=false",
    "submodule.recurse=false",
)
# Subcommands that can run a diff driver unless told not to.
_DIFF_LIKE = frozenset(
    {"diff", "show", "log", "whatchanged", "format-patch", "blame", "annotate", "range-diff"}
)
# Keys that name a program or turn one on: when the repository sets one, the user's own value
# (else this) is used.
_PINNED = {
    "commit.gpgsign": "false",
    "tag.gpgsign": "false",
    "core.sshcommand": "ssh",
    "core.editor": "false",
    "sequence.editor": "false",
    "core.askpass": "",
    "gpg.program": "gpg",
    "gpg.openpgp.program": "gpg",
    "gpg.x509.program": "gpgsm",
    "gpg.ssh.program": "ssh-keygen",
}
_UNTRUSTED_SCOPES = frozenset({"local", "worktree"})


class UnsafeRepository(Exception):
    """The repository's config cannot be made safe to run git with."""


@dataclass(frozen=True, slots=True)
class ConfigEntry:
    scope: str
    origin: str  # "file:PATH", "command line:", …
    key: str  # lower-case section and name, subsection as written
    value: str


def parse_listing(raw: bytes) -> list[ConfigEntry]:
    """`git config --list --show-scope --show-origin -z` output."""
    fields = raw.decode("utf-8", errors="surrogateescape").split("\0")
    entries: list[ConfigEntry] = []
    for i in range(0, len(fields) - 2, 3):
        scope, origin, item = fields[i], fields[i + 1], fields[i + 2]
        key, _, value = item.partition("\n")
        entries.append(ConfigEntry(scope, origin, key, value))
    return entries


def overrides(
    entries: Sequence[ConfigEntry], *, top: Path | None, common: Path | None
) -> list[str]:
    """The `key=value` settings that neutralise what `entries` make git run."""
    _check_origins(entries, top=top, common=common)
    out: list[str] = list(FORCED)
    trusted: dict[str, str] = {}
    repository_sets: set[str] = set()
    signing_pinned = False
    for entry in entries:
        section, _, rest = entry.key.partition(".")
        name, _, leaf = rest.rpartition(".")
        if section == "filter" and leaf in ("clean", "smudge", "process", "required"):
            _check_name(name)
            for part in ("clean", "smudge", "process"):
                out.append(f"filter.{name}.{part}=")
            out.append(f"filter.{name}.required=false")
        elif section == "merge" and leaf == "driver" and name:
            _check_name(name)
            out.append(f"merge.{name}.driver=false")
        elif entry.key in _PINNED or entry.key == "gpg.ssh.defaultkeycommand":
            if entry.scope in _UNTRUSTED_SCOPES:
                repository_sets.add(entry.key)
            else:
                trusted[entry.key] = entry.value
        elif entry.key == "core.worktree" and entry.scope in _UNTRUSTED_SCOPES:
            out.append(f"core.worktree={_natural_work_tree(common)}")
    for key in sorted(repository_sets):
        if key in trusted:
            out.append(f"{key}={trusted[key]}")
        elif key in _PINNED:
            out.append(f"{key}={_PINNED[key]}")
        else:
            signing_pinned = True
    if signing_pinned:
        out += ["commit.gpgSign=false", "tag.gpgSign=false"]
    return _deduplicated(out)


def safe_subcommand(args: Sequence[str]) -> list[str]:
    """`args` with diff drivers off for the subcommands that would run them."""
    if args and args[0] in _DIFF_LIKE:
        return [args[0], "--no-ext-diff", "--no-textconv", *args[1:]]
    return list(args)


async def safe_argv(
    exe: str,
    cwd: Path,
    env: Mapping[str, str],
    args: Sequence[str],
    *,
    timeout: float = SCAN_TIMEOUT,
) -> list[str]:
    """The full command line running `git args` in `cwd` with the repository's programs off.

    Raises UnsafeRepository when the config cannot be made safe.
    """
    forced = [arg for item in FORCED for arg in ("-c", item)]
    code, where = await _run(
        [
            exe,
            *forced,
            "rev-parse",
            "--path-format=absolute",
            "--git-common-dir",
            "--show-toplevel",
        ],
        cwd,
        env,
        timeout,
    )
    lines = where.decode("utf-8", errors="surrogateescape").splitlines()
    common = _resolved(lines[0]) if lines and os.path.isabs(lines[0]) else None
    top = _resolved(lines[1]) if code == 0 and len(lines) > 1 else None
    if top is None and common is not None and common.name == ".git":
        top = common.parent
    code, listing = await _run(
        [exe, *forced, "config", "--list", "--show-scope", "--show-origin", "-z"], cwd, env, timeout
    )
    entries = parse_listing(listing) if code == 0 else []
    settings = overrides(entries, top=top, common=common)
    return [exe, *(arg for item in settings for arg in ("-c", item)), *safe_subcommand(args)]


def _check_origins(
    entries: Sequence[ConfigEntry], *, top: Path | None, common: Path | None
) -> None:
    """Refuse a repository config that includes a file the work tree or git directory holds
    (other than the config files themselves, which a sandbox keeps read-only)."""
    for entry in entries:
        if entry.scope not in _UNTRUSTED_SCOPES or not entry.origin.startswith("file:"):
            continue
        raw = entry.origin[len("file:") :]
        path = Path(raw) if os.path.isabs(raw) else (top or Path.cwd()) / raw
        path = Path(os.path.normpath(path))
        with contextlib.suppress(OSError):
            path = path.resolve()
        if path.name in ("config", "config.worktree") and common is not None:
            in_git_dir = path.parent == common or (
                path.name == "config.worktree" and path.is_relative_to(common)
            )
            if in_git_dir:
                continue
        inside = [p for p in (top, common) if p is not None and path.is_relative_to(p)]
        if inside:
            raise UnsafeRepository(
                f"the repository's git config includes {path}, a file inside the repository "
                "that commands can change; pycline does not run git with it"
            )


def _resolved(path: str) -> Path:
    with contextlib.suppress(OSError):
        return Path(path).resolve()
    return Path(path)


def _check_name(name: str) -> None:
    if not name or "=" in name or "\n" in name:
        raise UnsafeRepository(f"the repository's git config names a driver {name!r}")


def _natural_work_tree(common: Path | None) -> str:
    if common is None or common.name != ".git":
        raise UnsafeRepository("the repository's git config moves its work tree elsewhere")
    return str(common.parent)


def _deduplicated(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


async def _run(
    argv: list[str], cwd: Path, env: Mapping[str, str], timeout: float
) -> tuple[int, bytes]:
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=dict(env),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as exc:
        raise UnsafeRepository(f"git could not be started: {exc}") from exc
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), timeout)
    except (TimeoutError, asyncio.CancelledError) as exc:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        await asyncio.shield(proc.wait())
        if isinstance(exc, TimeoutError):
            raise UnsafeRepository("git took too long to list its config") from None
        raise
    return proc.returncode or 0, out
