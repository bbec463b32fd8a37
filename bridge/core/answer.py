"""The editor's answer as every dialect streams it: keepalives, the output cut, usage, failures.

A dialect turns parts into its own events; what happens around them is the same for all:
- `EditorAnswer` runs the chat with keepalive ticks (None) while the model is silent, cuts
  the output at the request's `max_tokens` (the editor has no stop reason of its own), gives
  the tool calls back their client names (bridge/core/copilot/tool_names.py) and, where the
  request must call a tool that Copilot could only be told of in an instruction, holds the
  answer until a call comes and asks once more when none does (bridge/core/copilot/required.py);
  the provider's own ends that are no failure end the answer normally: `Response too long.`
  (older Copilots' output limit) as length-limited, a content filter once output began as
  `filtered` (each dialect's content-filter end; before any output it is a 400);
- Copilot 0.67 ends a length-limited answer without an error and without its usage part, which
  ends the answer as length-limited too (`too_long`; bridge/core/copilot/length_end.py);
- `estimate_usage` counts with the editor's tokenizer when the editor reported no usage;
- `guarded` turns a failure into the dialect's failure events once something was sent (before
  that it raises, so the client still gets an HTTP status such as 429 with Retry-After).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import TypeVar

from msgspec.structs import replace

from bridge.core.backend import (
    INPUT_TOO_LONG,
    Backend,
    ChatRequest,
    DataPart,
    EditorError,
    ResponsePart,
    TextPart,
    ToolCallPart,
)
from bridge.core.copilot.length_end import ended_at_output_limit
from bridge.core.copilot.required import retry_messages, tool_call_missing
from bridge.core.editor_failures import Failure, classify_error
from bridge.core.editor_usage import UsageCounts
from bridge.core.errors import ApiError, from_editor, from_failure
from bridge.core.keepalive import with_keepalive
from bridge.core.request_tags import settle_estimate
from bridge.core.search_parts import is_search
from bridge.core.token_limits import OutputLimit, chat_input_tokens, input_too_long

log = logging.getLogger(__name__)

INTERNAL_ERROR = "internal_error"
INTERNAL_MESSAGE = "Internal error in Maestro Bridge."

E = TypeVar("E")


class EditorAnswer:
    """One chat with the editor: batches of parts, None for a keepalive tick."""

    def __init__(
        self,
        backend: Backend,
        chat: ChatRequest,
        keepalive_seconds: float,
    ) -> None:
        self.backend = backend
        self.chat = chat
        self.keepalive_seconds = keepalive_seconds
        self.too_long = False  # the provider ended the answer at the model's output limit
        self.filtered = False  # a content filter ended the answer after it began
        self.filter_message = ""
        self._yielded = False  # something (a batch or a keepalive tick) went to the dialect
        self._usage_seen = False  # the editor reported usage: the answer ended normally
        limit = chat.modelOptions.get("max_tokens")
        self.limit = limit if isinstance(limit, int) and not isinstance(limit, bool) else None
        self._limiter: OutputLimit | None = None
        if self.limit is not None:
            model = chat.model
            self._limiter = OutputLimit(self.limit, lambda text: backend.count_tokens(model, text))

    async def batches(self) -> AsyncGenerator[list[ResponsePart] | None, None]:
        """Closing this early cancels the editor's request."""
        source = self._required() if self.chat.toolCallRequired else self._named(self.chat)
        try:
            async with contextlib.aclosing(self._limited(source)) as batches:
                async for batch in batches:
                    self._yielded = True
                    if batch and not self._usage_seen:
                        self._usage_seen = _has_usage(batch)
                    yield batch
        except EditorError as exc:
            await self._ended_by(exc)  # returns when the answer just ends
            return
        if not self._usage_seen and not self.too_long:
            self.too_long = await ended_at_output_limit(self.backend, self.chat.model)

    async def _required(self) -> AsyncGenerator[list[ResponsePart] | None, None]:
        """An answer that must call a tool: held until it does; asked twice at most."""
        chat = self.chat
        for attempt in range(2):
            held: list[ResponsePart] = []
            called = False
            async with contextlib.aclosing(self._named(chat)) as batches:
                async for batch in batches:
                    if called or batch is None:
                        yield batch
                        continue
                    held.extend(batch)
                    # A web search the bridge ran (bridge/web_search/loop.py) is a call too.
                    if any(isinstance(part, ToolCallPart) or is_search(part) for part in batch):
                        called = True
                        yield held
            if called:
                return
            if not _has_usage(held) and await ended_at_output_limit(self.backend, chat.model):
                # Cut at the output limit before any call (0.67's length finish): asking again
                # would be cut the same way; the answer ends as length-limited, its text kept.
                self.too_long = True
                yield held
                return
            if attempt == 0:
                log.info("The model answered without the tool call it must make; asking again")
                text = "".join(p.value for p in held if isinstance(p, TextPart))
                messages = retry_messages(self.chat.messages, text)
                chat = self.chat.model_copy(update={"messages": messages})
        raise tool_call_missing()

    async def _named(self, chat: ChatRequest) -> AsyncGenerator[list[ResponsePart] | None, None]:
        """The editor's batches (None: a keepalive tick), tool calls under the client's names,
        without the lone space Copilot 0.67 puts between text and a tool call."""
        names = chat.clientToolNames
        batches = with_keepalive(self.backend.chat(chat), self.keepalive_seconds)
        spaces = _CallSpaces()
        try:
            async for parts in batches:
                if parts is not None:
                    if names:
                        parts = [_client_named(part, names) for part in parts]
                    parts = spaces.without(parts)
                yield parts
            if spaces.held is not None:
                yield [spaces.held]
        finally:
            await batches.aclose()  # closes the editor's chat too

    async def _limited(
        self, batches: AsyncGenerator[list[ResponsePart] | None, None]
    ) -> AsyncGenerator[list[ResponsePart] | None, None]:
        """The batches up to the output limit; closing this closes `batches`."""
        async with contextlib.aclosing(batches):
            async for parts in batches:
                if parts is None or self._limiter is None:
                    yield parts
                    continue
                yield await self._limiter.admit(parts)
                if self._limiter.reached:
                    break  # closing the chat cancels the editor's request

    async def _ended_by(self, exc: EditorError) -> None:
        """The provider's failure: an end of the answer, or (raised) a failure."""
        if exc.name == INPUT_TOO_LONG:  # the editor counted the input past the window
            raise input_too_long(self.chat, exc.input_tokens) from None
        failure = classify_error(exc)
        if failure.kind == "too_long":
            # Copilot streams what fits, then throws: a length-limited answer, text kept.
            log.info("The model reached its output limit; the answer ends as length-limited")
            self.too_long = True
            return
        if failure.kind == "content_filter" and self._yielded:
            log.warning("A content filter ended the answer: %s", exc.message)
            self.filtered = True
            self.filter_message = exc.message
            return
        if failure.kind == "context_length":
            raise await self._context_error(failure) from None
        raise exc

    async def _context_error(self, failure: Failure) -> ApiError:
        """400 `context_length_exceeded` with the numbers: the input's tokens as the bridge
        counts them and the model's window. Copilot counted more than the window (its count
        adds its own prompt and per-message overhead), so the input is at least window + 1."""
        error = from_failure(failure)
        if failure.overflow is not None:
            return error  # the model's service counted it and said so
        window = 0
        try:
            models = await self.backend.list_models()
            window = next((m.maxInputTokens for m in models if m.id == self.chat.model), 0)
            tokens = await chat_input_tokens(self.backend, self.chat)
        except EditorError:
            tokens = None
        if window <= 0:
            return error
        tokens = max(tokens or 0, window + 1)
        error.message = (
            f"The input is {tokens} tokens, more than the {window} tokens the model "
            f"{self.chat.model!r} can read as GitHub Copilot counts it (its own prompt and the "
            "tools' definitions included). Shorten the conversation or its tool outputs and "
            "try again."
        )
        error.overflow = (tokens, window)
        return error

    def filter_error(self) -> ApiError:
        """The 400 of a content filter, for a dialect that had sent nothing when it came."""
        return from_failure(Failure("content_filter", self.filter_message))

    def cut(self, output_tokens: int) -> bool:
        """The answer ended at the output limit (the bridge cut it, or it used all of it)."""
        if self.too_long or (self._limiter is not None and self._limiter.reached):
            return True
        return self.limit is not None and output_tokens >= self.limit


