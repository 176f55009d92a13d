"""OAuth for remote MCP servers, on the `mcp` SDK's `OAuthClientProvider`.

The SDK does the protocol: protected-resource metadata from the 401's `WWW-Authenticate` and the
well-known paths, authorization-server metadata (with the 2025-03-26 fallbacks), a client ID
metadata document or dynamic registration, authorization code with PKCE, scope selection and
step-up on `insufficient_scope`, and refresh. This module gives it what is pycline's:

- where tokens live: a `TokenVault` (the app hands in pycline's secrets store), one JSON record
  per server holding the tokens, their absolute expiry, the registered client and the
  revocation endpoint. Nothing here logs or prints a token, and the settings file never holds one.
- how the user is asked: the browser opens the authorization URL and a one-shot listener on
  127.0.0.1 receives the redirect. A connection that may not open a browser (a headless run)
  fails with `NeedsLogin`, whose message names `pycline mcp login NAME`.
- a pre-registered client id and secret from the server's settings entry (`oauth`), used
  instead of registering.
- refresh before expiry, also across restarts (the SDK alone forgets the expiry of a stored
  token), and revocation on logout (RFC 7009).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import socket
import time
import webbrowser
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import parse_qs, urlparse

from pycline.mcp.settings import OAuthSettings, RemoteServer

if TYPE_CHECKING:
    import httpx2
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthToken

CALLBACK_PATH = "/callback"
LOGIN_TIMEOUT = 300.0  # how long the browser step may take
REFRESH_MARGIN = 60.0  # refresh a token this many seconds before it expires (at most)
REFRESH_SHARE = 0.2  # … and at most this share of its lifetime (a token living 2 s: 0.4 s)
CLIENT_NAME = "pycline"

DONE_PAGE = (
    "<!doctype html><meta charset=utf-8><title>pycline</title>"
    "<p>{message}</p><p>You can close this tab and return to pycline.</p>"
)


class TokenVault(Protocol):
    """Secret storage for one string per key (pycline's secrets store)."""

    def load(self, key: str) -> str | None: ...

    def save(self, key: str, value: str) -> None: ...

    def delete(self, key: str) -> bool: ...


class NeedsLogin(Exception):
    """The server wants a login and this connection may not open a browser."""

    def __init__(self, server: str) -> None:
        super().__init__(
            f"MCP server '{server}' needs a login: run `pycline mcp login {server}` "
            "(it opens your browser), then try again."
        )
        self.server = server


class LoginFailed(Exception):
    """The browser step did not end with an authorization code."""


def login_command(server: str) -> str:
    return f"pycline mcp login {server}"


def vault_key(server: str, url: str) -> str:
    digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:12]
    return f"mcp-oauth.{server}.{digest}"


@dataclass
class LoginPolicy:
    """How connections may log in. `interactive`: open the browser when a server asks."""

    vault: TokenVault
    interactive: bool = False
    open_browser: Callable[[str], object] = webbrowser.open
    announce: Callable[[str, str], None] | None = None  # (server, url) before the browser opens
    timeout: float = LOGIN_TIMEOUT


@dataclass
class _Record:
    """What the vault keeps for one server (JSON)."""

    tokens: dict[str, Any] | None = None
    expires_at: float | None = None
    client: dict[str, Any] | None = None
    revocation_endpoint: str | None = None
    callback_port: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def parse(text: str | None) -> _Record:
        if not text:
            return _Record()
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            return _Record()
        if not isinstance(data, dict):
            return _Record()
        return _Record(
            tokens=data.get("tokens") if isinstance(data.get("tokens"), dict) else None,
            expires_at=data.get("expires_at")
            if isinstance(data.get("expires_at"), int | float)
            else None,
            client=data.get("client") if isinstance(data.get("client"), dict) else None,
            revocation_endpoint=data.get("revocation_endpoint")
            if isinstance(data.get("revocation_endpoint"), str)
            else None,
            callback_port=data.get("callback_port")
            if isinstance(data.get("callback_port"), int)
            else None,
        )

    def dump(self) -> str:
        return json.dumps(
            {
                "tokens": self.tokens,
                "expires_at": self.expires_at,
                "client": self.client,
                "revocation_endpoint": self.revocation_endpoint,
                "callback_port": self.callback_port,
            },
            separators=(",", ":"),
        )


