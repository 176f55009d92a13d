"""What to cover inside the home folders a sandboxed command sees: found by rule, not by name.

A toolchain folder shown read-only still holds what no command should reach. A socket or a FIFO
accepts `connect()` and `open()` on a read-only mount, and the network namespace does not cover
the file system: `git credential-cache`'s socket under `~/.cache/git/credential` hands out the
user's token to whoever asks. And stores of credentials sit next to the caches (uv's
`credentials/credentials.toml`, Julia's `servers/*/auth.toml`, Hugging Face's `token`), under
names no list keeps complete. So each shown folder is looked through before a command:

- every socket and FIFO found in it is covered, and so is every live one the kernel knows of
  (`/proc/net/unix` lists the bound sockets, the processes' open files the FIFOs in use), deeper
  than the look goes or appeared since;
- every file or folder whose name says it holds credentials (auth, credential, token, secret,
  password, keyring, cookies, as a word of the name; a file only when it is data, not code:
  `token.py` in a Python install is not one) is covered, and so are the documented stores that
  have no such word in their names (npm's `npmrc`, `.netrc`, `.pgpass`, private keys).

The look is breadth-first, stays out of package trees (installed libraries, registries, build
caches: nothing of the user's lives there, and they hold most of the files), goes at most
`MAX_DEPTH` deep and through at most `MAX_ENTRIES` entries of each shown folder; a folder already looked through is
not read again until it changes.
"""

from __future__ import annotations

import os
import re
import stat
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

MAX_DEPTH = 6
MAX_ENTRIES = 20_000  # per shown folder
MAX_COVERED = 2_000

_WORDS = (
    r"credentials?|creds?|auth|oauth|tokens?|secrets?|passwords?|passwd|keyrings?|keychains?"
    r"|api[-_]?keys?|cookies|pat"
)
_CREDENTIAL_WORD = re.compile(rf"(?:^|[._\-\s])(?:{_WORDS})(?:[._\-\s]|$)", re.IGNORECASE)
# Suffixes of data files: a credential-named file with another suffix is code or a program.
_DATA_SUFFIXES = frozenset(
    {
        "", ".json", ".toml", ".yml", ".yaml", ".txt", ".conf", ".cfg", ".ini", ".xml",
        ".properties", ".db", ".sqlite", ".sqlite3", ".dat", ".keyring", ".enc", ".gpg", ".asc",
        ".pem", ".key", ".sbt", ".env", ".bin", ".jwt", ".tfrc", ".kdbx",
    }
)  # fmt: skip
# Documented credential stores whose names carry none of those words.
_STORES = frozenset(
    {
        "npmrc", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc", ".netrc", "_netrc", ".pgpass",
        ".my.cnf", ".mylogin.cnf", ".env", ".vault-token", ".s3cfg", ".boto", ".databrickscfg",
        "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk",
        "settings-security.xml", ".gnupg", ".ssh", ".password-store", ".aws", ".docker",
        "kaggle.json", ".bash_history", ".zsh_history", ".python_history",
    }
)  # fmt: skip
# Package trees: installed libraries and downloads, looked past (they hold most of the files,
# and a name like `auth/` or `token.py` in them is code).
_PACKAGE_TREES = frozenset(
    {
        "lib", "lib64", "include", "site-packages", "dist-packages", "node_modules", "bin",
        "sbin", "libexec", "man", "src", "pkg", "registry", "toolchains", "packages", "artifacts",
        "compiled", "registries", "repository", "caches", "wrapper", "go-build", "http",
        "http-v2", "wheels", "_cacache", "__pycache__", ".git", "archive-v0", "sdists-v6",
        "wheels-v5", "builds-v0", "git-v0", "simple-v16", "interpreter-v4", "environments-v2",
        "ms-playwright", "downloads", "index", "jdks", "sources", "docs", "doc", "share",
    }
)  # fmt: skip

_SPECIAL = (stat.S_IFSOCK, stat.S_IFIFO)


def is_credential_name(name: str, *, folder: bool) -> bool:
    """Whether a file or folder of that name holds credentials, by rule."""
    if name in _STORES or name.lower() in _STORES:
        return True
    if not _CREDENTIAL_WORD.search(name):
        return False
    return folder or os.path.splitext(name)[1].lower() in _DATA_SUFFIXES