class _CallSpaces:
    """Copilot 0.67's chat and Messages stream processors report a `" "` text part when a tool
    call starts after text (`textAccumulator.length && report({text: " "})`): no word of the
    model's, so it is dropped. A `" "` part is held until the next part shows what follows."""

    def __init__(self) -> None:
        self.held: ResponsePart | None = None

    def without(self, parts: list[ResponsePart]) -> list[ResponsePart]:
        kept: list[ResponsePart] = []
        for part in parts:
            if self.held is not None:
                if not isinstance(part, ToolCallPart):
                    kept.append(self.held)
                self.held = None
            if isinstance(part, TextPart) and part.value == " ":
                self.held = part
                continue
            kept.append(part)
        return kept


def _has_usage(parts: list[ResponsePart]) -> bool:
    return any(isinstance(p, DataPart) and p.mimeType == "usage" for p in parts)


def _client_named(part: ResponsePart, names: dict[str, str]) -> ResponsePart:
    if isinstance(part, ToolCallPart) and part.name in names:
        return replace(part, name=names[part.name])
    return part


async def estimate_usage(
    backend: Backend,
    chat: ChatRequest,
    output_text: str,
    reasoning_text: str,
) -> UsageCounts:
    """No usage from the editor: count with the editor's own tokenizer (zeros if it cannot);
    the input's count is the one the editor made as the chat started, when it made one."""
    model = chat.model
    try:
        input_tokens = await chat_input_tokens(backend, chat)
        output_tokens = await backend.count_tokens(model, output_text) if output_text else 0
        reasoning = await backend.count_tokens(model, reasoning_text) if reasoning_text else 0
    except EditorError:
        log.warning("The editor could not count tokens; usage reported as zero")
        return UsageCounts(0, 0)
    counts = UsageCounts(input_tokens, output_tokens + reasoning, reasoning)
    settle_estimate(counts)  # the usage ledger's row of this answer takes the same count
    return counts


