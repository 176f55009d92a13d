"""Each thing is said once: repeated notices, retry countdowns, start-up notices across sessions."""

from __future__ import annotations

from pathlib import Path

from pycline.app.services.notices import first_time
from pycline.cli.notices import Shown

REACH = "Cannot reach http://127.0.0.1:9/v1 (refused). Check the base URL and the server."


def test_a_retry_countdown_shows_the_reason_once_then_only_what_changed() -> None:
    shown = Shown()
    assert shown.notice(f"{REACH} — retrying in 1s (attempt 1 of 3).") == (
        f"{REACH} — retrying in 1s (attempt 1 of 3)."
    )
    assert shown.notice(f"{REACH} — retrying in 2s (attempt 2 of 3).") == (
        "  … retrying in 2s (attempt 2 of 3)."
    )


def test_the_same_notice_twice_is_shown_once_and_different_ones_in_full() -> None:
    shown = Shown()
    assert shown.notice("Checkpoints are off for this task: no git.") is not None
    assert shown.notice("Checkpoints are off for this task: no git.") is None
    assert shown.notice("History condensed.") == "History condensed."


def test_an_error_already_shown_is_known() -> None:
    shown = Shown()
    shown.error("Incorrect API key provided ")
    assert shown.already("Incorrect API key provided")
    assert not shown.already("Something else")


def test_a_start_up_notice_is_shown_in_the_first_session_only_until_it_changes(
    tmp_path: Path,
) -> None:
    assert first_time(tmp_path, "browser", "no chromium")
    assert not first_time(tmp_path, "browser", "no chromium")
    assert first_time(tmp_path, "browser", "playwright missing")
    assert first_time(tmp_path, "other", "no chromium")
