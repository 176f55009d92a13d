"""Which browser the tool drives: any Chromium-family browser the system has, or one Playwright
downloaded; never a download of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from pycline.browser.chromium import ChromiumNotFound, find_chromium, playwright_chromium


def _executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_edge_or_brave_on_path_is_used_when_there_is_no_chromium(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    edge = _executable(tmp_path / "bin" / "microsoft-edge")
    monkeypatch.setenv("PATH", str(edge.parent))
    monkeypatch.delenv("PYCLINE_CHROMIUM", raising=False)
    assert find_chromium() == str(edge)


def test_the_newest_browser_playwright_downloaded_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    browsers = tmp_path / "ms-playwright"
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(browsers))
    assert playwright_chromium() is None
    _executable(browsers / "chromium-1100" / "chrome-linux" / "chrome")
    newest = _executable(browsers / "chromium-1187" / "chrome-linux" / "chrome")
    _executable(browsers / "chromium_headless_shell-1200" / "chrome-linux" / "headless_shell")
    assert playwright_chromium() == str(newest)  # a full browser before the headless shell


def test_the_default_playwright_folder_is_in_the_users_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PLAYWRIGHT_BROWSERS_PATH", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    shell = _executable(
        tmp_path / "cache" / "ms-playwright" / "chromium_headless_shell-1200" / "chrome-linux"
        / "headless_shell"
    )  # fmt: skip
    assert playwright_chromium() == str(shell)


def test_a_browser_named_in_the_setting_that_is_not_there_is_an_error_not_a_fallback(
    tmp_path: Path,
) -> None:
    with pytest.raises(ChromiumNotFound, match=r"the setting \(.*nowhere\)"):
        find_chromium(str(tmp_path / "nowhere"))