async def guarded(
    batches: AsyncIterator[list[E]],
    fail: Callable[[ApiError], list[E]],
    *,
    raise_failures: bool = False,
) -> AsyncGenerator[list[E], None]:
    """`batches`, where a failure after the first batch ends the stream with `fail(error)`.

    Before the first batch a failure raises (an editor failure as its ApiError), so that the
    transport can still answer with an HTTP status; after it, any failure, a bug included,
    ends the stream in the dialect's own way: a client never waits on a cut stream.
    `raise_failures` (a non-streaming answer, folded before anything is sent) raises a later
    failure too. Closing this stream closes `batches`, and with them the editor's chat.
    """

    def end(error: ApiError) -> list[E]:
        if raise_failures:
            raise error
        return fail(error)

    sent = False  # a batch went out: the response's status line is no longer ours to choose
    try:
        async with contextlib.aclosing(batches):  # type: ignore[type-var]  # closed now
            async for batch in batches:
                sent = True
                yield batch
    except EditorError as exc:
        log.warning("The editor failed the request: %s (%s %s)", exc.message, exc.code, exc.name)
        error = from_editor(exc.code, exc.message, exc.name)
        if not sent:
            raise error from None
        yield end(error)
    except ApiError as exc:
        if not sent:
            raise
        log.warning("The answer failed: %s (%s)", exc.message, exc.code)
        yield end(exc)
    except Exception:
        if not sent:
            raise  # the transport's own handler logs it and answers 500
        log.exception("Unexpected error in an answer; it ends as failed")
        yield end(ApiError(500, INTERNAL_MESSAGE, type="server_error", code=INTERNAL_ERROR))
