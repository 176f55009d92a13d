"""The exception hierarchy. Provider errors are classified by status and type, never by text."""

from __future__ import annotations

import re
from enum import StrEnum


class PyclineError(Exception):
    """Base of every error pycline raises on purpose."""


class ConfigError(PyclineError):
    """Settings are missing or invalid (no key, unknown provider, bad value)."""


class ToolError(PyclineError):
    """A tool call cannot be carried out; the message goes to the model as the tool result."""


class PeerToolError(ToolError):
    """A tool failed because the program behind it did (an MCP server's error, a server that is
    gone or needs a login): the model is told, but it is not the model's mistake."""


class StorageError(PyclineError):
    """A task file is missing, corrupt or cannot be written."""


class ProviderErrorKind(StrEnum):
    AUTH = "auth"  # 401/403: wrong or missing key
    NOT_FOUND = "not_found"  # 404: unknown model or endpoint
    RATE_LIMIT = "rate_limit"  # 429
    QUOTA = "quota"  # out of credit: not worth retrying
    SERVER = "server"  # 5xx
    CONNECTION = "connection"  # unreachable, reset, timed out
    CONTEXT_OVERFLOW = "context_overflow"
    BAD_REQUEST = "bad_request"  # other 4xx
    CUT_OFF = "cut_off"  # the stream ended before the reply was complete
    OTHER = "other"


RETRYABLE = frozenset(
    {
        ProviderErrorKind.RATE_LIMIT,
        ProviderErrorKind.SERVER,
        ProviderErrorKind.CONNECTION,
        ProviderErrorKind.CUT_OFF,
    }
)


# `user:token@` (or `token@`) after a URL scheme: a base URL may carry the key itself.
_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@?#]+@")


def redact_url_credentials(text: str) -> str:
    """`text` with the credentials of every URL in it replaced by `***`."""
    return _URL_CREDENTIALS.sub(r"\1***@", text)


class ProviderError(PyclineError):
    def __init__(
        self,
        kind: ProviderErrorKind,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(redact_url_credentials(message))
        self.kind = kind
        self.status = status
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE

    def __str__(self) -> str:
        base = super().__str__()
        return f"{base} (HTTP {self.status})" if self.status else base
