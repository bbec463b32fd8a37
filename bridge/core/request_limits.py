"""How much one client may ask for: request shape, model requests at once, and time.

Body size is enforced by aiohttp (`client_max_size`); everything else is here, so that a
single request cannot make the bridge do unbounded work or hold a model request forever.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator
from typing import Any

from aiohttp import web

from bridge.core.backend import Backend, ChatRequest, EditorError, ModelInfo, ResponsePart
from bridge.core.errors import ApiError, invalid_request
from bridge.core.limits import Limits

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

RETRY_AFTER_SECONDS = 1


def json_depth_exceeded(value: Any, limit: int) -> bool:
    """True when `value` nests arrays/objects more than `limit` deep (iterative: no recursion)."""
    return json_shape(value, limit, sys.maxsize)[0]


def json_shape(value: Any, depth_limit: int, max_values: int) -> tuple[bool, int]:
    """(nested more than `depth_limit` deep, JSON values counted), one level at a time.

    Every object, array, string, number, true/false/null counts as a value (keys do not).
    The walk stops as soon as the count passes `max_values`, so its cost is bounded by the
    cap, not by the body: 8 million one-character strings cost as much as the cap allows.
    Levels are gathered with `list.extend` (C speed), not one Python step per value.
    """
    level: list[Any] = [value]
    depth, counted = 0, 0
    while level:
        depth += 1
        counted += len(level)
        if counted > max_values:
            return False, counted
        deeper: list[Any] = []
        for node in level:
            if isinstance(node, dict):
                deeper.extend(node.values())
            elif isinstance(node, list):
                deeper.extend(node)
            else:
                continue
            if depth > depth_limit:
                return True, counted
            if counted + len(deeper) > max_values:
                return False, counted + len(deeper)
        level = deeper
    return False, counted


def _declared(tool: Any) -> int:
    """How many tools one entry of `tools` offers: a Gemini entry declares several functions
    (`functionDeclarations`), any other entry is one tool."""
    if isinstance(tool, dict):
        for key in ("functionDeclarations", "function_declarations"):
            if isinstance(tool.get(key), list):
                return len(tool[key])
    return 1


def _offered_tools(body: dict[str, Any]) -> int:
    """Tools in `tools` plus those in `additional_tools` input items (Codex sends both)."""
    lists = [body.get("tools")]
    items = body.get("input")
    if isinstance(items, list):
        lists += [
            item.get("tools")
            for item in items
            if isinstance(item, dict) and item.get("type") == "additional_tools"
        ]
    return sum(sum(map(_declared, tools)) for tools in lists if isinstance(tools, list))


def check_request_shape(body: Any, limits: Limits, items: str = "input") -> None:
    """400 for a body nested too deeply, with too many JSON values, input items or tools.

    `items` names the dialect's list of conversation items (`input`, `messages`, ...)."""
    if isinstance(body, dict):
        left = limits.maxJsonValues
        for key, value in body.items():
            too_deep, counted = json_shape(value, limits.maxJsonDepth - 1, left)
            if too_deep:
                raise invalid_request(
                    f"Invalid {key!r}: nested more than {limits.maxJsonDepth} levels deep.",
                    param=str(key),
                    code="nesting_too_deep",
                )
            left -= counted
            if left < 0:
                raise _too_many_values(limits, param=str(key))
        for name, limit in ((items, limits.maxInputItems), ("tools", limits.maxTools)):
            listed = body.get(name)
            if isinstance(listed, list) and len(listed) > limit:
                raise invalid_request(
                    f"Invalid {name!r}: array too long. Expected at most {limit} items, "
                    f"got {len(listed)}.",
                    param=name,
                    code="array_above_max_length",
                )
        offered = _offered_tools(body)
        if offered > limits.maxTools:
            raise invalid_request(
                f"Too many tools: at most {limits.maxTools} in `tools` (with Gemini's "
                "function declarations) and `additional_tools` input items together, "
                f"got {offered}.",
                param="tools",
                code="array_above_max_length",
            )
        return
    too_deep, counted = json_shape(body, limits.maxJsonDepth, limits.maxJsonValues)
    if too_deep:
        raise invalid_request(
            f"The request body is nested more than {limits.maxJsonDepth} levels deep.",
            code="nesting_too_deep",
        )
    if counted > limits.maxJsonValues:
        raise _too_many_values(limits, param=None)


