"""What the shadow repository never tracks, written as git ignore patterns.

These go to the shadow dir's `info/exclude`, which git reads *below* the workspace's own
`.gitignore` files: the user's ignore rules apply first, ours add the heavy and generated stuff.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

# A `.git` (folder or gitfile) is never added by git anyway; listing it makes the intent explicit
# and keeps `ls-files --others` quiet about it.
GIT_PATTERNS = (".git", ".git/")

# Dependencies, virtualenvs, caches and build outputs: large, regenerable, and churned by tools
# rather than by the agent. We stay narrower than Cline (which also drops bin/, out/, pkg/, env/,
# temp/, vendor/) because those names often hold hand-written source.
HEAVY_DIRS = (
    "node_modules/",
    "bower_components/",
    "jspm_packages/",
    ".pnpm-store/",
    ".yarn/cache/",
    ".venv/",
    "venv/",
    "__pycache__/",
    ".mypy_cache/",
    ".pytest_cache/",
    ".ruff_cache/",
    ".tox/",
    ".nox/",
    ".eggs/",
    "*.egg-info/",
    "dist/",
    "build/",
    "target/",
    ".next/",
    ".nuxt/",
    ".svelte-kit/",
    ".angular/",
    ".turbo/",
    ".parcel-cache/",
    ".cache/",
    ".gradle/",
    ".dart_tool/",
    ".terraform/",
    ".stack-work/",
    "elm-stuff/",
    "Pods/",
    "DerivedData/",
    "coverage/",
    "htmlcov/",
    ".zig-cache/",
    "zig-cache/",
)

# Binary outputs, media and archives: no useful text diff, often large, rarely written by the agent.
BINARY_FILES = (
    "*.o",
    "*.obj",
    "*.a",
    "*.lib",
    "*.so",
    "*.so.*",
    "*.dylib",
    "*.dll",
    "*.exe",
    "*.class",
    "*.jar",
    "*.war",
    "*.pyc",
    "*.pyo",
    "*.whl",
    "*.node",
    "*.wasm",
    "*.zip",
    "*.tar",
    "*.gz",
    "*.tgz",
    "*.bz2",
    "*.xz",
    "*.zst",
    "*.7z",
    "*.rar",
    "*.iso",
    "*.dmg",
    "*.deb",
    "*.rpm",
    "*.apk",
    "*.jpg",
    "*.jpeg",
    "*.png",
    "*.gif",
    "*.bmp",
    "*.ico",
    "*.webp",
    "*.tif",
    "*.tiff",
    "*.heic",
    "*.avif",
    "*.psd",
    "*.mp3",
    "*.wav",
    "*.flac",
    "*.ogg",
    "*.opus",
    "*.m4a",
    "*.aac",
    "*.mp4",
    "*.m4v",
    "*.mov",
    "*.mkv",
    "*.avi",
    "*.webm",
    "*.wmv",
    "*.flv",
    "*.mpg",
    "*.mpeg",
    "*.pdf",
    "*.ttf",
    "*.otf",
    "*.woff",
    "*.woff2",
    # Live databases and logs change under running programs; restoring them mid-run corrupts them.
    "*.sqlite",
    "*.sqlite3",
    "*.sqlite-journal",
    "*.sqlite-wal",
    "*.db",
    "*.db-journal",
    "*.log",
)

DEFAULT_EXCLUDES: tuple[str, ...] = GIT_PATTERNS + HEAVY_DIRS + BINARY_FILES

# Overrides every `.gitattributes` in the workspace so what is stored is exactly the bytes on disk:
# no end-of-line conversion, no clean/smudge filters (git-lfs), no `ident` or re-encoding.
# Without this a restore would not be byte-exact in repositories that set `text=auto`.
ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding\n"

LARGE_FILES_HEADER = "# pycline: files over the size limit (rewritten on every checkpoint)"

_GLOB_SPECIAL = frozenset("*?[]\\")


def literal_pattern(rel_path: str) -> str:
    """An ignore pattern matching exactly `rel_path` (relative, `/`-separated) from the root."""
    escaped = "".join("\\" + ch if ch in _GLOB_SPECIAL else ch for ch in rel_path)
    if escaped.endswith(" "):
        # Trailing spaces are stripped from patterns unless escaped.
        escaped = escaped[:-1] + "\\ "
    # The leading slash anchors it to the root and also defuses a leading `#` or `!`.
    return "/" + escaped


def exclude_file_text(static: Sequence[str], large_files: Iterable[str]) -> str:
    lines = [
        "# Written by pycline; the workspace's own .gitignore files apply before these.",
        *static,
    ]
    large = sorted(large_files)
    if large:
        lines.append(LARGE_FILES_HEADER)
        lines.extend(literal_pattern(p) for p in large)
    return "\n".join(lines) + "\n"
