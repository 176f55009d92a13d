"""Files pycline reads on its own (rules, mentions, `.clineignore` includes) cannot be links out of
the workspace, into `/proc`, or FIFOs and devices that hang or flood the agent."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAI
from tests.security.attack import COMPLETE, model_saw, run, scripted

ENV_MARKER = "ENVIRON-LEAK-7d1c"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the workspace, holding what a repository must not reach."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("OUTSIDE-SECRET-1\n", encoding="utf-8")
    (folder / "rules.md").write_text("OUTSIDE-SECRET-2\n", encoding="utf-8")
    return folder


def test_rule_files_linked_out_of_the_repo_never_reach_the_model(
    isolated_home: Path, workspace: Path, outside: Path
) -> None:
    (workspace / "AGENTS.md").symlink_to("/proc/self/environ")
    (workspace / ".cursorrules").symlink_to(outside / "secret.txt")
    (workspace / ".clinerules").mkdir()
    (workspace / ".clinerules" / "leak.md").symlink_to(outside / "rules.md")
    (workspace / ".clinerules" / "all").symlink_to(outside)
    (workspace / ".clinerules" / "own.md").write_text("OWN-RULE-OK\n", encoding="utf-8")
    os.mkfifo(workspace / ".windsurfrules")
    os.mkfifo(workspace / ".clinerules" / "hang.md")
    with FakeOpenAI([COMPLETE]) as model:
        proc = run(
            workspace,
            isolated_home,
            "--provider",
            "openai",
            "--base-url",
            model.base_url,
            "--yes",
            env={"OPENAI_API_KEY": "sk-x", "LEAKY": ENV_MARKER},
            timeout=30,
        )
        sent = json.dumps([r.body for r in model.completions])
    # 4: the run refused an action that needed approval (pycline.app.services.exit_codes)
    assert proc.returncode in (0, 4), proc.stderr
    leaked = [m for m in (ENV_MARKER, "OUTSIDE-SECRET-1", "OUTSIDE-SECRET-2") if m in sent]
    assert leaked == []
    assert "OWN-RULE-OK" in sent


def test_mentions_that_resolve_outside_the_repo_or_at_fifos_are_refused(
    isolated_home: Path, workspace: Path, outside: Path
) -> None:
    (workspace / "linkdir").symlink_to(outside)
    (workspace / "link.txt").symlink_to(outside / "secret.txt")
    (workspace / "env.txt").symlink_to("/proc/self/environ")
    os.mkfifo(workspace / "pipe")
    (workspace / "ok.txt").write_text("INSIDE-OK\n", encoding="utf-8")
    task = (
        "see @/../outside/secret.txt @/linkdir/rules.md @/link.txt @/env.txt @/pipe "
        "@/linkdir/ @/ok.txt"
    )
    script = isolated_home / "s.json"
    script.write_text(json.dumps([COMPLETE]), encoding="utf-8")
    proc = run(
        workspace,
        isolated_home,
        "--provider",
        "scripted",
        "--script",
        str(script),
        "--yes",
        env={"LEAKY": ENV_MARKER},
        task=task,
        timeout=30,
    )
    # 4: the run refused an action that needed approval (pycline.app.services.exit_codes)
    assert proc.returncode in (0, 4), proc.stderr
    seen = model_saw(isolated_home)
    leaked = [m for m in (ENV_MARKER, "OUTSIDE-SECRET-1", "OUTSIDE-SECRET-2") if m in seen]
    assert leaked == []
    assert "INSIDE-OK" in seen


def test_clineignore_includes_read_only_a_bounded_regular_file_in_the_repo(
    isolated_home: Path, workspace: Path, outside: Path
) -> None:
    os.mkfifo(workspace / "patterns.fifo")
    (outside / "patterns").write_text("secret.txt\n", encoding="utf-8")
    (workspace / ".clineignore").write_text(
        "!include patterns.fifo\n!include /dev/zero\n!include ../outside/patterns\nhidden.txt\n",
        encoding="utf-8",
    )
    (workspace / "hidden.txt").write_text("HIDDEN-CONTENT\n", encoding="utf-8")
    proc = scripted(
        workspace,
        isolated_home,
        ["<read_file>\n<path>hidden.txt</path>\n</read_file>", COMPLETE],
        "--yes",
        timeout=30,
    )
    # 4: the run refused an action that needed approval (pycline.app.services.exit_codes)
    assert proc.returncode in (0, 4), proc.stderr
    assert "HIDDEN-CONTENT" not in model_saw(isolated_home)


# ---- skills, aliases of ignored files, and whether outside paths exist ---------------------


def test_a_skill_linked_out_of_the_repo_never_reaches_the_model(
    isolated_home: Path, workspace: Path, outside: Path
) -> None:
    (outside / "s.md").write_text(
        "---\nname: s\ndescription: SKILL-DESC-LEAK-3a\n---\nSKILL-BODY-LEAK-3b\n", encoding="utf-8"
    )
    (workspace / ".claude" / "skills" / "s").mkdir(parents=True)
    (workspace / ".claude" / "skills" / "s" / "SKILL.md").symlink_to(outside / "s.md")
    (workspace / ".claude" / "skills" / "t").symlink_to(outside)  # a whole skill folder
    (workspace / ".claude" / "skills" / "own").mkdir()
    (workspace / ".claude" / "skills" / "own" / "SKILL.md").write_text(
        "---\nname: own\ndescription: OWN-SKILL-OK\n---\nbody\n", encoding="utf-8"
    )
    use = "<use_skill>\n<skill_name>s</skill_name>\n</use_skill>"
    with FakeOpenAI([use, COMPLETE]) as model:
        proc = run(
            workspace,
            isolated_home,
            "--provider",
            "openai",
            "--base-url",
            model.base_url,
            env={"OPENAI_API_KEY": "sk-x"},
            timeout=30,
        )
        sent = json.dumps([r.body for r in model.completions])
    # 4: the run refused an action that needed approval (pycline.app.services.exit_codes)
    assert proc.returncode in (0, 4), proc.stderr
    assert "SKILL-DESC-LEAK-3a" not in sent and "SKILL-BODY-LEAK-3b" not in sent
    assert "OWN-SKILL-OK" in sent


def test_a_link_with_another_name_does_not_expose_an_ignored_file(
    isolated_home: Path, workspace: Path
) -> None:
    (workspace / ".clineignore").write_text("secret.py\nprivate/\n", encoding="utf-8")
    (workspace / "secret.py").write_text(
        "def IGNORED_FUNCTION_5e():\n    return 'IGNORED-BODY-5e'\n", encoding="utf-8"
    )
    (workspace / "private").mkdir()
    (workspace / "private" / "keys.py").write_text("PRIVATE_KEY_5f = 'IGNORED-5f'\n")
    (workspace / "alias.py").symlink_to("secret.py")
    (workspace / "pub").symlink_to("private")
    (workspace / "ok.py").write_text("def visible_function():\n    pass\n", encoding="utf-8")
    replies = [
        "<list_code_definition_names>\n<path>.</path>\n</list_code_definition_names>",
        "<read_file>\n<path>alias.py</path>\n</read_file>",
        "<read_file>\n<path>pub/keys.py</path>\n</read_file>",
        "<search_files>\n<path>.</path>\n<regex>IGNORED</regex>\n</search_files>",
        COMPLETE,
    ]
    script = isolated_home / "s.json"
    script.write_text(json.dumps(replies), encoding="utf-8")
    proc = run(
        workspace,
        isolated_home,
        "--provider",
        "scripted",
        "--script",
        str(script),
        "--yes",
        task="look at @/alias.py and @/ and @/pub/",
        timeout=30,
    )
    # 4: the run refused an action that needed approval (pycline.app.services.exit_codes)
    assert proc.returncode in (0, 4), proc.stderr
    seen = model_saw(isolated_home)
    leaked = [m for m in ("IGNORED_FUNCTION_5e", "IGNORED-BODY-5e", "IGNORED-5f") if m in seen]
    assert leaked == []
    assert "visible_function" in seen


def test_whether_a_path_outside_the_repo_exists_is_not_told_without_approval(
    isolated_home: Path, workspace: Path, outside: Path
) -> None:
    replies = [
        f"<read_file>\n<path>{outside / 'secret.txt'}</path>\n</read_file>",
        f"<read_file>\n<path>{outside / 'no-such-file.txt'}</path>\n</read_file>",
        f"<list_files>\n<path>{outside}</path>\n</list_files>",
        f"<list_files>\n<path>{outside / 'no-such-folder'}</path>\n</list_files>",
        COMPLETE,
    ]
    script = isolated_home / "s.json"
    script.write_text(json.dumps(replies), encoding="utf-8")
    proc = run(workspace, isolated_home, "--provider", "scripted", "--script", str(script))
    # 4: the run refused an action that needed approval (pycline.app.services.exit_codes)
    assert proc.returncode in (0, 4), proc.stderr
    history = json.loads(model_saw(isolated_home))
    results = [
        block["text"]
        for message in history
        if message["role"] == "user"
        for block in message["content"]
        if block.get("text", "").startswith("[")
    ]
    answers = [r.split("] Result:", 1)[-1] for r in results]
    assert len(answers) == 4
    assert answers[0] == answers[1] and answers[2] == answers[3]
    assert "not found" not in " ".join(answers).lower()