class _Storage:
    """The SDK's `TokenStorage` over one vault record."""

    def __init__(self, vault: TokenVault, key: str, settings: OAuthSettings | None) -> None:
        self.vault, self.key, self.settings = vault, key, settings
        self.port: int | None = None  # the redirect port a registration is bound to
        self.revocation_endpoint: Callable[[], str | None] = lambda: None

    def record(self) -> _Record:
        return _Record.parse(self.vault.load(self.key))

    def _write(self, record: _Record) -> None:
        self.vault.save(self.key, record.dump())

    async def get_tokens(self) -> OAuthToken | None:
        from mcp.shared.auth import OAuthToken
        from pydantic import ValidationError

        tokens = self.record().tokens
        if tokens is None:
            return None
        try:
            return OAuthToken.model_validate(tokens)
        except ValidationError:
            return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        record = self.record()
        record.tokens = tokens.model_dump(mode="json", exclude_none=True)
        record.expires_at = time.time() + tokens.expires_in if tokens.expires_in else None
        record.revocation_endpoint = self.revocation_endpoint() or record.revocation_endpoint
        self._write(record)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        from mcp.shared.auth import OAuthClientInformationFull
        from pydantic import ValidationError

        if self.settings is not None and self.settings.client_id:
            return preregistered_client(self.settings)
        client = self.record().client
        if client is None:
            return None
        try:
            return OAuthClientInformationFull.model_validate(client)
        except ValidationError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        if self.settings is not None and self.settings.client_id:
            return  # the settings entry holds it
        record = self.record()
        record.client = client_info.model_dump(mode="json", exclude_none=True)
        record.callback_port = self.port
        self._write(record)

    def expires_at(self) -> float | None:
        return self.record().expires_at


def preregistered_client(settings: OAuthSettings) -> OAuthClientInformationFull:
    from mcp.shared.auth import OAuthClientInformationFull

    method = settings.token_endpoint_auth_method or (
        "client_secret_basic" if settings.client_secret else "none"
    )
    return OAuthClientInformationFull(
        client_id=settings.client_id or "",
        client_secret=settings.client_secret,
        token_endpoint_auth_method=method,
    )


