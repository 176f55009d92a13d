"""An OAuth-protected MCP server on loopback: the SDK's authorization server and resource server.

    python oauth_http.py PORT TOKEN_SECONDS

Dynamic client registration, authorization code with PKCE (the SDK's handlers check them), a
consent page a person (the test's real browser) approves, refresh and revocation, and one tool,
`whoami`. Access tokens live TOKEN_SECONDS. `GET /test/state` tells a test what happened:
authorizations granted, refreshes, revoked tokens, tool calls.
"""

from __future__ import annotations

import html
import secrets
import sys
import time
from typing import Any
from urllib.parse import urlencode

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

PORT = int(sys.argv[1])
TTL = int(sys.argv[2]) if len(sys.argv) > 2 else 3600
BASE = f"http://127.0.0.1:{PORT}"
STATE: dict[str, Any] = {"authorized": 0, "refreshed": 0, "revoked": [], "calls": 0}


class Provider:
    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.pending: dict[str, tuple[str, AuthorizationParams]] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.expiry: dict[str, float] = {}  # exact expiry (AccessToken's is whole seconds)

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        ticket = secrets.token_urlsafe(16)
        self.pending[ticket] = (client.client_id or "", params)
        return f"{BASE}/consent?{urlencode({'ticket': ticket})}"

    def approve(self, ticket: str) -> str:
        client_id, params = self.pending.pop(ticket)
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or ["mcp"],
            expires_at=time.time() + 300,
            client_id=client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        STATE["authorized"] += 1
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        expires = int(time.time()) + TTL
        self.expiry[access] = time.time() + TTL
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=expires, resource=resource
        )
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(
            access_token=access,
            expires_in=TTL,
            scope=" ".join(scopes),
            refresh_token=refresh,
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self._issue(
            client.client_id or "", authorization_code.scopes, authorization_code.resource
        )

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        STATE["refreshed"] += 1
        return self._issue(
            client.client_id or "", scopes or refresh_token.scopes, refresh_token.resource
        )

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or self.expiry.get(token, 0.0) < time.time():
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        STATE["revoked"].append(type(token).__name__)
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)


provider = Provider()
server = MCPServer(
    "oauth-test",
    auth_server_provider=provider,
    auth=AuthSettings(
        issuer_url=BASE,  # type: ignore[arg-type]
        resource_server_url=f"{BASE}/mcp",  # type: ignore[arg-type]
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=["mcp"], default_scopes=["mcp"]
        ),
        revocation_options=RevocationOptions(enabled=True),
        required_scopes=["mcp"],
        validate_token_resource=False,
    ),
)


@server.tool()
def whoami() -> str:
    """Say who is logged in."""
    STATE["calls"] += 1
    return "You are logged in to oauth-test."


@server.custom_route("/consent", methods=["GET"])
async def consent_page(request: Request) -> Response:
    ticket = html.escape(request.query_params.get("ticket", ""))
    return HTMLResponse(
        "<!doctype html><title>Allow access</title><h1>Allow pycline to use oauth-test?</h1>"
        f'<form method="post" action="/consent"><input type="hidden" name="ticket" value="{ticket}">'
        '<button type="submit">Approve</button></form>'
    )


@server.custom_route("/consent", methods=["POST"])
async def consent_given(request: Request) -> Response:
    form = await request.form()
    return RedirectResponse(provider.approve(str(form["ticket"])), status_code=302)


@server.custom_route("/test/state", methods=["GET"])
async def state(request: Request) -> Response:
    return JSONResponse(STATE)


if __name__ == "__main__":
    server.run("streamable-http", host="127.0.0.1", port=PORT)
