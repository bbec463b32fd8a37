"""Each chat with the editor measured and recorded: the backend wrapper of the usage ledger.

One row per model request the bridge makes (a retry or a fallback is a row of its own): the
tags of the HTTP request behind it (bridge/core/request_tags.py), the editor's usage report,
the time to the first part and the whole, and how it ended. Where the editor reports no usage
the bridge counts with the editor's tokenizer after the answer (a task of its own, so the
client is not kept waiting) and marks the row estimated; a request the editor failed before
any part counts no tokens (nothing was read or answered).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import replace

from aiohttp import web

from bridge.core import strict_json
from bridge.core.backend import (
    Backend,
    ChatRequest,
    DataPart,
    EditorError,
    ModelInfo,
    ModelPrices,
    ResponsePart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from bridge.core.editor_failures import classify_error
from bridge.core.editor_usage import UsageCounts, usage_counts
from bridge.core.errors import ApiError, from_editor
from bridge.core.request_tags import RequestTags, current_tags
from bridge.core.token_limits import chat_input_tokens
from bridge.usage.credits import credits_of
from bridge.usage.ledger import UsageLedger
from bridge.usage.rows import UsageRow

log = logging.getLogger(__name__)

# How long a row without the editor's usage waits for the dialect's count of the same answer
# (made as the answer ends) before counting it itself.
DIALECT_COUNT_SECONDS = 5.0


class _Measure:
    """What one chat did, gathered as its parts pass."""

    def __init__(self, request: ChatRequest, shared: RequestTags) -> None:
        self.request = request
        # A copy: the tags of a WebSocket connection are one object that its next turn
        # changes, maybe before this row is written (an estimate is counted afterwards).
        self.tags = replace(shared, awaiting_estimate=None)
        self.shared = shared  # where the dialect's count of this answer is handed over
        self.started = time.time()
        self._clock = time.monotonic()
        self.first_token_ms: float | None = None
        self.usage: UsageCounts | None = None
        self.output: list[str] = []
        self.reasoning: list[str] = []
        self.status = 200
        self.error: str | None = None
        self.cancelled = False

    def elapsed_ms(self) -> float:
        return round((time.monotonic() - self._clock) * 1000, 1)

    def saw(self, batch: list[ResponsePart]) -> None:
        for part in batch:
            if isinstance(part, DataPart):
                if part.mimeType == "usage":
                    self.usage = usage_counts(part.data) or self.usage
                continue
            if self.first_token_ms is None:
                self.first_token_ms = self.elapsed_ms()
            if isinstance(part, TextPart):
                self.output.append(part.value)
            elif isinstance(part, ThinkingPart):
                self.reasoning.append(part.value)
            elif isinstance(part, ToolCallPart):
                self.output.append(part.name + strict_json.encode(part.input))

    def failed(self, exc: EditorError | ApiError) -> None:
        if isinstance(exc, EditorError):
            kind = classify_error(exc).kind
            if kind == "too_long":
                return  # Copilot's output limit: the answer ends as length-limited
            if kind == "content_filter" and self.first_token_ms is not None:
                # Once output began, a filter ends the answer (200, a `filtered` end).
                self.error = "content_filter"
                return
            exc = from_editor(exc.code, exc.message, exc.name)
        self.status, self.error = exc.status, exc.code or exc.type

    def crashed(self) -> None:
        """An unexpected exception: the client gets the dialect's 500 (or a failed end)."""
        self.status, self.error = 500, "internal_error"

    def refused(self) -> bool:
        """The editor failed the request before any part: nothing was made, nothing to count
        (a rate limit or a refused request costs no tokens, and budgets must not count it)."""
        return self.status >= 400 and self.first_token_ms is None

    def row(
        self, usage: UsageCounts, estimated: bool, prices: ModelPrices | None = None
    ) -> UsageRow:
        tags = self.tags
        cost = credits_of(usage, prices)
        return UsageRow(
            started=self.started,
            client=tags.client,
            dialect=tags.dialect,
            path=tags.path,
            requested_model=tags.requested_model or self.request.model,
            model=self.request.model,
            input_tokens=usage.input_tokens,
            cached_tokens=usage.cached_tokens,
            output_tokens=usage.output_tokens,
            reasoning_tokens=usage.reasoning_tokens,
            estimated=estimated,
            first_token_ms=self.first_token_ms,
            duration_ms=self.elapsed_ms(),
            status=self.status,
            error=self.error,
            streamed=tags.streamed,
            cancelled=self.cancelled,
            cache_write_tokens=usage.cache_write_tokens,
            credits=None if cost is None else cost.credits,
            credits_reported=cost is not None and cost.reported,
        )


