"""Turn what a provider answered into a `ProviderError`: classified by HTTP status and by the
structured error type/code of the body, never by the wording of the message.

Shared by the adapters; it imports no SDK. The adapters pull status, type, code, message and
headers out of their SDK's exception and hand them here.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from typing import Final

from pycline.errors import ProviderError, ProviderErrorKind

Kind = ProviderErrorKind

# Structured markers (error `code`, Anthropic `details.error_code`, or error `type`).
QUOTA_MARKERS: Final = frozenset({"insufficient_quota", "billing_error"})
# Google names a refused API key in an ErrorInfo `reason` of a 400 reply.
AUTH_MARKERS: Final = frozenset({"api_key_invalid", "api_key_expired"})
# OpenAI: code `context_length_exceeded`. Anthropic sends no structured marker for an over-long
# prompt today (400 invalid_request_error); these codes are honoured should it add one.
OVERFLOW_MARKERS: Final = frozenset(
    {"context_length_exceeded", "prompt_too_long", "context_window_exceeded", "request_too_large"}
)
# Errors that arrive inside a 200 stream carry no status: their type decides.
_KIND_BY_TYPE: Final[dict[str, ProviderErrorKind]] = {
    "authentication_error": Kind.AUTH,
    "permission_error": Kind.AUTH,
    "not_found_error": Kind.NOT_FOUND,
    "rate_limit_error": Kind.RATE_LIMIT,
    "rate_limit_exceeded": Kind.RATE_LIMIT,
    "tokens": Kind.RATE_LIMIT,
    "requests": Kind.RATE_LIMIT,
    "overloaded_error": Kind.SERVER,
    "api_error": Kind.SERVER,
    "server_error": Kind.SERVER,
    "timeout_error": Kind.SERVER,
    "invalid_request_error": Kind.BAD_REQUEST,
    # Amazon Bedrock exception names (header `x-amzn-ErrorType`, or a stream's exception frame).
    "throttlingexception": Kind.RATE_LIMIT,
    "servicequotaexceededexception": Kind.RATE_LIMIT,
    "accessdeniedexception": Kind.AUTH,
    "unrecognizedclientexception": Kind.AUTH,
    "resourcenotfoundexception": Kind.NOT_FOUND,
    "validationexception": Kind.BAD_REQUEST,
    "modelstreamerrorexception": Kind.SERVER,
    "modeltimeoutexception": Kind.SERVER,
    "internalserverexception": Kind.SERVER,
    "serviceunavailableexception": Kind.SERVER,
    # Google RPC status names (Gemini, Vertex).
    "resource_exhausted": Kind.RATE_LIMIT,
    "unauthenticated": Kind.AUTH,
    "permission_denied": Kind.AUTH,
    "not_found": Kind.NOT_FOUND,
    "invalid_argument": Kind.BAD_REQUEST,
    "failed_precondition": Kind.BAD_REQUEST,
    "unavailable": Kind.SERVER,
    "internal": Kind.SERVER,
    "deadline_exceeded": Kind.SERVER,
}

_MAX_DETAIL = 300


def classify(
    status: int | None, *, error_type: str | None = None, error_code: str | None = None
) -> ProviderErrorKind:
    """The kind of a failure from its HTTP status (None or 200 for an error inside a stream)."""
    markers = {m.lower() for m in (error_type, error_code) if m}
    if markers & QUOTA_MARKERS:
        return Kind.QUOTA
    if markers & OVERFLOW_MARKERS:
        return Kind.CONTEXT_OVERFLOW
    if markers & AUTH_MARKERS:
        return Kind.AUTH
    if status is not None and status >= 400:
        return kind_for_status(status)
    for marker in (error_type, error_code):
        if marker and marker.lower() in _KIND_BY_TYPE:
            return _KIND_BY_TYPE[marker.lower()]
    # Some OpenAI-compatible hosts (OpenRouter) put an HTTP status in `code` of a stream error.
    if error_code and error_code.isdigit() and int(error_code) >= 400:
        return kind_for_status(int(error_code))
    # The request was accepted and the server failed while answering: worth a retry.
    return Kind.SERVER


def kind_for_status(status: int) -> ProviderErrorKind:
    if status in (401, 403):
        return Kind.AUTH
    if status == 402:
        return Kind.QUOTA
    if status == 404:
        return Kind.NOT_FOUND
    if status == 413:
        # The request body is too large (mostly images and long history): trimming helps.
        return Kind.CONTEXT_OVERFLOW
    if status == 429:
        return Kind.RATE_LIMIT
    if status == 408 or status >= 500:
        return Kind.SERVER
    if 400 <= status < 500:
        return Kind.BAD_REQUEST
    return Kind.OTHER


def parse_retry_after(
    headers: Mapping[str, str] | None, *, now: float | None = None
) -> float | None:
    """Seconds to wait, from `retry-after-ms` or `retry-after` (seconds or an HTTP date)."""
    if not headers:
        return None
    millis = _number(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000
    raw = headers.get("retry-after")
    if raw is None:
        return None
    seconds = _number(raw)
    if seconds is not None:
        return seconds
    try:
        when = parsedate_to_datetime(raw.strip())
    except (TypeError, ValueError, IndexError):
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def _number(raw: str | None) -> float | None:
    if raw is None:
        return None
    try:
        value = float(raw.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


def one_line(text: str, *, secret: str | None = None, limit: int = _MAX_DETAIL) -> str:
    """A server message made safe to show: one line, bounded, without the API key."""
    if secret and len(secret) >= 6:
        text = text.replace(secret, "***")
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def status_error(
    kind: ProviderErrorKind,
    *,
    label: str,
    model_id: str,
    base_url: str,
    detail: str,
    status: int | None,
    retry_after: float | None = None,
    secret: str | None = None,
) -> ProviderError:
    """An error the server reported, with a message that says what to do about it."""
    said = one_line(detail, secret=secret)
    suffix = f": {said}" if said else ""
    match kind:
        case Kind.AUTH:
            message = f"The API key was refused by {label}{suffix}"
        case Kind.NOT_FOUND:
            message = f"Model or endpoint not found: model {model_id!r} at {base_url}{suffix}"
        case Kind.RATE_LIMIT:
            message = f"Rate limit reached at {label}{suffix}"
        case Kind.QUOTA:
            message = f"Out of credit or quota at {label}{suffix}"
        case Kind.SERVER:
            message = f"Server error at {label}{suffix}"
        case Kind.CONTEXT_OVERFLOW:
            message = f"The conversation is too long for {model_id}{suffix}"
        case Kind.BAD_REQUEST:
            message = f"The request was rejected by {label}{suffix}"
        case _:
            message = f"The request to {label} failed{suffix}"
    return ProviderError(kind, message, status=status, retry_after=retry_after)


def connection_error(
    base_url: str, exc: BaseException, *, secret: str | None = None
) -> ProviderError:
    """The server could not be reached (refused, reset, DNS, timed out)."""
    reason = one_line(root_reason(exc), secret=secret, limit=160)
    return ProviderError(
        Kind.CONNECTION,
        f"Cannot reach {base_url} ({reason}). Check the base URL, the network, and that the "
        "server is running.",
    )


def cut_off(label: str, why: str) -> ProviderError:
    return ProviderError(Kind.CUT_OFF, f"The reply from {label} was cut off: {why}.")


class OutputLimitReached(ProviderError):
    """The model wrote as much as the request allowed. Not a failure to retry (the same request
    writes the same reply again): the loop keeps what arrived, runs no unfinished tool call in
    it, and tells the model to be shorter."""

    def __init__(self, label: str, limit: int | None, *, feedback: str = "") -> None:
        super().__init__(
            Kind.CUT_OFF, f"The reply from {label} was cut off: it reached the output limit."
        )
        self.limit = limit
        self.feedback = feedback  # what to tell the model instead of the limit


def output_limit(label: str, limit: int | None = None) -> OutputLimitReached:
    return OutputLimitReached(label, limit)


def stopped_in_value(label: str, tool: str, param: str) -> OutputLimitReached:
    """A reply asked to stop at a tool's closing tag ended inside a parameter's value: either the
    model forgot to close it, or the value held a closing tag as text and the rest of the call
    was never written. Either way the value may be cut short, so the call is not run."""
    return OutputLimitReached(
        label,
        None,
        feedback=(
            f"[ERROR] Your previous response ended inside <{param}> of {tool}, before "
            f"</{param}>, so nothing in it was run. Close every tag: <{param}>…</{param}> and "
            f"then </{tool}>. (A tool's closing tag, such as </{tool}>, written inside a value "
            "ends the reply there: write such text differently, or change a file with "
            "replace_in_file.)"
        ),
    )


# What reading a stream that is not what the API documents raises: a `data:` line that is not
# JSON (ValueError) or is nested without end (RecursionError), a field checked by
# `wire_values` (ValueError), or an event of the wrong shape met by the SDK's loosely built
# objects (TypeError, AttributeError).
MALFORMED_STREAM = (ValueError, RecursionError, TypeError, AttributeError)


def malformed(label: str, exc: BaseException) -> ProviderError:
    """The server's stream could not be read (not JSON, nested without end, fields of the wrong
    type): a broken proxy or a half-compatible server. Retrying may meet a healthy reply."""
    reason = one_line(str(exc) or type(exc).__name__, limit=160)
    return ProviderError(Kind.SERVER, f"{label} sent a reply pycline cannot read ({reason}).")


def root_reason(exc: BaseException) -> str:
    """The most specific description in the exception chain (SDKs wrap the socket error)."""
    seen: set[int] = set()
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        chain.append(current)
        current = current.__cause__ or current.__context__
    if any(isinstance(e, TimeoutError) or "Timeout" in type(e).__name__ for e in chain):
        return "timed out"
    for error in reversed(chain):
        text = str(error).strip()
        if text:
            return text
    return type(exc).__name__
