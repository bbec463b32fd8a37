"""WebSocket mode: `GET /v1/responses` upgraded, `response.create` frames in, events out.

Each connection runs one response at a time and remembers its most recent completed one
(the whole conversation up to it: earlier items, that turn's input, its output), so the next
`response.create` may send only new items with `previous_response_id`. Nothing outlives the
connection, so the bridge stays stateless across connections. Events are exactly those of
the SSE stream (`responder.response_events`, keepalive events included: Codex times out a
silent WebSocket too, and WebSocket pings do not count for it), one JSON text frame each;
failures that are not part of a response (also an editor failure before the response's first
event) are WebSocket error events: `{"type": "error", "status", "error": {...}}`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator, Iterable
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from bridge.core import strict_json
from bridge.core.backend import Backend, EditorError
from bridge.core.errors import ApiError, from_editor
from bridge.core.request_limits import ModelSlots, check_request_shape
from bridge.core.request_tags import note_request
from bridge.http.body_budget import BODY_BUDGET, BodyBudget, Reservation, text_bytes
from bridge.http.connection_limits import watch_responses
from bridge.http.write_bounds import ClientStuck, WriteBounds
from bridge.responses.body import create_request
from bridge.responses.events import Event
from bridge.responses.item_cache import ItemCache, remembering, resolve_references
from bridge.responses.open_sockets import OPEN_SOCKETS
from bridge.responses.responder import (
    TERMINAL_EVENTS,
    prepare_response,
    resolve_model,
    response_events,
)
from bridge.responses.websocket_frames import (
    CachedResponse,
    CreateFrame,
    as_items,
    cached_after,
    conversation_input,
    conversation_too_large,
    error_event,
    frame_error,
    json_bytes,
    parse_frame,
    warmup_events,
)
from bridge.settings import BridgeSettings

log = logging.getLogger(__name__)


class ResponsesSocket:
    """One WebSocket connection: reads frames, runs one turn at a time, keeps one response."""

    def __init__(
        self,
        ws: web.WebSocketResponse,
        backend: Backend,
        settings: BridgeSettings,
        slots: ModelSlots,
        items: ItemCache,
        transport: asyncio.Transport | None = None,
        budget: BodyBudget | None = None,
    ) -> None:
        self.ws = ws
        self.backend = backend
        self.names = settings.model_names()
        self.limits = settings.limits
        self.keepalive = settings.keepaliveSeconds
        self.slots = slots
        self.items = items
        self.deadline = time.monotonic() + settings.limits.websocketMaxSeconds
        self.cached: CachedResponse | None = None
        # The last response not kept because its conversation passed websocketKeptBytes: a
        # continuation of it is told why, not that the id is unknown.
        self.too_large: tuple[str, int] | None = None  # (response id, conversation size)
        self._turn: asyncio.Task[None] | None = None
        self._send_lock = asyncio.Lock()
        self.transport = transport
        # Frames count with HTTP bodies against limits.maxConcurrentBodyBytes while handled.
        self.budget = budget or BodyBudget.for_limits(settings.limits)

    def responding(self) -> bool:
        return self._turn is not None and not self._turn.done()

    def running_turn(self) -> asyncio.Task[None] | None:
        return self._turn if self.responding() else None

    async def send(self, event: Event, bounds: WriteBounds | None = None) -> None:
        """Send one frame within `bounds` (a turn's; else one write's); a client that stopped
        reading gets its connection aborted (ClientStuck, a ConnectionError)."""
        try:
            await (bounds or WriteBounds(self.limits)).write(self._send_now(event))
        except ClientStuck:
            if self.transport is not None:
                self.transport.abort()
            raise

    async def _send_now(self, event: Event) -> None:
        # Turns and the reader both send; a lock keeps each frame whole and in order.
        async with self._send_lock:
            await self.ws.send_str(strict_json.encode(event))

    async def run(self) -> None:
        try:
            while True:
                remaining = self.deadline - time.monotonic()
                if remaining <= 0:
                    await self._limit_reached()
                    return
                try:
                    message = await self.ws.receive(timeout=remaining)
                except asyncio.TimeoutError:
                    continue  # the deadline check above closes the connection
                if message.type == WSMsgType.TEXT:
                    await self._on_text(message.data)
                elif message.type == WSMsgType.BINARY:
                    error = frame_error("Send JSON text frames, not binary.")
                    await self._send_quietly(error_event(error))
                else:  # CLOSE, CLOSING, CLOSED, ERROR
                    return
        finally:
            await self._stop_turn()

    async def _on_text(self, text: str) -> None:
        held = Reservation(self.budget)
        try:
            held.grow_to(text_bytes(text))  # before decoding: 429 when bodies fill the budget
            frame = parse_frame(text)
        except ApiError as exc:
            held.release()
            await self._send_quietly(error_event(exc))
            return
        try:
            await self._start_turn(frame, held)
        except BaseException:
            held.release()
            raise

    async def _start_turn(self, frame: CreateFrame, held: Reservation) -> None:
        """Starts the frame's turn, which gives back `held` when it ends (however it ends)."""
        if self._turn is not None and not self._turn.done():
            await self._send_quietly(
                error_event(
                    ApiError(
                        400,
                        "A response is already in progress on this connection; send the next "
                        "`response.create` after its final event (or open another connection).",
                        code="response_already_in_progress",
                    )
                )
            )
            held.release()
            return
        log.debug(
            "response.create: generate=%s previous_response_id=%s",
            frame.generate,
            frame.previous_response_id,
        )
        self._turn = asyncio.create_task(self._run_turn(frame))
        self._turn.add_done_callback(lambda _: held.release())

    async def _run_turn(self, frame: CreateFrame) -> None:
        continuing = False
        size = 0
        try:
            check_request_shape(frame.body, self.limits)
            body = resolve_references(frame.body, self.items)  # the kept history has none
            size = self._conversation_size(frame.previous_response_id, body.get("input"))
            items = conversation_input(self.cached, frame.previous_response_id, body.get("input"))
            continuing = frame.previous_response_id is not None
            request = create_request({**body, "input": items}, self.limits)
            if frame.generate:
                with self.slots.hold():  # the same cap as HTTP model requests
                    plan = await prepare_response(
                        self.backend, request, self.names, self.limits.answerCheckSeconds
                    )
                    note_request("responses", request.model, True)  # a WebSocket streams
                    plan.response["previous_response_id"] = frame.previous_response_id
                    events = remembering(
                        response_events(self.backend, plan, self.keepalive), self.items
                    )
                    final = await self._stream(events)
            else:
                resolve_model(request.model, await self.backend.list_models(), self.names)
                final = await self._stream(
                    _aiter(warmup_events(request, frame.previous_response_id))
                )
        except ApiError as exc:
            final = None
            if exc.code == "conversation_too_large":
                continuing = True  # what was kept is of no use any more: let it go
            await self._send_quietly(error_event(exc))
        except EditorError as exc:
            final = None
            await self._send_quietly(error_event(from_editor(exc.code, exc.message, exc.name)))
        except ConnectionError:
            return  # the client went away mid-stream; the run loop ends the connection
        except Exception:
            # A bug must not leave the client waiting for a response that never ends.
            log.exception("Unexpected error in a WebSocket turn")
            final = None
            internal = ApiError(
                500, "Internal error in Maestro Bridge.", type="server_error", code="internal_error"
            )
            await self._send_quietly(error_event(internal))
        kept = cached_after(final, items, size) if final is not None else None
        if kept is not None and kept.size > self.limits.websocketKeptBytes:
            log.info("WebSocket conversation of %d bytes not kept (over the cap)", kept.size)
            self.too_large, kept = (kept.id, kept.size), None
            continuing = True  # drop the previous state too
        if kept is not None:
            self.cached = kept
        elif continuing:
            # A failed continuation must not leave a cached state the client may not share.
            self.cached = None

    def _conversation_size(self, previous_response_id: str | None, new_input: Any) -> int:
        """The JSON size of the turn's conversation; 400 `conversation_too_large` past the cap.

        Only the new input is measured: the kept part's size was added up as it was kept.
        """
        limit = self.limits.websocketKeptBytes
        if self.too_large is not None and self.too_large[0] == previous_response_id:
            raise conversation_too_large(self.too_large[1], limit)
        size = json_bytes(as_items(new_input))
        cached = self.cached
        if cached is not None and previous_response_id == cached.id:
            size += cached.size
            if size > limit:
                self.too_large = (cached.id, size)
                raise conversation_too_large(size, limit)
        return size

    async def _stream(self, events: AsyncGenerator[list[Event], None]) -> dict[str, Any] | None:
        """Send every event as a frame; the terminal event's response, if one came."""
        final: dict[str, Any] | None = None
        bounds = WriteBounds(self.limits)  # the whole response, as over HTTP
        try:
            async for batch in events:
                for event in batch:
                    await self.send(event, bounds)
                    if event["type"] in TERMINAL_EVENTS:
                        final = event["response"]
        finally:
            await events.aclose()  # stops the editor request when the client left early
        return final

    async def _send_quietly(self, event: Event) -> None:
        with contextlib.suppress(ConnectionError):
            await self.send(event)

    async def _stop_turn(self) -> None:
        turn, self._turn = self._turn, None
        if turn is not None and not turn.done():
            turn.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await turn

    async def _limit_reached(self) -> None:
        await self._stop_turn()
        error = ApiError(
            400,
            "This WebSocket connection reached its time limit and is closed; open a new one "
            "(responses of this connection cannot be continued there: send the full input).",
            code="websocket_connection_limit_reached",
        )
        await self._send_quietly(error_event(error))
        await self.ws.close(code=WSCloseCode.OK, message=b"websocket_connection_limit_reached")