class MeteredBackend:
    """A Backend whose chats are recorded in the usage ledger."""

    def __init__(
        self, backend: Backend, ledger: UsageLedger, rates: dict[str, ModelPrices] | None = None
    ) -> None:
        self.inner = backend
        self.ledger = ledger
        # Each model's prices for the credits estimate: the editor's (from the model list),
        # else the `usage.creditRates` setting's.
        self._rates = dict(rates or {})
        self._editor_prices: dict[str, ModelPrices] = {}
        self._estimates: set[asyncio.Task[None]] = set()
        self._awaited: set[asyncio.Future[UsageCounts]] = set()  # dialects' counts not yet in

    async def list_models(self) -> list[ModelInfo]:
        models = await self.inner.list_models()
        self._editor_prices = {m.id: m.prices for m in models if m.prices is not None}
        return models

    def prices(self, model: str) -> ModelPrices | None:
        return self._editor_prices.get(model) or self._rates.get(model)

    async def count_tokens(self, model: str, text: str) -> int:
        return await self.inner.count_tokens(model, text)

    async def chat(self, request: ChatRequest) -> AsyncGenerator[list[ResponsePart], None]:
        measure = _Measure(request, current_tags())
        parts = self.inner.chat(request)
        try:
            async for batch in parts:
                measure.saw(batch)
                yield batch
        except (EditorError, ApiError) as exc:
            measure.failed(exc)
            raise
        except (GeneratorExit, asyncio.CancelledError):
            # The client went away, or the bridge ended the answer early (max_tokens, a
            # stop sequence): the editor's request was cancelled before its end.
            measure.cancelled = True
            raise
        except Exception:
            measure.crashed()
            raise
        finally:
            try:
                await parts.aclose()
            finally:  # recorded even when closing fails or is cancelled again
                self._record(measure)

    def _record(self, measure: _Measure) -> None:
        prices = self.prices(measure.request.model)
        if measure.usage is not None:
            self.ledger.record(measure.row(measure.usage, estimated=False, prices=prices))
            return
        if measure.refused():
            self.ledger.record(measure.row(UsageCounts(0, 0), estimated=False))
            return
        loop = asyncio.get_running_loop()
        counted: asyncio.Future[UsageCounts] = loop.create_future()
        if measure.cancelled or measure.status >= 400:
            counted.cancel()  # the dialect counts only an answer that ended: count it here

        def settle(counts: UsageCounts) -> None:
            if not counted.done():
                counted.set_result(counts)

        if not counted.done():
            measure.shared.awaiting_estimate = settle
            self._awaited.add(counted)
            counted.add_done_callback(self._awaited.discard)
        task = loop.create_task(self._estimate(measure, counted, settle))
        self._estimates.add(task)
        task.add_done_callback(self._estimates.discard)

    async def _estimate(
        self,
        measure: _Measure,
        counted: asyncio.Future[UsageCounts],
        settle: Callable[[UsageCounts], None],
    ) -> None:
        """No usage from the editor: the count the dialect makes for its client when it has
        one; else (a cancelled or failed answer) the editor's tokenizer counts it here."""
        await asyncio.wait({counted}, timeout=DIALECT_COUNT_SECONDS)
        if counted.done() and not counted.cancelled():
            usage = counted.result()
        else:
            counted.cancel()
            if measure.shared.awaiting_estimate is settle:
                measure.shared.awaiting_estimate = None
            usage = await self._count(measure)
        self.ledger.record(
            measure.row(usage, estimated=True, prices=self.prices(measure.request.model))
        )

    async def _count(self, measure: _Measure) -> UsageCounts:
        model = measure.request.model
        try:
            input_tokens = await chat_input_tokens(self.inner, measure.request)
            output = "".join(measure.output)
            reasoning = "".join(measure.reasoning)
            reasoning_tokens = await self.inner.count_tokens(model, reasoning) if reasoning else 0
            output_tokens = await self.inner.count_tokens(model, output) if output else 0
            return UsageCounts(input_tokens, output_tokens + reasoning_tokens, reasoning_tokens)
        except Exception as exc:  # whatever failed, the row is still kept
            # The editor cannot count (it went away, it timed out): zeros, still estimated.
            log.debug("Could not estimate a usage row's tokens: %r", exc)
            return UsageCounts(0, 0)

    async def drain(self) -> None:
        """Waits for the estimates still being counted (at shutdown)."""
        for counted in list(self._awaited):
            counted.cancel()  # shutting down: no dialect will count any more, count them now
        if self._estimates:
            await asyncio.gather(*self._estimates, return_exceptions=True)


USAGE_LEDGER: web.AppKey[UsageLedger] = web.AppKey("usage_ledger", UsageLedger)