def to_cover(shown: Sequence[Path]) -> list[Path]:
    """The paths inside `shown` (folders as the command sees them) to cover: sockets, FIFOs
    and credential stores, as paths inside the sandbox, outermost first."""
    places = [(str(place), os.path.realpath(place)) for place in shown if place.is_dir()]
    found: dict[str, None] = {}
    for place, real in places:
        for rel in _looked_through(real, [MAX_ENTRIES]):
            found[os.path.join(place, rel)] = None
    reals = tuple(real + "/" for _, real in places)
    for live in (*_bound_sockets(), *_open_fifos(reals)):
        for place, real in places:
            if live.startswith(real + "/"):
                found[os.path.join(place, live[len(real) + 1 :])] = None
    ordered = sorted(found, key=lambda p: p.count("/"))
    kept: list[str] = []
    for path in ordered:
        if not any(path.startswith(k + "/") for k in kept):
            kept.append(path)
    return [Path(p) for p in kept[:MAX_COVERED]]


# folder (real path) -> (its identity when read, what to cover in it, its sub-folders)
_Listing = tuple[tuple[int, int, int], list[str], list[str]]
_seen: dict[str, _Listing] = {}
_lock = threading.Lock()


def _looked_through(root: str, budget: list[int]) -> Iterable[str]:
    """Paths relative to `root` to cover, breadth-first within the limits."""
    level: list[str] = [""]
    for _ in range(MAX_DEPTH):
        deeper: list[str] = []
        for rel in level:
            if budget[0] <= 0:
                return
            listing = _listing(os.path.join(root, rel) if rel else root, budget)
            if listing is None:
                continue
            _, cover, folders = listing
            yield from (os.path.join(rel, name) if rel else name for name in cover)
            deeper += [os.path.join(rel, name) if rel else name for name in folders]
        level = deeper
        if not level:
            return


def _listing(folder: str, budget: list[int]) -> _Listing | None:
    try:
        st = os.stat(folder, follow_symlinks=False)
    except OSError:
        return None
    identity = (st.st_dev, st.st_ino, st.st_mtime_ns)
    with _lock:
        cached = _seen.get(folder)
    if cached is not None and cached[0] == identity:
        return cached
    cover: list[str] = []
    folders: list[str] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                budget[0] -= 1
                _sort(entry, cover, folders)
    except OSError:
        return None
    listing = (identity, cover, folders)
    with _lock:
        _seen[folder] = listing
    return listing


def _sort(entry: os.DirEntry[str], cover: list[str], folders: list[str]) -> None:
    try:
        if entry.is_symlink():
            return  # where it leads is looked at there, or is out of sight

        mode = entry.stat(follow_symlinks=False).st_mode if _maybe_special(entry) else 0
        is_dir = entry.is_dir(follow_symlinks=False)
    except OSError:
        return
    if stat.S_IFMT(mode) in _SPECIAL or is_credential_name(entry.name, folder=is_dir):
        cover.append(entry.name)
    elif is_dir and entry.name not in _PACKAGE_TREES:
        folders.append(entry.name)


def _maybe_special(entry: os.DirEntry[str]) -> bool:
    """Whether the entry may be a socket or FIFO (scandir knows the type without a stat)."""
    try:
        return not (entry.is_file(follow_symlinks=False) or entry.is_dir(follow_symlinks=False))
    except OSError:
        return True


def _bound_sockets() -> list[str]:
    """The paths of the Unix sockets bound in this network namespace (absolute ones)."""
    try:
        with open("/proc/net/unix", encoding="utf-8", errors="replace") as table:
            lines = table.read().splitlines()[1:]
    except OSError:
        return []
    out = []
    for line in lines:
        fields = line.split(None, 7)
        if len(fields) == 8 and fields[7].startswith("/"):
            out.append(os.path.realpath(fields[7]))
    return out


def _open_fifos(inside: tuple[str, ...]) -> list[str]:
    """FIFOs inside those folders that this user's processes have open, by path."""
    uid = os.getuid()
    out: list[str] = []
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return []
    for pid in pids[:4_000]:
        fd_dir = f"/proc/{pid}/fd"
        try:
            if os.stat(f"/proc/{pid}").st_uid != uid:
                continue
            fds = os.listdir(fd_dir)
        except OSError:
            continue
        for fd in fds[:1_000]:
            try:
                target = os.readlink(f"{fd_dir}/{fd}")
                if target.startswith(inside) and stat.S_ISFIFO(os.stat(target).st_mode):
                    out.append(target)
            except OSError:
                continue
    return out
