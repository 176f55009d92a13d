"""Rules files for the system prompt (SPEC §12).

Sources, in order: the global rules folder (`PYCLINE_HOME/rules`), the workspace's `.clinerules`
(a file, or a folder of `.md`/`.txt` files), `.cursorrules`, `.windsurfrules` and `AGENTS.md`.
Each file can be switched off with a toggle. A file whose front matter has `paths:` (globs relative
to the workspace) applies only when one of the files in play matches.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pycline.storage.paths import pycline_home
from pycline.workspace.confined import read_confined

RULE_SUFFIXES = frozenset({".md", ".txt"})
# Subfolders of `.clinerules` that hold other things than rules (workflows, hooks, skills).
_NOT_RULES = frozenset({"workflows", "hooks", "skills"})
_SINGLE_FILES = (".cursorrules", ".windsurfrules", "AGENTS.md")
MAX_RULE_CHARS = 100_000


@dataclass(frozen=True, slots=True)
class RuleFile:
    name: str  # how the source is named in the prompt, e.g. ".clinerules/style.md"
    path: Path
    is_global: bool = False


def global_rules_dir() -> Path:
    return pycline_home() / "rules"


def _rule_files_in(folder: Path) -> list[Path]:
    found: list[Path] = []
    try:
        children = sorted(folder.iterdir(), key=lambda p: p.name.casefold())
    except OSError:
        return found
    for child in children:
        if child.is_symlink() and child.is_dir():
            continue  # a linked folder may lead anywhere, even back into itself
        if child.is_dir():
            if child.name not in _NOT_RULES and not child.name.startswith("."):
                found.extend(_rule_files_in(child))
        elif child.suffix.lower() in RULE_SUFFIXES and child.is_file():
            found.append(child)
    return found


def discover(root: Path, *, global_dir: Path | None = None) -> list[RuleFile]:
    """Every rules file that exists, enabled or not (for a UI offering toggles)."""
    files: list[RuleFile] = []
    gdir = global_dir if global_dir is not None else global_rules_dir()
    if gdir.is_dir():
        for path in _rule_files_in(gdir):
            files.append(RuleFile(f"global rules: {path.relative_to(gdir).as_posix()}", path, True))
    clinerules = root / ".clinerules"
    if clinerules.is_dir():
        for path in _rule_files_in(clinerules):
            files.append(RuleFile(path.relative_to(root).as_posix(), path))
    elif clinerules.is_file():
        files.append(RuleFile(".clinerules", clinerules))
    for name in _SINGLE_FILES:
        path = root / name
        if path.is_file():
            files.append(RuleFile(name, path))
    return files


def _enabled(rule: RuleFile, root: Path, toggles: Mapping[str, bool] | None) -> bool:
    if not toggles:
        return True
    keys = [str(rule.path), rule.path.as_posix(), rule.name]
    if not rule.is_global:
        keys.append(rule.path.relative_to(root).as_posix())
    else:
        keys.append(rule.name.removeprefix("global rules: "))
    for key in keys:
        if key in toggles:
            return bool(toggles[key])
    return True


def gather_rules(
    root: Path,
    *,
    toggles: Mapping[str, bool] | None = None,
    global_toggles: Mapping[str, bool] | None = None,
    paths_in_play: Sequence[str] = (),
    global_dir: Path | None = None,
) -> str:
    """One block naming each applicable rules file, or "" when there are none.

    `toggles` / `global_toggles` map a rule file's path (absolute, or relative to the workspace
    or to the global folder) to whether it is on; files not named are on. `paths_in_play` are the
    files the task is working with (relative to the workspace, or absolute).
    """
    root = Path(root)
    gdir = global_dir if global_dir is not None else global_rules_dir()
    in_play: list[str] | None = None  # made when a rule asks: a long task has many paths
    sections: list[str] = []
    for rule in discover(root, global_dir=gdir):
        if not _enabled(rule, root, global_toggles if rule.is_global else toggles):
            continue
        try:
            # A repository's rules file may be a link to anything: only what resolves inside
            # its own folder, and is a regular file, is read.
            data = read_confined(rule.path, gdir if rule.is_global else root, MAX_RULE_CHARS * 4)
        except OSError:
            continue
        text = data.decode("utf-8", errors="replace")[:MAX_RULE_CHARS]
        front, body = split_front_matter(text)
        if front is not None and "paths" in front:
            if in_play is None:
                in_play = _relative_paths(root, paths_in_play)
            if not any(matches_glob(p, g) for g in front["paths"] for p in in_play):
                continue
        body = body.strip()
        if body:
            sections.append(f"# Rules from {rule.name}\n{body}")
    return "\n\n".join(sections)


def _relative_paths(root: Path, paths: Iterable[str]) -> list[str]:
    out = []
    for raw in paths:
        p = Path(raw)
        if p.is_absolute():
            try:
                p = p.relative_to(root)
            except ValueError:
                continue
        text = p.as_posix()
        out.append(text[2:] if text.startswith("./") else text)
    return out


# --- front matter ----------------------------------------------------------------------------

_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$")
_ITEM = re.compile(r"^\s*-(?:\s+(.*))?$")


def split_front_matter(text: str) -> tuple[dict[str, list[str]] | None, str]:
    """(keys -> list of values, body). Without front matter, or when it cannot be read, the
    keys are None and the body is the whole text: an unreadable header never hides a rule."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return None, text
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        return None, text
    parsed = _parse_header(lines[1:end])
    if parsed is None:
        return None, text
    return parsed, "\n".join(lines[end + 1 :])


