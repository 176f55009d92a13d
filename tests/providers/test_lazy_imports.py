"""Importing the adapters must not import the SDKs: `pycline --help` stays fast."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
import pycline.providers.anthropic_provider
import pycline.providers.catalog
import pycline.providers.convert
import pycline.providers.errors
import pycline.providers.openai_compat
heavy = sorted(m for m in ("openai", "anthropic", "httpx2", "httpx") if m in sys.modules)
print(",".join(heavy) or "none")
"""


def test_importing_the_adapters_does_not_import_the_sdks() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "none"