async def _aiter(batches: Iterable[list[Event]]) -> AsyncGenerator[list[Event], None]:
    for batch in batches:
        yield batch


# --------------------------------------------------------------------------- aiohttp glue


async def serve_websocket(
    request: web.Request,
    backend: Backend,
    settings: BridgeSettings,
    slots: ModelSlots,
    items: ItemCache,
) -> web.StreamResponse:
    """The `GET /v1/responses` handler: upgrade, then serve `response.create` frames."""
    ws = web.WebSocketResponse(max_msg_size=settings.limits.maxBodyBytes)
    if not ws.can_prepare(request).ok:
        raise ApiError(
            426,
            "`GET /v1/responses` is WebSocket mode: connect with a WebSocket upgrade, or "
            "`POST /v1/responses` over plain HTTP.",
            code="websocket_upgrade_required",
            headers={"Upgrade": "websocket", "Connection": "Upgrade"},
        )
    await ws.prepare(request)
    log.info("WebSocket connection opened")
    socket = ResponsesSocket(
        ws, backend, settings, slots, items, request.transport, request.app.get(BODY_BUDGET)
    )
    request.app[OPEN_SOCKETS].add(socket)
    watch_responses(request, socket.responding)  # idle: may be closed when connections run short
    try:
        await socket.run()
    finally:
        request.app[OPEN_SOCKETS].discard(socket)
        await ws.close()
        log.info("WebSocket connection closed")
    return ws
