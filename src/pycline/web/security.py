"""Who may talk to the UI server: the browser that was handed the token, through the expected name.

Local servers of coding agents have been taken over through open CORS and DNS rebinding, so every
request is checked on three things: the `Host` header names the address we listen on (a rebound
domain does not), the `Origin` (when sent, and always for WebSockets and writes) is our own, and
the session credential proves the token from the printed URL was seen.

The token travels in the URL fragment, which browsers never send; it works once, within
TOKEN_LIFETIME, and is swapped for a session credential the page keeps in its own origin's
storage and sends as a header (`Authorization: Bearer …`; for the WebSocket, a subprotocol). Not
a cookie: browsers send cookies to every port of a host, so a dev server on another local port
would receive it, and any program can replay it with our Host and Origin.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from aiohttp import web

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")

# Everything the page loads comes from this server; nothing inline, nothing remote.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)

# Served without the credential: the page and its code must load before the token is exchanged.
PUBLIC_PREFIXES = ("/static/",)
PUBLIC_PATHS = ("/", "/favicon.svg", "/api/login")

TOKEN_LIFETIME = 120.0  # seconds a start token may wait to be used
MAX_WRONG_PASSWORDS = 5  # per token
# The WebSocket carries the session as a subprotocol (browsers cannot set its headers).
WS_PROTOCOL = "pycline"
WS_SESSION_PREFIX = "pycline-session."


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def url_host(host: str) -> str:
    """`host` as it goes in a URL (and a Host header): an IPv6 address in brackets."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def new_token() -> str:
    """256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


@dataclass
class Guard:
    host: str
    port: int
    password: str | None = None  # required to log in when listening beyond loopback
    clock: Callable[[], float] = time.monotonic
    token: str | None = None  # the start token not yet used, if any
    token_expires: float = 0.0
    sessions: set[str] = field(default_factory=set)  # one per login; never a token
    wrong_passwords: int = 0

    def __post_init__(self) -> None:
        self.issue_token()

    def issue_token(self) -> str:
        """A new start token (the previous one stops working)."""
        self.token = new_token()
        self.token_expires = self.clock() + TOKEN_LIFETIME
        self.wrong_passwords = 0
        return self.token

    def allowed_hosts(self) -> set[str]:
        """`name:port` for every name the browser may use: the address we listen on, as the
        printed URL spells it (127.0.0.2 too, and IPv6 in brackets), and on loopback the
        usual local names."""
        names = {url_host(self.host).lower()}
        if is_loopback(self.host):
            names |= set(LOOPBACK_NAMES)
        return {f"{name}:{self.port}" for name in names}

    def allowed_origins(self) -> set[str]:
        return {f"http://{host}" for host in self.allowed_hosts()}

    @property
    def any_address(self) -> bool:
        """Listening on every interface (with a password): browsers arrive under any name."""
        return self.host in ("0.0.0.0", "::")

    def host_ok(self, request: web.Request) -> bool:
        host = request.headers.get("Host", "").lower()
        if self.any_address:
            return host.endswith(f":{self.port}")
        return host in self.allowed_hosts()

    def origin_ok(self, request: web.Request, *, required: bool) -> bool:
        origin = request.headers.get("Origin")
        if origin is None:
            return not required
        if self.any_address:  # then the page's own origin is the name it was reached by
            return origin.lower() == f"http://{request.headers.get('Host', '').lower()}"
        return origin.lower() in self.allowed_origins()

    def session_ok(self, request: web.Request) -> bool:
        given = _bearer(request) or _ws_session(request)
        return given is not None and any(
            hmac.compare_digest(given.encode(), s.encode()) for s in self.sessions
        )

    def token_ok(self, token: str) -> bool:
        current = self.token
        if current is None or self.clock() > self.token_expires:
            return False
        return hmac.compare_digest(token.encode(), current.encode())

    def password_ok(self, password: str | None) -> bool:
        if self.password is None:
            return True
        return hmac.compare_digest((password or "").encode(), self.password.encode())

    def login(self, token: str, password: str | None) -> str | None:
        """A new session for the holder of the start token (and the password, when one is
        set); the token is used up. None when refused."""
        if not self.token_ok(token):
            return None
        if not self.password_ok(password):
            self.wrong_passwords += 1
            if self.wrong_passwords >= MAX_WRONG_PASSWORDS:
                self.token = None  # guessing goes no further with this token
            return None
        self.token = None
        session = new_token()
        self.sessions.add(session)
        return session

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if not self.host_ok(request):
            return _refuse(421, "unexpected Host header")
        writes = request.method not in ("GET", "HEAD")
        websocket = request.headers.get("Upgrade", "").lower() == "websocket"
        if not self.origin_ok(request, required=writes or websocket):
            return _refuse(403, "foreign or missing Origin")
        public = request.path in PUBLIC_PATHS or request.path.startswith(PUBLIC_PREFIXES)
        if not public and not self.session_ok(request):
            return _refuse(401, "not logged in: open the URL pycline ui printed")
        if writes and request.content_type != "application/json":
            return _refuse(415, "JSON only")
        response = await handler(request)
        _harden(response, api=not public)
        return response


def _bearer(request: web.Request) -> str | None:
    scheme, _, value = request.headers.get("Authorization", "").partition(" ")
    return value.strip() or None if scheme.lower() == "bearer" else None


def _ws_session(request: web.Request) -> str | None:
    offered = request.headers.get("Sec-WebSocket-Protocol", "")
    for item in offered.split(","):
        item = item.strip()
        if item.startswith(WS_SESSION_PREFIX):
            return item[len(WS_SESSION_PREFIX) :] or None
    return None


def _refuse(status: int, reason: str) -> web.Response:
    response = web.json_response({"error": reason}, status=status)
    _harden(response, api=True)
    return response


def _harden(response: web.StreamResponse, *, api: bool) -> None:
    if response.prepared:  # a WebSocket or a streamed body: headers are already out
        return
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Cross-Origin-Resource-Policy"] = "same-origin"
    if api:
        response.headers["Cache-Control"] = "no-store"
