"""@mentions: Cline's regex table, then expansion of each kind against real files and git."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pycline.errors import ToolError
from pycline.tools.base import AllowAll
from pycline.workspace.ignore import IgnoreRules
from pycline.workspace.mentions import MENTION_RE, expand_mentions, find_mentions

from .helpers import write

VECTORS = Path(__file__).parents[1] / "conformance" / "context_mentions_regex.json"
CASES: list[dict[str, Any]] = json.loads(VECTORS.read_text(encoding="utf-8"))


def test_conformance_table_is_complete() -> None:
    assert len(CASES) == 93


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_regex_matches_cline(case: dict[str, Any]) -> None:
    if case["op"] == "first_match":
        m = MENTION_RE.search(case["input"])
        assert (m.group(0) if m else None) == case["expected"]
    else:
        assert [m.group(0) for m in MENTION_RE.finditer(case["input"])] == case["expected"]


def test_mention_kinds() -> None:
    kinds = [(m.kind, m.value) for m in find_mentions(
        'see @/a.py @"/b c.md" @https://x.io @abc1234 @problems @terminal @git-changes'
    )]  # fmt: skip
    assert kinds == [
        ("path", "a.py"),
        ("path", "b c.md"),
        ("url", "https://x.io"),
        ("hash", "abc1234"),
        ("problems", "problems"),
        ("terminal", "terminal"),
        ("git-changes", "git-changes"),
    ]


async def test_text_without_mentions_is_unchanged(workspace: Path) -> None:
    assert await expand_mentions("plain text", workspace, ignore=AllowAll()) == "plain text"


async def test_file_mention_appends_its_content(workspace: Path) -> None:
    write(workspace, "src/a.py", "print('hi')\n")
    out = await expand_mentions("Fix @/src/a.py.", workspace, ignore=AllowAll())
    assert out == (
        "Fix 'src/a.py' (file content below).\n\n"
        "<file_content path=\"src/a.py\">\nprint('hi')\n</file_content>"
    )


async def test_quoted_path_with_spaces(workspace: Path) -> None:
    write(workspace, "my notes.txt", "remember\n")
    out = await expand_mentions('Read @"/my notes.txt"', workspace, ignore=AllowAll())
    assert '<file_content path="my notes.txt">\nremember\n</file_content>' in out


async def test_repeated_mention_is_expanded_once(workspace: Path) -> None:
    write(workspace, "a.txt", "A\n")
    out = await expand_mentions("@/a.txt and again @/a.txt", workspace, ignore=AllowAll())
    assert out.count("<file_content") == 1
    assert out.startswith("'a.txt' (file content below) and again 'a.txt' (file content below)")


async def test_missing_and_binary_files(workspace: Path) -> None:
    (workspace / "blob.bin").write_bytes(b"\x00\x01\x02")
    out = await expand_mentions("@/nope.txt @/blob.bin", workspace, ignore=AllowAll())
    assert "nope.txt does not exist" in out
    assert "(Binary file, not shown.)" in out


async def test_blocked_file_is_refused(workspace: Path) -> None:
    write(workspace, ".clineignore", ".env\n")
    write(workspace, ".env", "TOKEN=secret-value\n")
    out = await expand_mentions("@/.env", workspace, ignore=IgnoreRules.load(workspace))
    assert "secret-value" not in out and ".clineignore" in out


async def test_folder_mention_lists_and_includes_small_files(workspace: Path) -> None:
    write(workspace, ".clineignore", "docs/private.md\n")
    write(workspace, "docs/guide.md", "# Guide\n")
    write(workspace, "docs/private.md", "classified\n")
    write(workspace, "docs/img/logo.txt", "logo\n")
    out = await expand_mentions("See @/docs/", workspace, ignore=IgnoreRules.load(workspace))
    assert out.startswith("See 'docs/' (folder content below)")
    assert "├── guide.md" in out and "img/" in out and "🔒 private.md" in out
    assert '<file_content path="docs/guide.md">\n# Guide\n</file_content>' in out
    assert "classified" not in out and "logo\n" not in out


async def test_url_uses_the_fetcher_or_says_it_cannot(workspace: Path) -> None:
    async def fetch(url: str) -> str:
        return f"# page at {url}"

    out = await expand_mentions(
        "@https://example.com/x", workspace, ignore=AllowAll(), fetch_url=fetch
    )
    assert '<url_content url="https://example.com/x">\n# page at https://example.com/x\n' in out
    out = await expand_mentions("@https://example.com/x", workspace, ignore=AllowAll())
    assert "no web fetcher" in out


async def test_url_fetch_errors_become_text(workspace: Path) -> None:
    async def fetch(url: str) -> str:
        raise ToolError("HTTP 404")

    out = await expand_mentions("@https://e.com", workspace, ignore=AllowAll(), fetch_url=fetch)
    assert "Error fetching content: HTTP 404" in out


async def test_problems_and_terminal(workspace: Path) -> None:
    async def terminal() -> str:
        return "$ make\nok\n"

    out = await expand_mentions(
        "@problems then @terminal",
        workspace,
        ignore=AllowAll(),
        problems="a.py:1 E1",
        terminal=terminal,
    )
    assert "<workspace_diagnostics>\na.py:1 E1\n</workspace_diagnostics>" in out
    assert "<terminal_output>\n$ make\nok\n</terminal_output>" in out
    out = await expand_mentions("@problems", workspace, ignore=AllowAll())
    assert "No errors or warnings detected." in out


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@e", *args],
        cwd=root, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip


async def test_git_changes_show_status_and_diff_but_not_hidden_files(workspace: Path) -> None:
    git(workspace, "init", "-q")
    write(workspace, ".clineignore", "secret.txt\n")
    write(workspace, "a.py", "x = 1\n")
    write(workspace, "secret.txt", "old\n")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "first")
    write(workspace, "a.py", "x = 2\n")
    write(workspace, "secret.txt", "new-secret\n")
    out = await expand_mentions("@git-changes", workspace, ignore=IgnoreRules.load(workspace))
    assert " M a.py" in out and "+x = 2" in out
    assert "new-secret" not in out and "1 changed file(s) hidden" in out


async def test_commit_mention_shows_the_commit(workspace: Path) -> None:
    git(workspace, "init", "-q")
    write(workspace, "a.py", "x = 1\n")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "add a.py")
    short = git(workspace, "rev-parse", "--short=8", "HEAD").strip()
    out = await expand_mentions(f"what did @{short} do?", workspace, ignore=AllowAll())
    assert out.startswith(f"what did commit '{short}' (details below) do?")
    assert f'<git_commit hash="{short}">' in out
    assert "add a.py" in out and "+x = 1" in out


async def test_unknown_commit_and_no_repository(workspace: Path) -> None:
    out = await expand_mentions("@deadbeef1 @git-changes", workspace, ignore=AllowAll())
    assert "Not a git repository." in out
    git(workspace, "init", "-q")
    out = await expand_mentions("@deadbeef1", workspace, ignore=AllowAll())
    assert "not a commit in this repository" in out


async def test_git_off_leaves_git_mentions_alone(workspace: Path) -> None:
    out = await expand_mentions(
        "@abcdef12 and @git-changes", workspace, ignore=AllowAll(), git=False
    )
    assert out == "@abcdef12 and @git-changes"
