"""`web_fetch` to loopback, private, link-local or metadata addresses needs the user's approval;
`--yes` never gives it."""

from __future__ import annotations

from pathlib import Path

import pytest

from pycline.tools.addresses import non_public_reason
from tests.fakes.openai_server import FakeOpenAI
from tests.security.attack import COMPLETE, scripted


def fetch(url: str) -> str:
    return f"<web_fetch>\n<url>{url}</url>\n</web_fetch>"


def test_a_headless_run_never_fetches_a_loopback_address(
    isolated_home: Path, workspace: Path
) -> None:
    with FakeOpenAI() as victim:
        replies = [
            fetch(f"{victim.origin}/admin"),
            fetch(f"http://localhost:{victim.port}/admin"),
            fetch(f"http://[::ffff:127.0.0.1]:{victim.port}/admin"),
            COMPLETE,
        ]
        proc = scripted(workspace, isolated_home, replies, "--yes")
        hits = list(victim.requests)
    # 4: the run refused an action that needed approval (pycline.app.services.exit_codes)
    assert proc.returncode in (0, 4), proc.stderr
    assert hits == []


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://localhost:8080/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00::1]/",
        "http://10.1.2.3/",
        "http://192.168.0.1/",
        "http://[::1]/",
        "http://0.0.0.0/",
        "http://metadata.google.internal/",
        "http://[::ffff:169.254.169.254]/",
    ],
)
async def test_non_public_addresses_are_recognised(url: str) -> None:
    assert await non_public_reason(url) is not None


async def test_a_public_address_is_not_flagged() -> None:
    assert await non_public_reason("http://93.184.215.14/") is None
