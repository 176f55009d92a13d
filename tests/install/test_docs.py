"""The README a new user follows and the reference pages made from the code (the site itself is
built with `mkdocs build --strict` in .ci/run)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

from pycline.cli.main import COMMANDS

REPO = Path(__file__).resolve().parents[2]


def _readme_blocks() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```sh\n(.*?)```", readme, re.S)


def test_the_readme_starts_with_the_clone_then_the_two_set_up_commands() -> None:
    clone, install, ci = (b.strip() for b in _readme_blocks()[:3])
    assert re.fullmatch(r"git clone \S+ && cd pycline", clone)
    assert install == "sh install.sh"
    assert ci == "bash .ci/run"


def test_the_readme_usage_names_every_command() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    usage = readme[readme.index("## Usage") :]
    usage = usage[: usage.index("```\n", usage.index("```sh") + 5)]
    missing = [c for c in COMMANDS if not re.search(rf"(pycline|·|\|) {c}\b|\b{c} (ID|\[)", usage)]
    assert not missing, f"the README's usage block does not mention: {missing}"


def test_ci_says_it_uses_sudo_before_it_does() -> None:
    run = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert run.index("with sudo apt-get") < run.index("$SUDO apt-get")
    assert "sudo" in run.splitlines()[3]  # and in its opening comment


def test_install_sh_is_plain_sh() -> None:
    subprocess.run(["sh", "-n", str(REPO / "install.sh")], check=True, timeout=30)


@pytest.fixture(scope="module")
def reference() -> ModuleType:
    path = REPO / "docs" / "_hooks" / "reference.py"
    spec = importlib.util.spec_from_file_location("docs_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_setting_is_described_in_the_reference(reference: ModuleType) -> None:
    from pycline.app.settings.settings_model import Settings

    keys = {key for key, _, _ in reference._leaves(Settings)}
    described = set(reference.DESCRIPTIONS)
    assert keys - described == set(), "describe them in docs/_hooks/settings_help.py"
    assert described - keys == set(), "docs/_hooks/settings_help.py describes no such setting"
    page = reference.settings_page()
    assert "| `installLanguageServers` | boolean | `true` |" in page
    assert "| `sandbox` | `off` \\| `workspace-write` \\| `read-only` | unset |" in page


def test_the_command_reference_has_every_command_and_subcommand(reference: ModuleType) -> None:
    page = reference.commands_page()
    for command in COMMANDS:
        assert f"## `pycline {command}`" in page
    assert "### `pycline mcp add`" in page
    assert "`--json`" in page


def test_each_shipped_schema_gets_a_page(reference: ModuleType) -> None:
    schemas = sorted((REPO / "src" / "pycline" / "schema").glob("*.json"))
    assert schemas
    for schema in schemas:
        page = reference.schema_page(schema)
        assert page.startswith("# ")
        assert f"`{schema.name}`" in page


def test_the_committed_reference_pages_are_made_from_the_code(reference: ModuleType) -> None:
    for path, content in reference.committed_pages().items():
        on_disk = (REPO / "docs" / path).read_text(encoding="utf-8")
        assert on_disk == content, f"docs/{path} is stale: run python docs/_hooks/reference.py"


def test_every_link_in_the_readme_opens_a_file_in_the_repository() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    links = [t for t in re.findall(r"\]\(([^)#\s]+)", readme) if "://" not in t]
    assert "docs/reference/commands.md" in links and "docs/reference/settings.md" in links
    missing = [t for t in links if not (REPO / t).exists()]
    assert not missing, f"the README links files the repository does not have: {missing}"


def test_the_exit_code_page_lists_every_exit_code_with_its_meaning() -> None:
    from pycline.app.services.exit_codes import MEANINGS, ExitCode

    page = (REPO / "docs" / "reference" / "exit-codes.md").read_text(encoding="utf-8")
    assert set(MEANINGS) == set(ExitCode)
    for code in ExitCode:
        assert f"| {int(code)} | `{code.name}` | {MEANINGS[code]} |" in page
    assert len(set(map(int, ExitCode))) == len(ExitCode)  # no number means two things


def test_the_readme_says_how_long_the_tests_take_and_how_to_run_one_file() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    ci = readme[readme.index("bash .ci/run") : readme.index("## A five-minute tour")]
    assert re.search(r"about \d+ minutes", ci)
    one = re.search(r"`\.venv/bin/python -m pytest -q (tests/\S+\.py)`", ci)
    assert one is not None and (REPO / one.group(1)).is_file()
    test = re.search(r"`::(test_\w+)`", ci)
    assert test is not None
    assert f"def {test.group(1)}(" in (REPO / one.group(1)).read_text(encoding="utf-8")
