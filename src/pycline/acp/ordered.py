"""The connection as the session's outbox uses it: updates go out in order, and each of the
client's fs and terminal methods is sent only after the updates queued before it (an editor
shows a tool's start before the terminal it opens)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pycline.acp.outbox import Outbox, UpdateSink


@dataclass
class OutboxSink:
    """The connection as the outbox sees it (keeps `Outbox` free of SDK types)."""

    conn: UpdateSink

    async def session_update(self, session_id: str, update: Any) -> None:
        await self.conn.session_update(session_id=session_id, update=update)


class OrderedClient:
    """The client's fs and terminal methods, each sent after the updates queued before it."""

    def __init__(self, conn: Any, outbox: Outbox) -> None:
        self._conn = conn
        self._outbox = outbox

    async def _call(self, name: str, **params: Any) -> Any:
        await self._outbox.drain()
        return await getattr(self._conn, name)(**params)

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None
    ) -> Any:
        return await self._call(
            "read_text_file", session_id=session_id, path=path, line=line, limit=limit
        )

    async def write_text_file(self, session_id: str, path: str, content: str) -> Any:
        return await self._call(
            "write_text_file", session_id=session_id, path=path, content=content
        )

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: Any = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
    ) -> Any:
        return await self._call(
            "create_terminal",
            session_id=session_id,
            command=command,
            args=args,
            env=env,
            cwd=cwd,
            output_byte_limit=output_byte_limit,
        )

    async def terminal_output(self, session_id: str, terminal_id: str) -> Any:
        return await self._call("terminal_output", session_id=session_id, terminal_id=terminal_id)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str) -> Any:
        return await self._call(
            "wait_for_terminal_exit", session_id=session_id, terminal_id=terminal_id
        )

    async def kill_terminal(self, session_id: str, terminal_id: str) -> Any:
        return await self._call("kill_terminal", session_id=session_id, terminal_id=terminal_id)

    async def release_terminal(self, session_id: str, terminal_id: str) -> Any:
        return await self._call("release_terminal", session_id=session_id, terminal_id=terminal_id)
