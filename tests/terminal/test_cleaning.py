from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pycline.terminal.cleaning import StreamCleaner, clean_output, render_line, strip_ansi


def test_colour_codes_are_removed() -> None:
    assert clean_output("\x1b[1;31mERROR\x1b[0m: failed\n") == "ERROR: failed\n"


def test_osc_titles_and_hyperlinks_keep_only_the_visible_text() -> None:
    text = "\x1b]0;my title\x07\x1b]8;;https://x.y\x1b\\link\x1b]8;;\x1b\\ done\n"
    assert clean_output(text) == "link done\n"


def test_charset_and_keypad_escapes_are_removed() -> None:
    assert clean_output("\x1b(Bplain\x1b=\x1b>\n") == "plain\n"


def test_progress_bar_collapses_to_its_final_state() -> None:
    frames = "".join(f"\rDownloading {p:3d}%" for p in range(0, 101, 10))
    assert clean_output(f"start\n{frames}\ndone\n") == "start\nDownloading 100%\ndone\n"


def test_shorter_redraw_overwrites_only_its_own_width() -> None:
    # What a terminal shows: the old tail stays visible unless erased.
    assert render_line("abcdef\rXY") == "XYcdef"


def test_erase_line_escape_clears_the_old_frame() -> None:
    assert clean_output("Working on a long step\r\x1b[2KDone\n") == "Done\n"
    assert clean_output("Working on a long step\r\x1b[KDone\n") == "Done\n"


def test_cursor_to_column_one_acts_like_carriage_return() -> None:
    assert clean_output("10%\x1b[1G50%\x1b[G100%\n") == "100%\n"


def test_backspace_spinner_collapses() -> None:
    assert clean_output("Thinking -\b\\\b|\b/\b \n") == "Thinking\n"


def test_crlf_from_a_terminal_is_a_plain_newline() -> None:
    assert clean_output("a\r\nb\r\r\nc") == "a\nb\nc"


def test_trailing_carriage_return_keeps_the_line() -> None:
    assert clean_output("50%\r") == "50%"


def test_stray_control_characters_are_dropped() -> None:
    assert strip_ansi("a\x07b\x00c\tz\x1b") == "abc\tz"


def test_escape_split_across_chunks_is_still_removed() -> None:
    cleaner = StreamCleaner()
    first = cleaner.feed("red: \x1b[3")
    second = cleaner.feed("1mRED\x1b[0m\n")
    assert first.lines + second.lines == "red: RED\n"
    assert "\x1b" not in first.display + second.display


def test_crlf_split_across_chunks_is_one_newline() -> None:
    cleaner = StreamCleaner()
    out = cleaner.feed("a\r").lines + cleaner.feed("\nb\n").lines + cleaner.finish().lines
    assert out == "a\nb\n"


def test_plain_partial_line_is_shown_at_once_and_not_repeated() -> None:
    cleaner = StreamCleaner()
    first = cleaner.feed("Password: ")
    second = cleaner.feed("ok\n")
    assert first.display == "Password: "
    assert first.display + second.display == "Password: ok\n"
    assert first.lines + second.lines == "Password: ok\n"


def test_redrawn_partial_line_is_shown_when_finished() -> None:
    cleaner = StreamCleaner()
    shown = [cleaner.feed(chunk).display for chunk in ("\r10%", "\r50%", "\r100%\n")]
    assert "".join(shown) == "100%\n"


def test_line_shown_early_then_redrawn_ends_with_the_final_state() -> None:
    cleaner = StreamCleaner()
    shown = cleaner.feed("step 1").display + cleaner.feed("\rstep 2 done\n").display
    assert shown.endswith("step 2 done\n")


def test_endless_redraws_stay_bounded_in_memory() -> None:
    cleaner = StreamCleaner(max_line=1000)
    for i in range(5000):
        cleaner.feed(f"\rprogress {i:5d}")
    assert len(cleaner._line) <= 1000 + 20
    assert cleaner.finish().lines == "progress  4999"


def test_one_enormous_line_is_passed_on_in_pieces() -> None:
    cleaner = StreamCleaner(max_line=100)
    lines = "".join(cleaner.feed("x" * 70).lines for _ in range(10)) + cleaner.finish().lines
    assert lines == "x" * 700


SAMPLE = (
    "\x1b[32mok\x1b[0m line\r\n"
    "Downloading  10%\rDownloading  60%\r\x1b[2KDownloaded\n"
    "spin -\b\\\b|\b \n"
    "\x1b]0;title\x07tail without newline"
)


@given(st.lists(st.integers(min_value=0, max_value=len(SAMPLE)), max_size=12))
def test_any_chunking_gives_the_same_lines(cuts: list[int]) -> None:
    points = sorted(set(cuts))
    chunks = [SAMPLE[a:b] for a, b in zip([0, *points], [*points, len(SAMPLE)], strict=True)]
    cleaner = StreamCleaner()
    lines = "".join(cleaner.feed(c).lines for c in chunks) + cleaner.finish().lines
    assert lines == clean_output(SAMPLE)
    assert lines == "ok line\nDownloaded\nspin\ntail without newline"
