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
import pycline.providers.presets
import pycline.providers.model_info
import pycline.providers.model_probe
import pycline.providers.gemini_provider
import pycline.providers.cloud
import pycline.providers.factory
import pycline.app.settings.config
heavy = sorted(
    m
    for m in ("openai", "anthropic", "httpx2", "httpx", "google.genai", "google.auth", "boto3", "botocore")
    if m in sys.modules
)
print(",".join(heavy) or "none")
"""


def test_importing_the_adapters_does_not_import_the_sdks() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "none"
