from __future__ import annotations

import pytest

from pycline.context.budget import max_allowed, should_compact
from pycline.context.tokens import (
    CHARS_PER_TOKEN,
    IMAGE_TOKENS,
    MESSAGE_OVERHEAD,
    estimate_message,
    estimate_messages,
    estimate_text,
)
from pycline.messages import ImageContent, Message


@pytest.mark.parametrize(
    ("window", "budget"),
    [
        (64_000, 37_000),
        (128_000, 98_000),
        (200_000, 160_000),
        (1_000_000, 960_000),  # window - 40k beats 80%
        (32_000, 25_600),  # 80% beats window - 40k
        (100_000, 80_000),
        (0, 98_000),  # unknown window: treated as 128k
    ],
)
def test_budget_reserves_room_for_the_reply(window: int, budget: int) -> None:
    assert max_allowed(window) == budget


def test_no_previous_request_never_compacts() -> None:
    assert not should_compact(0, 200_000, 0.01)


def test_threshold_is_a_fraction_of_the_window_capped_at_the_budget() -> None:
    assert should_compact(100_000, 200_000, 0.5)
    assert not should_compact(99_999, 200_000, 0.5)
    assert not should_compact(159_999, 200_000, 0.95)
    assert should_compact(160_000, 200_000, 0.95)


def test_text_estimate_uses_the_fixed_ratio() -> None:
    assert estimate_text("") == 0
    assert estimate_text("x" * 35) == round(35 / CHARS_PER_TOKEN)
    assert estimate_text("x" * 36) == 11  # rounded up


def test_message_estimate_counts_images_as_a_fixed_amount() -> None:
    image = ImageContent("image/png", "A" * 100_000)
    message = Message.user("x" * 70, images=(image,))
    assert estimate_message(message) == MESSAGE_OVERHEAD + 20 + IMAGE_TOKENS
    assert estimate_messages([message, message]) == 2 * estimate_message(message)
