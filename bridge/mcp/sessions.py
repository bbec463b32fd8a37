"""MCP sessions (`Mcp-Session-Id`): what initialize agreed, the calls running, the stream of
server notifications. Bounded: past the limit the least recently used idle session goes."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

MAX_SESSIONS = 256
# Notifications waiting for a session's GET stream; past it the oldest is dropped (the only
# one sent, tools/list_changed, means the same however often it comes).
STREAM_QUEUE = 8


@dataclass
class Session:
    id: str
    version: str  # the negotiated protocol version
    client: str  # clientInfo.name, else the User-Agent's product
    calls: dict[Any, asyncio.Task[Any]] = field(default_factory=dict)  # JSON-RPC id -> call
    stream: asyncio.Queue[dict[str, Any] | None] | None = None  # the open GET stream's
    last_used: float = field(default_factory=time.monotonic)

    @property
    def busy(self) -> bool:
        return bool(self.calls) or self.stream is not None

    def notify(self, message: dict[str, Any]) -> None:
        if self.stream is None:
            return
        if self.stream.full():
            self.stream.get_nowait()
        self.stream.put_nowait(message)

    def close(self) -> None:
        for task in self.calls.values():
            task.cancel()
        if self.stream is not None:
            if self.stream.full():
                self.stream.get_nowait()
            self.stream.put_nowait(None)  # ends the GET stream


class TooManySessions(Exception):
    pass


class Sessions:
    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self._limit = limit
        self._by_id: OrderedDict[str, Session] = OrderedDict()

    def __len__(self) -> int:
        return len(self._by_id)

    def create(self, version: str, client: str) -> Session:
        if len(self._by_id) >= self._limit:
            idle = next((s for s in self._by_id.values() if not s.busy), None)
            if idle is None:
                raise TooManySessions()
            self.end(idle.id)
        session = Session(secrets.token_urlsafe(24), version, client)
        self._by_id[session.id] = session
        return session

    def get(self, session_id: str) -> Session | None:
        session = self._by_id.get(session_id)
        if session is not None:
            session.last_used = time.monotonic()
            self._by_id.move_to_end(session_id)
        return session

    def end(self, session_id: str) -> bool:
        session = self._by_id.pop(session_id, None)
        if session is None:
            return False
        session.close()
        return True

    def notify_all(self, message: dict[str, Any]) -> None:
        for session in self._by_id.values():
            session.notify(message)

    def close_all(self) -> None:
        for session_id in list(self._by_id):
            self.end(session_id)
