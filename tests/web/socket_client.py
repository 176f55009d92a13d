"""A script's side of the UI's WebSocket: log in with the printed URL's token, then send the
page's messages and read what the server sends back (no browser)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp

TIMEOUT = 30.0


class PageSocket:
    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.received: list[dict[str, Any]] = []

    async def send(self, data: Any) -> None:
        await self.ws.send_str(data if isinstance(data, str) else json.dumps(data))

    async def next(self, wanted: str) -> dict[str, Any]:
        """The next message of type (or reply kind) `wanted`; earlier ones are kept too."""
        async with asyncio.timeout(TIMEOUT):
            while True:
                message = await self.ws.receive_json()
                self.received.append(message)
                if message.get("type", message.get("kind")) == wanted:
                    return message

    async def events_until(self, task_id: str, kind: str) -> list[dict[str, Any]]:
        """Every event of `task_id` up to the first of `kind` (included)."""
        seen: list[dict[str, Any]] = []
        while True:
            batch = await self.next("events")
            if batch["task_id"] != task_id:
                continue
            for event in batch["events"]:
                seen.append(event)
                if event["kind"] == kind:
                    return seen


@asynccontextmanager
async def page_socket(url: str) -> AsyncIterator[PageSocket]:
    """`url`: the one `pycline ui` printed (`http://127.0.0.1:PORT/#token=…`); the page's own
    login, then its WebSocket (the session offered as a subprotocol, as the page does)."""
    base, _, token = url.partition("/#token=")
    origin = {"Origin": base}
    async with aiohttp.ClientSession() as http:
        async with http.post(f"{base}/api/login", json={"token": token}, headers=origin) as r:
            assert r.status == 200, await r.text()
            session = (await r.json())["session"]
        protocols = ("pycline", f"pycline-session.{session}")
        async with http.ws_connect(f"{base}/ws", headers=origin, protocols=protocols) as ws:
            yield PageSocket(ws)
