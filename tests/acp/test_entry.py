"""The `pycline acp` entry point, its lazy import, and the registry manifest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pycline

REPO = Path(__file__).resolve().parents[2]


def test_the_cli_imports_the_acp_sdk_only_when_acp_runs() -> None:
    check = "import sys, pycline.main; print('acp' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "False"


def test_pycline_acp_has_its_own_help() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pycline", "acp", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0
    assert "Agent Client Protocol" in result.stdout


def test_the_registry_manifest_runs_pycline_acp_through_uvx_at_this_version() -> None:
    manifest = json.loads((REPO / "agent.json").read_text(encoding="utf-8"))
    assert manifest["id"] == "pycline"
    assert manifest["version"] == pycline.__version__
    assert manifest["distribution"]["uvx"] == {"package": pycline.DISTRIBUTION, "args": ["acp"]}
    assert {"name", "description", "authors", "license", "license_url"} <= manifest.keys()


def test_the_manifest_package_is_this_project_and_runs_under_its_own_name() -> None:
    """`uvx PACKAGE acp` runs the executable named like the package: this project must both be
    that distribution and provide that command (`pycline` on PyPI is someone else's)."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    package = json.loads((REPO / "agent.json").read_text(encoding="utf-8"))["distribution"]["uvx"]
    assert project["name"] == package["package"] == pycline.DISTRIBUTION != "pycline"
    assert project["version"] == pycline.__version__
    scripts = project["scripts"]
    assert scripts[package["package"]] == scripts["pycline"] == "pycline.main:run"