class _Callback:
    """A one-shot HTTP listener on 127.0.0.1 for the authorization redirect."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.result: asyncio.Future[dict[str, str]] | None = None
        self._server: asyncio.Server | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def start(self) -> None:
        self.result = asyncio.get_running_loop().create_future()
        try:
            self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        except OSError as exc:
            raise LoginFailed(
                f"cannot listen on {self.redirect_uri} for the login's redirect: {exc.strerror}"
            ) from None

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2.0)
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readline(), 10.0)
            while (await asyncio.wait_for(reader.readline(), 10.0)) not in (b"\r\n", b"\n", b""):
                pass
            parts = line.decode("latin-1").split()
            target = urlparse(parts[1]) if len(parts) >= 2 else None
            if target is None or target.path != CALLBACK_PATH:
                self._reply(writer, 404, "Not found.")
                return
            query = {k: v[0] for k, v in parse_qs(target.query).items() if v}
            if "code" in query:
                self._reply(writer, 200, "Logged in.")
            else:
                reason = query.get("error_description") or query.get("error") or "no code"
                self._reply(writer, 400, f"The login did not complete: {reason}.")
            if self.result is not None and not self.result.done():
                self.result.set_result(query)
        except (TimeoutError, ConnectionError, UnicodeError):
            pass
        finally:
            with contextlib.suppress(Exception):
                await writer.drain()
                writer.close()

    @staticmethod
    def _reply(writer: asyncio.StreamWriter, status: int, message: str) -> None:
        import html

        body = DONE_PAGE.format(message=html.escape(message)).encode("utf-8")
        head = (
            f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}\r\n"
            f"Content-Type: text/html; charset=utf-8\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n"
        )
        writer.write(head.encode("ascii") + body)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # As the listener will bind it: a connection of the last login in TIME_WAIT is no owner.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def build_auth(
    name: str,
    config: RemoteServer,
    policy: LoginPolicy,
    on_person: Callable[[bool], None] | None = None,
) -> OAuthClientProvider:
    """The httpx auth for one remote server: adds its bearer token and logs in when asked.
    `on_person(True/False)`: the browser step starts / ends (a person's time is no timeout's)."""
    from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

    settings = config.oauth
    storage = _Storage(policy.vault, vault_key(name, config.url), settings)
    record = storage.record()
    port = settings.callback_port if settings and settings.callback_port else None
    if port is None:
        stored = record.callback_port
        port = stored if stored and _port_free(stored) else free_port()
        if record.client is not None and stored != port:
            # A client registered for another redirect port cannot use this one: register anew.
            record.client, record.callback_port = None, None
            policy.vault.save(storage.key, record.dump())
    storage.port = port
    callback = _Callback(port)
    scope = " ".join(settings.scopes) if settings and settings.scopes else None
    metadata = OAuthClientMetadata(
        client_name=CLIENT_NAME,
        redirect_uris=[callback.redirect_uri],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        scope=scope,
        token_endpoint_auth_method="none",
    )

    async def redirect(url: str) -> None:
        if not policy.interactive:
            raise NeedsLogin(name)
        await callback.start()
        if on_person is not None:
            on_person(True)
        if policy.announce is not None:
            policy.announce(name, url)
        await asyncio.to_thread(policy.open_browser, url)

    async def receive() -> AuthorizationCodeResult:
        assert callback.result is not None
        try:
            query = await asyncio.wait_for(callback.result, policy.timeout)
        except TimeoutError:
            raise LoginFailed(
                f"no answer from the browser within {policy.timeout:g} s for '{name}'"
            ) from None
        finally:
            await callback.close()
            if on_person is not None:
                on_person(False)
        if "code" not in query:
            reason = query.get("error_description") or query.get("error") or "no code"
            raise LoginFailed(f"the authorization server refused the login: {reason}")
        return AuthorizationCodeResult(
            code=query["code"], state=query.get("state"), iss=query.get("iss")
        )

    cimd = settings.client_metadata_url if settings else None
    provider = _Provider(
        server_url=config.url,
        client_metadata=metadata,
        storage=storage,
        redirect_handler=redirect,
        callback_handler=receive,
        client_metadata_url=cimd,
    )
    storage.revocation_endpoint = provider.revocation_endpoint
    return provider


def _provider_base() -> type[OAuthClientProvider]:
    from mcp.client.auth import OAuthClientProvider

    return OAuthClientProvider


def refresh_margin(expires_in: float | None) -> float:
    if not expires_in or expires_in <= 0:
        return 0.0
    return min(REFRESH_MARGIN, expires_in * REFRESH_SHARE)


class _Provider(_provider_base()):  # type: ignore[misc]
    """The SDK's provider, refreshing a token a little before it expires (the server's clock
    and the request's way there count too), also for a token stored by an earlier process
    (the SDK alone forgets its expiry and waits for a 401, which sends the user to the
    browser again)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        context = self.context

        def update_token_expiry(token: OAuthToken) -> None:
            if token.expires_in:
                margin = refresh_margin(token.expires_in)
                context.token_expiry_time = time.time() + token.expires_in - margin
            else:
                context.token_expiry_time = None

        context.update_token_expiry = update_token_expiry

    async def _auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        """The SDK's flow, but a 401 on a request while a refresh token is held tries that
        refresh token first (a clock running ahead, a token the server dropped early): only if
        that fails does the user go to the browser again."""
        inner = super()._auth_flow(request)
        refreshed = False
        try:
            outgoing = await inner.__anext__()
            while True:
                incoming = yield outgoing
                if (
                    outgoing is request
                    and incoming.status_code == 401
                    and not refreshed
                    and self.context.can_refresh_token()
                ):
                    refreshed = True
                    refresh_response = yield await self._refresh_token()
                    if await self._handle_refresh_response(refresh_response):
                        self._add_auth_header(request)
                        retry = yield request
                        if retry.status_code != 401:
                            return
                        incoming = retry
                outgoing = await inner.asend(incoming)
        except StopAsyncIteration:
            return
        finally:
            await inner.aclose()

    async def _initialize(self) -> None:
        await super()._initialize()
        storage = self.context.storage
        tokens = self.context.current_tokens
        expires_at = storage.expires_at() if isinstance(storage, _Storage) else None
        if expires_at is not None:
            lifetime = tokens.expires_in if tokens is not None else None
            self.context.token_expiry_time = expires_at - refresh_margin(lifetime)

    def _expected_issuer(self) -> str:
        expected: str = super()._expected_issuer()
        if self.context.auth_server_url is None:
            return _SameOrigin(expected)
        return expected

    def revocation_endpoint(self) -> str | None:
        metadata = self.context.oauth_metadata
        if metadata is None or metadata.revocation_endpoint is None:
            return None
        return str(metadata.revocation_endpoint)


