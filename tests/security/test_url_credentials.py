"""A key written into a base URL (`http://user:token@host`) is never printed or stored."""

from __future__ import annotations

from pathlib import Path

from pycline.errors import redact_url_credentials
from tests.security.attack import run

TOKEN = "tok-SECRET-77aa"


def test_an_unreachable_base_url_with_credentials_is_reported_without_them(
    isolated_home: Path, workspace: Path
) -> None:
    proc = run(
        workspace,
        isolated_home,
        "--provider",
        "openai",
        "--base-url",
        f"http://user:{TOKEN}@127.0.0.1:9/v1",
        "--api-key",
        "k",
    )
    assert proc.returncode != 0
    assert "Cannot reach http://***@127.0.0.1:9/v1" in proc.stderr + proc.stdout
    assert TOKEN not in proc.stderr + proc.stdout
    stored = "".join(p.read_text(errors="replace") for p in isolated_home.rglob("*") if p.is_file())
    assert TOKEN not in stored


def test_redaction_covers_every_url_form() -> None:
    text = f"at https://{TOKEN}@h/v1 and HTTP://a:{TOKEN}@h:1/x?q=1 but not a@b.c"
    out = redact_url_credentials(text)
    assert TOKEN not in out and "a@b.c" in out and "https://***@h/v1" in out
