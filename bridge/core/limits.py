"""The bounds on what one request, one connection and the whole endpoint may cost: the
`limits` of the endpoint's settings (bridge/settings.py), read by the core, the HTTP layer and
every dialect. Here, below them all, so that none of them imports the settings above."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024  # several base64 images fit
# Request bytes held at once across requests, sized for a 2-core, 8 GB laptop: a body costs
# the language server about five times its size while it is answered (decoded, converted,
# sent to the editor) and a quarter of a second of its event loop per 30 MiB. Two bodies of
# the largest size: ~320 MB at most, `/health` within half a second (bench/big_bodies.py).
DEFAULT_MAX_CONCURRENT_BODY_BYTES = 64 * 1024 * 1024
DEFAULT_WEBSOCKET_MAX_SECONDS = 60 * 60  # OpenAI's WebSocket mode closes after 60 minutes too
DEFAULT_WEBSOCKET_KEPT_BYTES = 64 * 1024 * 1024  # a few big images, or a very long session
DEFAULT_MAX_JSON_VALUES = 500_000
# Emitted items kept for `item_reference` (bridge/responses/item_cache.py): thousands of answers.
DEFAULT_ITEM_CACHE_BYTES = 16 * 1024 * 1024
DEFAULT_ANSWER_CHECK_SECONDS = 2.0


class Limits(BaseModel):
    model_config = ConfigDict(extra="ignore")
    maxBodyBytes: int = Field(default=DEFAULT_MAX_BODY_BYTES, ge=1024)
    # Bytes of request bodies held at once by the requests being received or answered,
    # reserved from Content-Length before a body is read; past it 429 with Retry-After.
    # Never below maxBodyBytes (bridge/http/body_budget.py).
    maxConcurrentBodyBytes: int = Field(default=DEFAULT_MAX_CONCURRENT_BODY_BYTES, ge=1024)
    websocketMaxSeconds: float = Field(default=DEFAULT_WEBSOCKET_MAX_SECONDS, gt=0)
    # What one WebSocket connection keeps for `previous_response_id` (its last conversation,
    # images included), in bytes of JSON text; past it a continuation is refused. 0 keeps none.
    websocketKeptBytes: int = Field(default=DEFAULT_WEBSOCKET_KEPT_BYTES, ge=0)
    # Generous for long agent sessions; they bound the work one request can cause.
    maxInputItems: int = Field(default=10_000, ge=1)
    maxTools: int = Field(default=512, ge=0)
    maxJsonDepth: int = Field(default=100, ge=8)
    # JSON values (strings, numbers, objects, arrays) in one request body: bounds the CPU that
    # parsing and converting a body can take (a full 10,000-item session holds ~150,000).
    maxJsonValues: int = Field(default=DEFAULT_MAX_JSON_VALUES, ge=1000)
    # Model requests running at once; more get 429 with Retry-After.
    maxConcurrentRequests: int = Field(default=64, ge=1)
    # Seconds without a part from the editor (reasoning models can think a long while first).
    idleTimeoutSeconds: float = Field(default=300.0, gt=0)
    totalTimeoutSeconds: float = Field(default=1800.0, gt=0)
    # Seconds one write of a stream (SSE, WebSocket) may wait for a client that stopped
    # reading; then its connection is closed and its model slot freed.
    writeTimeoutSeconds: float = Field(default=30.0, gt=0)
    # Memory for emitted items that `item_reference` may name; 0 keeps none.
    itemCacheBytes: int = Field(default=DEFAULT_ITEM_CACHE_BYTES, ge=0)
    # A request body must arrive whole within this many seconds (else 408, connection closed);
    # it is read before the request takes a model slot, so a slow sender holds none.
    bodyTimeoutSeconds: float = Field(default=30.0, gt=0)
    # Once a request's first bytes arrived, its headers must be complete within this (slowloris).
    headerTimeoutSeconds: float = Field(default=15.0, gt=0)
    # A connection with no request running is closed after this long (HTTP keep-alive).
    keepAliveTimeoutSeconds: float = Field(default=60.0, gt=0)
    # Open connections (WebSockets included); lowered to fit the process's file descriptor
    # limit. At the cap a new connection closes the longest-idle one, else it gets 503.
    maxConnections: int = Field(default=1024, ge=1)
    # Checking a structured answer against its JSON Schema (in a worker thread): past this,
    # the answer is returned "not checked" (a schema can be made to take hours).
    answerCheckSeconds: float = Field(default=DEFAULT_ANSWER_CHECK_SECONDS, gt=0, le=60)
