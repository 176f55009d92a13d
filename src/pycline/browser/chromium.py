"""Locating a system Chromium and the flags we start it with.

pycline never downloads a browser: it uses the one named in the settings, in `PYCLINE_CHROMIUM`,
or the first Chromium/Chrome found on the system.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from pycline.errors import ToolError

ENV_VAR = "PYCLINE_CHROMIUM"

HOW_TO_ENABLE = (
    "Install the browser extra and a Chromium to enable it: pip install 'pycline[browser]' and "
    "e.g. `apt-get install chromium` (or set PYCLINE_CHROMIUM to a Chromium/Chrome executable)."
)

# Headless, no GPU, and no background traffic: machines without network (CI) otherwise fill the
# console with failed connection attempts and the first launch gets slower.
CHROMIUM_ARGS: tuple[str, ...] = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)

_NAMES = (
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
)
_PATHS = (
    "/usr/bin/chromium",
    "/usr/lib/chromium/chromium",
    "/snap/bin/chromium",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
)


class ChromiumNotFound(ToolError):
    """No usable Chromium: the message says where we looked and how to fix it."""


def _executable(path: str) -> bool:
    p = Path(path).expanduser()
    return p.is_file() and os.access(p, os.X_OK)


def find_chromium(configured: str | None = None) -> str:
    """The browser to launch: the configured path, then $PYCLINE_CHROMIUM, then the system's.

    An explicitly configured path that does not work is an error rather than a silent fallback,
    so the user learns their setting is wrong.
    """
    for origin, value in (("the setting", configured), (ENV_VAR, os.environ.get(ENV_VAR))):
        if value:
            if _executable(value):
                return str(Path(value).expanduser())
            raise ChromiumNotFound(
                f"The Chromium named by {origin} ({value}) does not exist or is not executable."
            )
    for name in _NAMES:
        found = shutil.which(name)
        if found:
            return found
    for path in _PATHS:
        if _executable(path):
            return path
    raise ChromiumNotFound(f"No Chromium or Chrome was found on this system. {HOW_TO_ENABLE}")
