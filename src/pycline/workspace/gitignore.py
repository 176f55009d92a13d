"""Git's ignore rules for a walk: `.gitignore` files at every level plus `.git/info/exclude`.

The walker carries a chain of rule files from the repository root down to the folder it is in;
the deepest file with a matching pattern decides, as in git.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pathspec

from pycline.workspace.confined import read_text

GITIGNORE = ".gitignore"


@dataclass(frozen=True, slots=True)
class _RuleFile:
    spec: pathspec.GitIgnoreSpec
    strip: str  # prefix of walk-relative paths below this file's folder ("sub/"), or ""
    add: str  # prefix turning a walk-relative path into one relative to this file's folder
    # All patterns in one regex: most paths match none, and one search is far cheaper than
    # asking pathspec pattern by pattern. Only a hit goes on to pathspec for the verdict.
    quick: re.Pattern[str] | None


_GROUP_NAME = re.compile(r"\(\?P<\w+>")


def _quick(spec: pathspec.GitIgnoreSpec) -> re.Pattern[str] | None:
    parts = []
    for pattern in spec.patterns:
        regex = getattr(pattern, "regex", None)
        if pattern.include is None or regex is None:
            continue
        if not isinstance(regex, re.Pattern) or "(?P=" in regex.pattern:
            return None  # not something we can merge safely: always ask pathspec
        parts.append(f"(?:{_GROUP_NAME.sub('(?:', regex.pattern)})")
    try:
        return re.compile("|".join(parts)) if parts else re.compile(r"(?!)")
    except re.error:
        return None


def _rule(spec: pathspec.GitIgnoreSpec, strip: str, add: str) -> _RuleFile:
    return _RuleFile(spec, strip, add, _quick(spec))


@dataclass(frozen=True, slots=True)
class IgnoreChain:
    """The rule files that apply inside one folder, shallowest first."""

    files: tuple[_RuleFile, ...] = ()

    def ignored(self, rel: str, *, is_dir: bool) -> bool:
        """`rel` is relative to the walk root, with forward slashes and no trailing slash."""
        suffix = "/" if is_dir else ""
        for rule in reversed(self.files):
            if rule.strip and not rel.startswith(rule.strip):
                continue
            path = rule.add + rel[len(rule.strip) :] + suffix
            if rule.quick is not None and rule.quick.search(path) is None:
                continue
            result = rule.spec.check_file(path)
            if result.include is not None:
                return bool(result.include)
        return False

    def enter(self, folder: Path, rel: str) -> IgnoreChain:
        """The chain inside `folder` (walk-relative `rel`, "" for the root): adds its .gitignore."""
        spec = _read_spec(folder / GITIGNORE)
        if spec is None:
            return self
        strip = f"{rel}/" if rel else ""
        return IgnoreChain((*self.files, _rule(spec, strip, "")))


# Far beyond any real one; a bigger file is read only this far.
MAX_GITIGNORE_CHARS = 1_000_000


def _read_spec(path: Path) -> pathspec.GitIgnoreSpec | None:
    try:
        text = read_text(path, MAX_GITIGNORE_CHARS)
    except OSError:
        return None
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    if not lines:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)


def repository_root(path: Path) -> Path | None:
    """The nearest folder at or above `path` that holds a `.git` (folder or file)."""
    for candidate in (path, *path.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def chain_for(root: Path, *, base: Path | None = None) -> IgnoreChain:
    """The rules that apply to entries directly inside `root`, before its own .gitignore.

    Rule files of the git repository above `root` apply (its `info/exclude` and each
    `.gitignore` from the repository root down to `root`'s parent). Outside a repository,
    `.gitignore` files from `base` (e.g. the workspace root) down apply, if given.
    """
    repo = repository_root(root)
    top = repo if repo is not None else base
    files: list[_RuleFile] = []
    if top is None:
        return IgnoreChain()
    try:
        below = root.relative_to(top)
    except ValueError:
        return IgnoreChain()
    if repo is not None:
        exclude = _read_spec(repo / ".git" / "info" / "exclude")
        if exclude is not None:
            files.append(_rule(exclude, "", _prefix(below.parts)))
    folder = top
    parts = below.parts
    for i in range(len(parts)):
        spec = _read_spec(folder / GITIGNORE)
        if spec is not None:
            files.append(_rule(spec, "", _prefix(parts[i:])))
        folder = folder / parts[i]
    return IgnoreChain(tuple(files))


def _prefix(parts: tuple[str, ...]) -> str:
    return "".join(f"{p}/" for p in parts)
