"""`@mentions` in user text (SPEC §12): each one expands to the content it names.

`@/path/file`, `@/dir/`, `@"/path with spaces"`, `@https://…`, a commit hash, `@problems`,
`@terminal`, `@git-changes`. The mention in the text is replaced by a short label and the content
follows the text in a tagged block. Files hidden by `.clineignore` are refused.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeAlias

from pycline.errors import ToolError
from pycline.workspace.access import AccessRules
from pycline.workspace.confined import NotReadable, read_confined, resolved_inside
from pycline.workspace.git_context import commit_details, working_changes
from pycline.workspace.listing import list_workspace

# A quoted path; an unquoted path or URL (trailing punctuation left out); a commit hash; a keyword.
MENTION_RE = re.compile(
    r"@(?:"
    r'"(?P<quoted>/[^"]*)"'
    r"|(?P<path>(?:/|\w+://)\S*?)(?=[.,;:!?]*(?:\s|$))"
    r"|(?P<hash>[a-f0-9]{7,40})\b"
    r"|(?P<keyword>problems|git-changes|terminal)\b"
    r")"
)

TextSource: TypeAlias = str | Callable[[], str | Awaitable[str]]
UrlFetcher: TypeAlias = Callable[[str], Awaitable[str]]

MAX_FILE_CHARS = 400_000
FOLDER_FILE_CHARS = 100_000
FOLDER_MAX_FILES = 20
FOLDER_TOTAL_CHARS = 300_000

Kind: TypeAlias = Literal["path", "url", "hash", "problems", "terminal", "git-changes"]


@dataclass(frozen=True, slots=True)
class Mention:
    kind: Kind
    value: str  # the path without its leading "/", the URL, the hash, or the keyword
    raw: str  # the text as written, e.g. `@"/a b.txt"`


def find_mentions(text: str) -> list[Mention]:
    return [_mention(m) for m in MENTION_RE.finditer(text)]


def _mention(m: re.Match[str]) -> Mention:
    raw = m.group(0)
    if m.group("quoted") is not None:
        return Mention("path", m.group("quoted")[1:], raw)
    path = m.group("path")
    if path is not None:
        return Mention("path", path[1:], raw) if path.startswith("/") else Mention("url", path, raw)
    if m.group("hash") is not None:
        return Mention("hash", m.group("hash"), raw)
    keyword = m.group("keyword")
    if keyword == "problems":
        return Mention("problems", keyword, raw)
    if keyword == "terminal":
        return Mention("terminal", keyword, raw)
    return Mention("git-changes", keyword, raw)


def _label(mention: Mention, is_dir: bool) -> str:
    match mention.kind:
        case "path":
            shown = mention.value.rstrip("/") + "/" if is_dir else mention.value
            return f"'{shown or '/'}' ({'folder' if is_dir else 'file'} content below)"
        case "url":
            return f"'{mention.value}' (page content below)"
        case "hash":
            return f"commit '{mention.value}' (details below)"
        case "problems":
            return "the workspace problems (listed below)"
        case "terminal":
            return "the terminal output (below)"
        case "git-changes":
            return "the working-directory changes (below)"


async def expand_mentions(
    text: str,
    root: Path,
    *,
    ignore: AccessRules,
    fetch_url: UrlFetcher | None = None,
    problems: TextSource | None = None,
    terminal: TextSource | None = None,
    git: bool = True,
) -> str:
    """`text` with each mention replaced by a label, followed by the content blocks.

    `problems` and `terminal` give the diagnostics and terminal output (text, or a function
    returning it, called only when mentioned). With `git=False` commit hashes and
    `@git-changes` are left as written.
    """
    mentions = find_mentions(text)
    if not mentions:
        return text
    root = Path(root)
    labels: dict[str, str] = {}
    blocks: list[str] = []
    for mention in mentions:
        if mention.raw in labels:
            continue
        if not git and mention.kind in ("hash", "git-changes"):
            labels[mention.raw] = mention.raw
            continue
        is_dir = mention.kind == "path" and (
            mention.value.endswith("/") or not mention.value or _is_dir(root / mention.value)
        )
        labels[mention.raw] = _label(mention, is_dir)
        blocks.append(await _block(mention, root, ignore, is_dir, fetch_url, problems, terminal))
    body = MENTION_RE.sub(lambda m: labels.get(m.group(0), m.group(0)), text)
    return body + "".join(f"\n\n{block}" for block in blocks)


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):  # a name too long, a NUL byte: not a folder we can show
        return False


async def _block(
    mention: Mention,
    root: Path,
    ignore: AccessRules,
    is_dir: bool,
    fetch_url: UrlFetcher | None,
    problems: TextSource | None,
    terminal: TextSource | None,
) -> str:
    match mention.kind:
        case "path":
            if is_dir:
                return _folder_block(root, mention.value, ignore)
            return file_block(root, mention.value, ignore)
        case "url":
            return await _url_block(mention.value, fetch_url)
        case "hash":
            details = await commit_details(root, mention.value, ignore=ignore)
            return f'<git_commit hash="{mention.value}">\n{details}\n</git_commit>'
        case "git-changes":
            changes = await working_changes(root, ignore=ignore)
            return f"<git_working_state>\n{changes}\n</git_working_state>"
        case "problems":
            found = await _text_of(problems)
            return (
                "<workspace_diagnostics>\n"
                f"{found.strip() if found and found.strip() else 'No errors or warnings detected.'}"
                "\n</workspace_diagnostics>"
            )
        case "terminal":
            output = await _text_of(terminal)
            shown = output.rstrip() if output and output.strip() else "No terminal output."
            return f"<terminal_output>\n{shown}\n</terminal_output>"


async def _text_of(source: TextSource | None) -> str | None:
    if source is None or isinstance(source, str):
        return source
    value = source()
    if inspect.isawaitable(value):
        return str(await value)
    return str(value)


async def _url_block(url: str, fetch_url: UrlFetcher | None) -> str:
    if fetch_url is None:
        content = "(The page was not fetched: no web fetcher is available here.)"
    else:
        try:
            content = await fetch_url(url)
        except (ToolError, OSError, TimeoutError, ValueError) as exc:
            content = f"Error fetching content: {exc}"
    return f'<url_content url="{url}">\n{content}\n</url_content>'


def _read_text(path: Path, limit: int, root: Path) -> str:
    data = read_confined(path, root, limit + 1)
    if b"\x00" in data[:8192]:
        return "(Binary file, not shown.)"
    text = data[:limit].decode("utf-8", errors="replace").rstrip("\n")
    if len(data) > limit:
        text += f"\n[… truncated after {limit:,} bytes; use read_file with a line range for more]"
    return text


def file_block(root: Path, rel: str, ignore: AccessRules) -> str:
    """`rel` (relative to `root`) as a tagged block of its content, or of why it is not shown."""
    path = root / rel
    try:
        if ignore.blocked(path):
            content = f"Error fetching content: {rel} is blocked by the .clineignore file settings."
        else:
            content = _read_text(path, MAX_FILE_CHARS, root)
    except NotReadable as exc:
        content = f"Error fetching content: {exc}; ask for it with read_file instead."
    except FileNotFoundError:
        content = f"Error fetching content: {rel} does not exist."
    except OSError as exc:
        content = f"Error fetching content: {exc.strerror or exc}"
    except ValueError:
        content = f"Error fetching content: {rel[:200]!r} is not a valid path."
    return f'<file_content path="{rel}">\n{content}\n</file_content>'


def _folder_block(root: Path, rel: str, ignore: AccessRules) -> str:
    rel = rel.rstrip("/")
    folder = root / rel if rel else root
    shown = f"{rel}/" if rel else "/"
    if ignore.blocked(folder):
        body = f"Error fetching content: {shown} is blocked by the .clineignore file settings."
        return f'<folder_content path="{shown}">\n{body}\n</folder_content>'
    try:
        resolved_inside(folder, root)
    except NotReadable as exc:
        body = f"Error fetching content: {exc}; ask for it with list_files instead."
        return f'<folder_content path="{shown}">\n{body}\n</folder_content>'
    if not folder.is_dir():
        body = f"Error fetching content: {shown} does not exist."
        return f'<folder_content path="{shown}">\n{body}\n</folder_content>'
    entries, truncated = list_workspace(folder, recursive=False, limit=500, ignore=ignore)
    lines = []
    for i, entry in enumerate(entries):
        branch = "└── " if i == len(entries) - 1 and not truncated else "├── "
        lines.append(f"{branch}{'🔒 ' if entry.blocked else ''}{entry.path}")
    if truncated:
        lines.append("└── …")
    contents: list[str] = []
    total = 0
    for entry in entries:
        if entry.is_dir or entry.blocked or len(contents) >= FOLDER_MAX_FILES:
            continue
        path = folder / entry.path
        try:
            if path.stat().st_size > FOLDER_FILE_CHARS or total > FOLDER_TOTAL_CHARS:
                continue
            text = _read_text(path, FOLDER_FILE_CHARS, root)
        except OSError:
            continue
        if text.startswith("(Binary file"):
            continue
        total += len(text)
        name = f"{rel}/{entry.path}" if rel else entry.path
        contents.append(f'<file_content path="{name}">\n{text}\n</file_content>')
    body = "\n".join(lines) if lines else "(empty folder)"
    if contents:
        body += "\n\n" + "\n".join(contents)
    return f'<folder_content path="{shown}">\n{body}\n</folder_content>'
