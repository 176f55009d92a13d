from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime

import pytest

from pycline.errors import ProviderErrorKind as Kind
from pycline.providers.errors import classify, connection_error, one_line, parse_retry_after


@pytest.mark.parametrize(
    ("status", "error_type", "error_code", "expected"),
    [
        (401, "authentication_error", None, Kind.AUTH),
        (403, "permission_error", None, Kind.AUTH),
        (404, "not_found_error", "model_not_found", Kind.NOT_FOUND),
        (429, "requests", "rate_limit_exceeded", Kind.RATE_LIMIT),
        (429, "insufficient_quota", "insufficient_quota", Kind.QUOTA),
        (402, "billing_error", None, Kind.QUOTA),
        (500, "server_error", None, Kind.SERVER),
        (503, None, None, Kind.SERVER),
        (529, "overloaded_error", None, Kind.SERVER),
        (400, "invalid_request_error", "context_length_exceeded", Kind.CONTEXT_OVERFLOW),
        (413, "request_too_large", None, Kind.CONTEXT_OVERFLOW),
        (400, "invalid_request_error", None, Kind.BAD_REQUEST),
        (422, None, None, Kind.BAD_REQUEST),
        # errors sent inside a 200 stream: no status, the type or code decides
        (None, "overloaded_error", None, Kind.SERVER),
        (None, "rate_limit_error", None, Kind.RATE_LIMIT),
        (None, None, "502", Kind.SERVER),
        (None, None, "429", Kind.RATE_LIMIT),
        (None, None, None, Kind.SERVER),
    ],
)
def test_classification_by_status_type_and_code(
    status: int | None, error_type: str | None, error_code: str | None, expected: Kind
) -> None:
    assert classify(status, error_type=error_type, error_code=error_code) is expected


def test_message_text_never_decides_the_kind() -> None:
    # The wording Anthropic uses for an over-long prompt is not a structured marker.
    assert classify(400, error_type="invalid_request_error") is Kind.BAD_REQUEST
    assert classify(400, error_type="invalid_request_error", error_code="prompt_too_long") is (
        Kind.CONTEXT_OVERFLOW
    )


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "7"}, 7.0),
        ({"retry-after": " 1.5 "}, 1.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "-3"}, None),
        ({}, None),
        (None, None),
    ],
)
def test_retry_after_in_seconds(headers: dict[str, str] | None, expected: float | None) -> None:
    assert parse_retry_after(headers) == expected


def test_retry_after_as_http_date() -> None:
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
    later = datetime(2025, 1, 1, 12, 0, 30, tzinfo=UTC)
    headers = {"retry-after": format_datetime(later, usegmt=True)}
    assert parse_retry_after(headers, now=now.timestamp()) == pytest.approx(30.0)
    assert parse_retry_after(headers, now=later.timestamp() + 10) == 0.0


def test_server_text_is_made_one_line_bounded_and_free_of_the_key() -> None:
    text = "bad key sk-live-abcdef123456\n\n  see   docs " + "x" * 500
    shown = one_line(text, secret="sk-live-abcdef123456", limit=60)
    assert "sk-live-abcdef123456" not in shown
    assert "\n" not in shown
    assert shown.startswith("bad key *** see docs")
    assert len(shown) == 60


def test_connection_error_names_the_base_url_and_the_reason() -> None:
    cause = ConnectionRefusedError(111, "Connection refused")
    try:
        raise OSError("wrapper") from cause
    except OSError as exc:
        error = connection_error("http://127.0.0.1:9/v1", exc)
    assert error.kind is Kind.CONNECTION
    assert str(error).startswith("Cannot reach http://127.0.0.1:9/v1 (")
    assert "Connection refused" in str(error)
    assert "\n" not in str(error)
