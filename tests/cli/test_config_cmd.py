"""`pycline config get|set|unset|list` and `pycline auth`, run in-process through `main`."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from pycline.app.settings.config import settings_path
from pycline.app.settings.secrets import SecretStore
from pycline.cli.main import main


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def saved(home: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads(settings_path(home).read_text("utf-8"))
    return data


def test_set_parses_json_values_and_get_reads_them_back(
    isolated_home: Path, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    w = ("--cwd", str(workspace))
    assert cli(capsys, "config", "set", "autoApprove.editFiles", "true", *w)[0] == 0
    assert cli(capsys, "config", "set", "maxRetries", "5", *w)[0] == 0
    assert cli(capsys, "config", "set", "model", "gpt-4o-mini", *w)[0] == 0
    assert cli(capsys, "config", "set", "linters.*.py", '["ruff", "check", "{file}"]', *w)[0] == 0
    assert cli(capsys, "config", "set", "mcpAutoApprove.my.server", '["t"]', *w)[0] == 0
    assert saved(isolated_home) == {
        "autoApprove": {"editFiles": True},
        "maxRetries": 5,
        "model": "gpt-4o-mini",
        "linters": {"*.py": ["ruff", "check", "{file}"]},
        "mcpAutoApprove": {"my.server": ["t"]},
    }
    assert cli(capsys, "config", "get", "autoApprove.editFiles", *w)[1] == "true\n"
    assert cli(capsys, "config", "get", "model", *w)[1] == "gpt-4o-mini\n"
    assert cli(capsys, "config", "get", "autoApprove.useBrowser", *w)[1] == "false\n"  # default
    assert cli(capsys, "config", "get", "linters.*.py", *w)[1] == '["ruff", "check", "{file}"]\n'


def test_a_numeric_looking_model_name_is_kept_as_text(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(capsys, "config", "set", "model", "1.5")[0] == 0
    assert saved(isolated_home) == {"model": "1.5"}


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("autoApprove.editFiles", "maybe", "'autoApprove.editFiles' must be true or false"),
        ("maxRetries", "-2", "'maxRetries' must be ≥ 0, not -2"),
        ("autoApprove.edit", "true", "unknown setting 'autoApprove.edit'"),
        ("openaiApiKey", "sk-nope", "looks like a credential"),
        ("provider", "gemini-ish", "unknown provider 'gemini-ish'"),
        ("activeProfile", "work", "activeProfile 'work' is not one of the profiles"),
    ],
)
def test_a_bad_value_is_refused_and_the_file_is_unchanged(
    isolated_home: Path,
    capsys: pytest.CaptureFixture[str],
    key: str,
    value: str,
    message: str,
) -> None:
    assert cli(capsys, "config", "set", "notifications", "true")[0] == 0
    before = settings_path(isolated_home).read_bytes()
    code, out, err = cli(capsys, "config", "set", key, value)
    assert code == 2 and out == ""
    assert err.startswith("pycline: ") and message in err and err.count("\n") == 1
    assert "Traceback" not in err and "sk-nope" not in err
    assert settings_path(isolated_home).read_bytes() == before
    leftovers = [p.name for p in settings_path(isolated_home).parent.iterdir()]
    assert leftovers == ["settings.json"]  # no temp file left behind


def test_unset_returns_to_the_default_and_drops_empty_objects(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli(capsys, "config", "set", "autoApprove.yolo", "true")
    cli(capsys, "config", "set", "notifications", "true")
    assert cli(capsys, "config", "unset", "autoApprove.yolo")[0] == 0
    assert saved(isolated_home) == {"notifications": True}
    assert cli(capsys, "config", "get", "autoApprove.yolo")[1] == "false\n"
    code, out, _ = cli(capsys, "config", "unset", "autoApprove.yolo")
    assert code == 0 and "was not set" in out
    code, _, err = cli(capsys, "config", "unset", "nonsense")
    assert code == 2 and "Unknown setting 'nonsense'" in err


def test_workspace_file_is_edited_with_its_own_limits(
    isolated_home: Path, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    w = ("--workspace", "--cwd", str(workspace))
    assert cli(capsys, "config", "set", "model", "small-model", *w)[0] == 0
    assert cli(capsys, "config", "set", "autoApprove.readFiles", "false", *w)[0] == 0
    local = json.loads((workspace / ".pycline" / "settings.json").read_text("utf-8"))
    assert local == {"model": "small-model", "autoApprove": {"readFiles": False}}
    assert not settings_path(isolated_home).exists()
    code, _, err = cli(capsys, "config", "set", "autoApprove.editFiles", "true", *w)
    assert code == 2 and "can only be turned on in the global settings" in err
    code, _, err = cli(capsys, "config", "set", "baseUrl", "http://evil.example/v1", *w)
    assert code == 2 and "can only be set in the global settings" in err
    # What is in force in the workspace: its own value over the default.
    assert cli(capsys, "config", "get", "model", "--cwd", str(workspace))[1] == "small-model\n"
    assert cli(capsys, "config", "get", "autoApprove.readFiles", *w)[1] == "false\n"


def test_list_marks_where_each_value_comes_from_and_json_is_complete(
    isolated_home: Path, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli(capsys, "config", "set", "autoApprove.editFiles", "true")
    cli(capsys, "config", "set", "maxRetries", "1", "--workspace", "--cwd", str(workspace))
    code, out, _ = cli(capsys, "config", "list", "--cwd", str(workspace))
    assert code == 0
    lines = out.splitlines()
    assert "autoApprove.editFiles = true  # global" in lines
    assert "maxRetries = 1  # workspace" in lines
    assert "autoApprove.readFiles = true" in lines  # a default: no mark
    code, out, _ = cli(capsys, "config", "list", "--json", "--cwd", str(workspace))
    data = json.loads(out)
    assert data["autoApprove"]["editFiles"] is True and data["maxRetries"] == 1
    assert data["notifications"] is False and "apiKey" not in out
    code, out, _ = cli(capsys, "config", "list", "--json", "--workspace", "--cwd", str(workspace))
    assert json.loads(out) == {"maxRetries": 1}


def test_a_broken_settings_file_is_reported_not_a_traceback(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = settings_path(isolated_home)
    path.parent.mkdir(parents=True)
    path.write_text('{"maxRetries": ', encoding="utf-8")
    code, _, err = cli(capsys, "config", "list")
    assert code == 2 and err.startswith(f"pycline: {path} is not valid JSON")


def test_auth_with_key_stores_it_privately_and_never_prints_it(
    isolated_home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = cli(capsys, "auth", "openai", "--key", "sk-auth-flag-4242")
    assert code == 0 and "sk-auth-flag-4242" not in out + err
    assert "secrets.json (readable only by you)" in out
    assert SecretStore(isolated_home).get("openai") == "sk-auth-flag-4242"
    assert stat.S_IMODE(os.stat(isolated_home / "secrets.json").st_mode) == 0o600
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    code, out, _ = cli(capsys, "auth", "openai", "--key", "sk-auth-flag-4343")
    assert "OPENAI_API_KEY is set in this environment" in out
    code, out, _ = cli(capsys, "auth", "openai", "--remove")
    assert code == 0 and "Removed" in out and SecretStore(isolated_home).get("openai") is None


def test_auth_refuses_an_empty_or_malformed_key(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(capsys, "auth", "anthropic", "--key", "two words")
    assert code == 2 and "one word" in err and "two words" not in err
    assert not (isolated_home / "secrets.json").exists()
