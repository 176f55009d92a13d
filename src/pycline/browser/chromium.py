"""Locating a Chromium-family browser and the flags we start it with.

pycline itself never downloads a browser: it uses the one named in the settings, in
`PYCLINE_CHROMIUM`, or the first Chromium, Chrome, Edge or Brave found on the system, and
last one that Playwright downloaded (`python -m playwright install chromium`) if the user did.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

from pycline.errors import ToolError

ENV_VAR = "PYCLINE_CHROMIUM"
# Playwright is a dependency: without it the install is incomplete.
REINSTALL = "Reinstall pycline (sh install.sh in its folder) to get it back."

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
    "microsoft-edge",
    "microsoft-edge-stable",
    "brave-browser",
)
_PATHS = (
    "/usr/bin/chromium",
    "/usr/lib/chromium/chromium",
    "/snap/bin/chromium",
    "/opt/google/chrome/chrome",
    "/opt/microsoft/msedge/msedge",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
    "/Applications/Brave Browser.app/Contents/MacOS/Brave Browser",
)
# Inside a Playwright browsers folder: `chromium-1187/chrome-linux/chrome` and the like.
_PLAYWRIGHT_BUILDS = (
    "chromium-*/chrome-*/chrome",
    "chromium-*/chrome-*/Chromium.app/Contents/MacOS/Chromium",
    "chromium-*/chrome-*/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
    "chromium_headless_shell-*/chrome-*/headless_shell",
)


class ChromiumNotFound(ToolError):
    """No usable browser: the message says where we looked and how to fix it."""


def install_hint() -> str:
    """One line: how to get a browser the tool can drive, on this system."""
    fetch = f"{Path(sys.executable)} -m playwright install chromium"
    if sys.platform == "darwin":
        local = "install Chrome or Chromium (brew install --cask chromium)"
    elif shutil.which("apt-get"):
        local = "sudo apt-get install chromium"
    elif shutil.which("dnf"):
        local = "sudo dnf install chromium"
    else:
        local = "install Chromium, Chrome or Edge"
    return (
        f"{local}; or let Playwright download one: {fetch}; "
        f"or point browserExecutablePath (or ${ENV_VAR}) at a Chromium-family browser"
    )


def _executable(path: str | Path) -> bool:
    p = Path(path).expanduser()
    return p.is_file() and os.access(p, os.X_OK)


def _playwright_folders() -> Iterator[Path]:
    configured = os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
    if configured and configured != "0":
        yield Path(configured).expanduser()
        return
    if sys.platform == "darwin":
        yield Path.home() / "Library" / "Caches" / "ms-playwright"
    elif os.name == "nt":
        yield Path(os.environ.get("LOCALAPPDATA", Path.home())) / "ms-playwright"
    else:
        yield Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ms-playwright"


def _revision(path: Path, folder: Path) -> int:
    found = re.search(r"-(\d+)$", path.relative_to(folder).parts[0])
    return int(found[1]) if found else 0


def playwright_chromium() -> str | None:
    """The newest browser Playwright downloaded, if any (full Chromium before the shell)."""
    for folder in _playwright_folders():
        if not folder.is_dir():
            continue
        for pattern in _PLAYWRIGHT_BUILDS:
            builds = [p for p in folder.glob(pattern) if _executable(p)]
            if builds:
                return str(max(builds, key=lambda p: _revision(p, folder)))
    return None


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
                f"the browser named by {origin} ({value}) does not exist or is not executable"
            )
    for name in _NAMES:
        found = shutil.which(name)
        if found:
            return found
    for path in _PATHS:
        if _executable(path):
            return path
    downloaded = playwright_chromium()
    if downloaded:
        return downloaded
    raise ChromiumNotFound("no Chromium, Chrome or Edge was found")