def _parse_header(lines: list[str]) -> dict[str, list[str]] | None:
    """The small YAML subset rules use: `key: value`, `key: [a, b]`, and `- item` lists."""
    result: dict[str, list[str]] = {}
    current: str | None = None
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        item = _ITEM.match(line)
        if item is not None:
            if current is None:
                return None
            result[current].append(_scalar(item.group(1) or ""))
            continue
        if line[:1].isspace():
            if current is None:
                return None
            continue  # a nested value of some key; only flat keys and lists matter here
        key = _KEY.match(line)
        if key is None:
            return None
        current = key.group(1)
        value = key.group(2).strip()
        if not value:
            result[current] = []
        elif value.startswith("["):
            if not value.endswith("]"):
                return None
            inner = value[1:-1].strip()
            result[current] = [_scalar(v) for v in _split_flow(inner)] if inner else []
        else:
            result[current] = [_scalar(value)]
    return result


def _split_flow(inner: str) -> list[str]:
    """Split `a, "b,c", 'd'` at commas outside quotes."""
    parts: list[str] = []
    buf: list[str] = []
    quote: str | None = None
    for ch in inner:
        if quote:
            buf.append(ch)
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
            buf.append(ch)
        elif ch == ",":
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
    parts.append("".join(buf))
    return [p.strip() for p in parts if p.strip()]


def _scalar(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    if " #" in value:
        value = value.split(" #", 1)[0].rstrip()
    return value


# --- globs -----------------------------------------------------------------------------------


def matches_glob(path: str, pattern: str) -> bool:
    """Glob match on a workspace-relative path: `*` stays within a folder, `**` crosses folders,
    `?`, `[abc]` and `{a,b}` work as in shells."""
    return _glob_regex(pattern.strip().removeprefix("./")).fullmatch(path) is not None


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    return re.compile(_translate(pattern))


def _translate(glob: str) -> str:
    out: list[str] = []
    i = 0
    n = len(glob)
    while i < n:
        c = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[" and "]" in glob[i + 1 :]:
            end = glob.index("]", i + 1)
            body = glob[i + 1 : end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append(f"[{body.replace(chr(92), chr(92) * 2)}]")
            i = end + 1
        elif c == "{" and "}" in glob[i + 1 :]:
            end = glob.index("}", i + 1)
            options = glob[i + 1 : end].split(",")
            out.append("(?:" + "|".join(_translate(o) for o in options) + ")")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)