class _SameOrigin(str):
    """The issuer expected on the 2025-03-26 path (no protected-resource metadata), where the
    authorization server's metadata comes from the MCP server's own origin: any issuer on that
    same origin (scheme, host and port) names it, e.g. `https://host/oauth`. The SDK alone wants
    the bare origin; servers built on that revision often put their issuer under a path."""

    __hash__ = str.__hash__

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, str):
            return NotImplemented
        mine, theirs = urlparse(str.__str__(self)), urlparse(other)
        return (mine.scheme, mine.netloc) == (theirs.scheme, theirs.netloc)

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal


async def logout(name: str, config: RemoteServer, vault: TokenVault) -> tuple[bool, str]:
    """Forget the server's tokens; revoke them first where the server says how (RFC 7009).

    Returns (had tokens, a note on revocation)."""
    key = vault_key(name, config.url)
    record = _Record.parse(vault.load(key))
    tokens = record.tokens or {}
    note = ""
    if tokens and record.revocation_endpoint:
        note = await _revoke(record, config.oauth, tokens)
    had = vault.delete(key) and bool(tokens)
    return had, note


async def _revoke(record: _Record, settings: OAuthSettings | None, tokens: dict[str, Any]) -> str:
    import httpx2
    from mcp.shared.auth import OAuthClientInformationFull
    from pydantic import ValidationError

    client: OAuthClientInformationFull | None = None
    if settings is not None and settings.client_id:
        client = preregistered_client(settings)
    elif record.client is not None:
        with contextlib.suppress(ValidationError):
            client = OAuthClientInformationFull.model_validate(record.client)
    assert record.revocation_endpoint is not None
    failures: list[str] = []
    async with httpx2.AsyncClient(timeout=15.0) as http:
        for kind in ("refresh_token", "access_token"):
            token = tokens.get(kind)
            if not isinstance(token, str):
                continue
            data = {"token": token, "token_type_hint": kind}
            headers: dict[str, str] = {}
            _client_auth(client, data, headers)
            try:
                response = await http.post(record.revocation_endpoint, data=data, headers=headers)
            except httpx2.HTTPError as exc:
                failures.append(f"{kind}: {type(exc).__name__}")
                continue
            if response.status_code != 200:
                failures.append(f"{kind}: HTTP {response.status_code}")
    if failures:
        return "the server did not confirm revocation (" + ", ".join(failures) + ")"
    return "revoked at the authorization server"


def _client_auth(
    client: OAuthClientInformationFull | None, data: dict[str, str], headers: dict[str, str]
) -> None:
    import base64
    from urllib.parse import quote

    if client is None:
        return
    method = client.token_endpoint_auth_method
    if method == "client_secret_basic" and client.client_secret:
        raw = f"{quote(client.client_id, safe='')}:{quote(client.client_secret, safe='')}"
        headers["Authorization"] = "Basic " + base64.b64encode(raw.encode()).decode()
    elif method == "client_secret_post" and client.client_secret:
        data["client_id"] = client.client_id
        data["client_secret"] = client.client_secret
    else:
        data["client_id"] = client.client_id
        # A public client has no secret. An empty parameter counts as absent (RFC 6749 §3.1),
        # and some servers (the SDK's own) refuse a revocation request without the field.
        data["client_secret"] = ""


def has_login(name: str, config: RemoteServer, vault: TokenVault) -> bool:
    return _Record.parse(vault.load(vault_key(name, config.url))).tokens is not None


def is_needs_login(exc: BaseException) -> NeedsLogin | None:
    """The NeedsLogin inside `exc` (exception groups and causes included), if any."""
    seen: set[int] = set()
    stack: list[BaseException] = [exc]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, NeedsLogin):
            return item
        if isinstance(item, BaseExceptionGroup):
            stack.extend(item.exceptions)
        for linked in (item.__cause__, item.__context__):
            if linked is not None:
                stack.append(linked)
    return None


__all__ = [
    "LoginFailed",
    "LoginPolicy",
    "NeedsLogin",
    "TokenVault",
    "build_auth",
    "has_login",
    "is_needs_login",
    "login_command",
    "logout",
]
