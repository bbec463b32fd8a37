"""Prefix-stable conversion, seen at the editor: when an agent's conversation grows by
appended turns, the editor messages the bridge builds for turn N are a byte-identical prefix
of those for turn N+1, with the same tools in the same order, in every dialect.

Sessions shaped after the captured Codex, Claude Code, Aider and Gemini CLI requests
(tests/prompt_cache_sessions.py) go through the real language server and its HTTP endpoint to
a recording simulated model in this process. Plain sessions only append; varied ones also
require a tool call on some turns, ask for a structured answer on one and add system text
mid-session: what holds for one answer must close the request (bridge/core/turn_notes.py),
after a history that stays byte for byte what it was.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
import msgspec
import pytest
from recording_model import RecordingModel, running_editor
from test_websocket_editor import turn

from bench.cache_sessions import DIALECTS, SESSIONS, Session, varied_session
from bridge.core.parts import ChatMessage
from bridge.core.turn_notes import is_turn_note, without_turn_note
from headless_editor.chat_types import ChatRequest

TURNS = 6


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as session:
        yield session


def _wire(messages: list[ChatMessage]) -> list[str]:
    """Each message as the bytes it goes to the editor with."""
    return [msgspec.json.encode([message]).decode("utf-8") for message in messages]


async def _first_requests(
    http: aiohttp.ClientSession, make: Callable[[], Session]
) -> list[ChatRequest]:
    """The first editor request of each turn (a required call may be asked for twice)."""
    firsts: list[ChatRequest] = []
    session = make()
    async with running_editor({}) as (url, model):
        assert isinstance(model, RecordingModel)
        for number in range(1, TURNS + 1):
            before = len(model.requests)
            await session.turn(http, url.removesuffix("/v1"), number)
            assert len(model.requests) > before, f"turn {number} reached no model"
            firsts.append(model.requests[before])
    return firsts


def _assert_prefix(requests: list[ChatRequest], dialect: str, whole: bool) -> None:
    for number in range(1, len(requests)):
        earlier, later = requests[number - 1], requests[number]
        label = f"{dialect}: turn {number} -> {number + 1}"
        assert msgspec.json.encode(earlier.tools) == msgspec.json.encode(later.tools), label
        history = _wire(without_turn_note(earlier.messages))
        if whole:
            assert history == _wire(earlier.messages), f"{label}: a note where none is due"
        grown = _wire(later.messages)
        assert len(grown) > len(history), label
        for index, (was, now) in enumerate(zip(history, grown, strict=False)):
            assert was == now, f"{label}: message {index} changed:\n{was[:1500]}\n{now[:1500]}"


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_each_turn_starts_with_the_last_one(
    http: aiohttp.ClientSession, dialect: str
) -> None:
    requests = await _first_requests(http, SESSIONS[dialect])
    _assert_prefix(requests, dialect, whole=True)


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_per_turn_changes_close_the_request(
    http: aiohttp.ClientSession, dialect: str
) -> None:
    requests = await _first_requests(http, lambda: varied_session(dialect))
    _assert_prefix(requests, dialect, whole=False)
    # The variations did reach the editor: as notes after the history, never inside it.
    noted = [number for number, r in enumerate(requests, 1) if is_turn_note(r.messages[-1])]
    assert 3 in noted, noted
    for request in requests:
        assert not any(is_turn_note(m) for m in request.messages[:-1])


async def test_a_websocket_continuation_keeps_the_prefix_too(http: aiohttp.ClientSession) -> None:
    """Codex over WebSocket sends only the new items after `previous_response_id`; the
    bridge's item cache rebuilds the conversation, and the editor sees the same messages as
    for the whole input over HTTP: each turn a prefix of the next."""
    over_http = await _first_requests(http, SESSIONS["responses"])
    session = SESSIONS["responses"]()
    body = {k: v for k, v in session.body.items() if k != "stream"}
    async with running_editor({}) as (url, model):
        socket_url = url.replace("http://", "ws://", 1) + "/responses"
        async with http.ws_connect(socket_url) as ws:
            create: dict[str, Any] = dict(body)
            for number in range(1, TURNS + 1):
                before = len(model.requests)
                events = await turn(ws, **create)
                assert events[-1]["type"] == "response.completed", events[-1]
                response = events[-1]["response"]
                sent = len(session.body["input"])
                session.grow(session, response, number)
                # Only what this turn added: its output is in the bridge's cache already.
                new = session.body["input"][sent + len(response["output"]) :]
                create = {**body, "input": new, "previous_response_id": response["id"]}
                assert len(model.requests) == before + 1
    over_socket = model.requests
    _assert_prefix(over_socket, "responses over WebSocket", whole=True)
    assert [_wire(r.messages) for r in over_socket] == [_wire(r.messages) for r in over_http]