def _too_many_values(limits: Limits, param: str | None) -> ApiError:
    where = f"Invalid {param!r}: the request body" if param else "The request body"
    return invalid_request(
        f"{where} holds more than {limits.maxJsonValues} JSON values (strings, numbers, "
        "objects, arrays), the most one request may hold (limits.maxJsonValues). Send big "
        "content as one string (text, base64 data) instead of many small values.",
        param=param,
        code="too_many_values",
    )


class ModelSlots:
    """A cap on model requests running at once; beyond it clients are told to retry."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.in_use = 0
        # POST paths that ask the model or its token counter, as the dialects mount them
        # (WebSocket turns take their slot per `response.create`): a count of a huge input
        # costs the editor as much as an answer.
        self.paths: set[str] = set()
        self.path_patterns: list[re.Pattern[str]] = []

    def asks_model(self, path: str) -> bool:
        return path in self.paths or any(p.fullmatch(path) for p in self.path_patterns)

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        if self.in_use >= self.limit:
            raise ApiError(
                429,
                f"Too many requests at once: at most {self.limit} model requests run in "
                "parallel (limits.maxConcurrentRequests). Retry shortly.",
                type="rate_limit_error",
                code="too_many_concurrent_requests",
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
            )
        self.in_use += 1
        try:
            yield
        finally:
            self.in_use -= 1


MODEL_SLOTS: web.AppKey[ModelSlots] = web.AppKey("model_slots", ModelSlots)


def takes_model_slot(app: web.Application, *paths: str, pattern: str | None = None) -> None:
    """POSTs to `paths` (or whose path matches `pattern`) wait for a model slot."""
    app[MODEL_SLOTS].paths.update(paths)
    if pattern is not None:
        app[MODEL_SLOTS].path_patterns.append(re.compile(pattern))


@web.middleware
async def concurrency_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Each model request holds a slot until its answer (or stream) has ended."""
    slots = request.app[MODEL_SLOTS]
    if request.method != "POST" or not slots.asks_model(request.path):
        return await handler(request)
    with slots.hold():
        return await handler(request)


async def _next_within(
    parts: AsyncGenerator[list[ResponsePart], None], seconds: float
) -> list[ResponsePart]:
    if sys.version_info >= (3, 11):
        # Cancels in place: no extra task per batch on the streaming hot path.
        async with asyncio.timeout(seconds):
            return await anext(parts)
    return await asyncio.wait_for(anext(parts), seconds)  # pragma: no cover - Python 3.10


class TimedBackend:
    """A Backend whose chats end with an `editor_timeout` error instead of hanging when the
    editor stops sending parts (idle timeout) or takes too long overall (total timeout)."""

    def __init__(self, backend: Backend, limits: Limits) -> None:
        self.inner = backend
        self.idle = limits.idleTimeoutSeconds
        self.total = limits.totalTimeoutSeconds

    async def list_models(self) -> list[ModelInfo]:
        return await self.inner.list_models()

    async def count_tokens(self, model: str, text: str) -> int:
        # An editor that takes longer than the idle timeout to count is slow, not gone.
        try:
            return await asyncio.wait_for(self.inner.count_tokens(model, text), self.idle)
        except asyncio.TimeoutError:
            raise EditorError(
                "Timeout", f"The editor did not count the tokens within {self.idle:g} s."
            ) from None

    async def chat(self, request: ChatRequest) -> AsyncGenerator[list[ResponsePart], None]:
        parts = self.inner.chat(request)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.total
        try:
            while True:
                left = deadline - loop.time()
                try:
                    # On timeout the pending read is cancelled, which closes the editor
                    # request (`$/cancelRequest`) before we report the failure.
                    batch = await _next_within(parts, max(0.0, min(self.idle, left)))
                except StopAsyncIteration:
                    return
                except asyncio.TimeoutError:
                    if left <= self.idle:
                        message = f"The model did not finish within {self.total:g} s."
                    else:
                        message = f"The editor sent nothing for {self.idle:g} s."
                    raise EditorError("Timeout", message) from None
                yield batch
        finally:
            await parts.aclose()
