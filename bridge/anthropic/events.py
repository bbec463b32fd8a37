"""The one place where editor parts become Anthropic Messages stream events, and their fold.

A pure state machine, like the Responses builder: feed it the editor's parts in order, it
returns the events to send. `message_start` is held back until there is something else to send
(the first part, a ping, the end), so that a failure before it can still be an HTTP status.
Blocks follow the model's order: text, thinking (only when the request asked for thinking) and
tool_use, each `content_block_start`, its deltas, `content_block_stop`. The editor gives tool
calls whole, so one `input_json_delta` carries a call's entire JSON. The non-streaming answer is
the same events folded (`fold_message`), so both paths always agree.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
from typing import Any

from bridge.anthropic.errors import error_object
from bridge.anthropic.web_search import citation, result_block, server_tool_id
from bridge.core import ids, strict_json
from bridge.core.backend import DataPart, ResponsePart, TextPart, ThinkingPart, ToolCallPart
from bridge.core.editor_usage import UsageCounts, usage_of_part
from bridge.core.errors import ApiError
from bridge.core.thinking_tokens import (
    ENCRYPTED,
    MESSAGES_API,
    ORIGIN,
    UNSIGNED_PREFIX,
    is_sealed,
    signature_of,
)
from bridge.web_search.citations import citations
from bridge.web_search.events import search_of
from bridge.web_search.results import SearchOutcome, SearchResult

log = logging.getLogger(__name__)

Event = dict[str, Any]

# Anthropic's tool_use ids: clients send them back as `tool_use_id`, which must match this.
_USABLE_CALL_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")


def thinking_signature() -> str:
    """A made-up signature for a thought the provider did not sign: clients send thinking
    blocks back with it, and the bridge drops them (thinking_tokens.UNSIGNED_PREFIX)."""
    return f"{UNSIGNED_PREFIX}{secrets.token_urlsafe(24)}"


def usage_fields(counts: UsageCounts) -> dict[str, int]:
    """Anthropic's usage: `input_tokens` are the input not read from the cache (the whole
    input is their sum with `cache_read_input_tokens` and `cache_creation_input_tokens`)."""
    cached = min(counts.cached_tokens, counts.input_tokens)
    written = min(counts.cache_write_tokens, counts.input_tokens - cached)
    return {
        "input_tokens": counts.input_tokens - cached - written,
        "output_tokens": counts.output_tokens,
        "cache_creation_input_tokens": written,
        "cache_read_input_tokens": cached,
    }


class MessageEventBuilder:
    def __init__(
        self, model: str, thinking: bool, input_tokens: int = 0, *, omit_thinking: bool = False
    ) -> None:
        self.message: Event = {
            "id": ids.message_id(),
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage_fields(UsageCounts(input_tokens, 0)),
        }
        self._thinking = thinking
        self._omit_thinking = omit_thinking  # `display: "omitted"`: blocks without their text
        self._signature: str | None = None  # the provider's, for the open thinking block
        self.started = False
        self._open: str | None = None  # the type of the block being streamed
        self._index = -1  # the index of the last block started
        self._used_ids: set[str] = set()
        self.usage: UsageCounts | None = None  # from the editor's usage part, when it sends one
        self.output_text: list[str] = []  # text and tool input, for token estimates
        self.answer_text: list[str] = []  # the text blocks', for the structured-output check
        self.reasoning_text: list[str] = []  # thinking, counted whether shown or not
        self.tool_calls = 0
        self.results: list[SearchResult] = []  # the searches' results, as the model numbers them
        self.searched: int | None = None  # web searches run (None: the request had no search)
        self._block_text: list[str] = []  # the open text block's, for its citations

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self, input_tokens: int | None = None) -> list[Event]:
        """`message_start` the first time (with the input count when known), then nothing."""
        if self.started:
            return []
        self.started = True
        if input_tokens is not None:
            self.message["usage"]["input_tokens"] = input_tokens
        return [{"type": "message_start", "message": dict(self.message, content=[])}]

    def ping(self) -> list[Event]:
        return [*self.start(), {"type": "ping"}]

    def finish(
        self,
        stop_reason: str,
        stop_sequence: str | None,
        usage: UsageCounts,
        refusal: str | None = None,
    ) -> list[Event]:
        """Close the open block, then `message_delta` and `message_stop`. A `refusal` (why a
        filter ended the answer) goes in `stop_details`, as Anthropic's streaming refusals."""
        events = self.start() + self._close()
        fields: dict[str, Any] = dict(usage_fields(usage))
        if self.searched is not None:
            fields["server_tool_use"] = {
                "web_search_requests": self.searched,
                "web_fetch_requests": 0,
            }
        self.message.update(stop_reason=stop_reason, stop_sequence=stop_sequence, usage=fields)
        delta: Event = {"stop_reason": stop_reason, "stop_sequence": stop_sequence}
        if refusal is not None:
            details = {"type": "refusal", "category": None, "explanation": refusal}
            self.message["stop_details"] = details
            delta["stop_details"] = details
        events.append({"type": "message_delta", "delta": delta, "usage": fields})
        events.append({"type": "message_stop"})
        return events

    def fail(self, error: ApiError) -> list[Event]:
        """An `error` event in Anthropic's envelope: the stream ends with it."""
        return [*self.start(), {"type": "error", "error": error_object(error)}]

    # -- parts -------------------------------------------------------------------------------

    def add(self, parts: list[ResponsePart]) -> list[Event]:
        events = self.start() if parts else []
        for part in parts:
            if isinstance(part, TextPart):
                self._text(part.value, events)
            elif isinstance(part, ThinkingPart):
                self._thinking_text(part.value, events)
                if is_sealed(part):
                    self._seal(part, events)
            elif isinstance(part, ToolCallPart):
                self._tool_use(part, events)
            elif isinstance(part, DataPart):
                outcome = search_of(part)
                if outcome is None:
                    self._data(part)
                else:
                    self._web_search(outcome, events)
        return events

    def _web_search(self, outcome: SearchOutcome, events: list[Event]) -> None:
        """A search the bridge ran: its `server_tool_use` and `web_search_tool_result`."""
        tool_id = server_tool_id(outcome.call_id)
        use = {"type": "server_tool_use", "id": tool_id, "name": "web_search", "input": {}}
        index = self._open_block(use, events)
        delta = {"type": "input_json_delta", "partial_json": json.dumps({"query": outcome.query})}
        events.append({"type": "content_block_delta", "index": index, "delta": delta})
        self._open_block(result_block(tool_id, outcome), events)
        events.extend(self._close())
        self.searched = (self.searched or 0) + (outcome.error is None)
        self.results.extend(outcome.results)

    def _open_block(self, block: Event, events: list[Event]) -> int:
        events.extend(self._close())
        self._index += 1
        self._open = block["type"]
        self.message["content"].append(block)
        events.append({"type": "content_block_start", "index": self._index, "content_block": block})
        return self._index

    def _text(self, value: str, events: list[Event]) -> None:
        if not value:
            return
        self.output_text.append(value)
        self.answer_text.append(value)
        if self._open != "text":
            self._open_block({"type": "text", "text": ""}, events)
            self._block_text = []
        self._block_text.append(value)
        delta = {"type": "text_delta", "text": value}
        events.append({"type": "content_block_delta", "index": self._index, "delta": delta})

    def _thinking_text(self, value: str, events: list[Event]) -> None:
        if not value:
            return
        self.reasoning_text.append(value)
        if not self._thinking:
            return  # not asked for: counted, not shown
        if self._open != "thinking":
            self._open_block({"type": "thinking", "thinking": "", "signature": ""}, events)
        if self._omit_thinking:
            return  # the block and its signature go out, its text does not
        delta = {"type": "thinking_delta", "thinking": value}
        events.append({"type": "content_block_delta", "index": self._index, "delta": delta})

    def _seal(self, part: ThinkingPart, events: list[Event]) -> None:
        """The provider's encrypted thought, after its text: the open thinking block's
        signature, so that the client's next turn gives the thought back (thinking_tokens)."""
        if not self._thinking:
            return
        if self._open != "thinking":
            metadata = part.metadata or {}
            if metadata.get(ORIGIN) == MESSAGES_API:
                # Claude's redacted thinking: Copilot gives its data with no text.
                block = {"type": "redacted_thinking", "data": metadata[ENCRYPTED]}
                self._open_block(block, events)
                events.extend(self._close())
                return
            self._open_block({"type": "thinking", "thinking": "", "signature": ""}, events)
        self._signature = signature_of(part)
        events.extend(self._close())

    def _tool_id(self, call_id: str) -> str:
        if not _USABLE_CALL_ID.fullmatch(call_id or "") or call_id in self._used_ids:
            call_id = ids.tool_use_id()
        self._used_ids.add(call_id)
        return call_id

    def _tool_use(self, part: ToolCallPart, events: list[Event]) -> None:
        block = {
            "type": "tool_use",
            "id": self._tool_id(part.callId),
            "name": part.name,
            "input": {},
        }
        index = self._open_block(block, events)
        arguments = strict_json.encode(part.input)
        self.output_text.append(f"{part.name} {arguments}")
        delta = {"type": "input_json_delta", "partial_json": arguments}
        events.append({"type": "content_block_delta", "index": index, "delta": delta})
        self.tool_calls += 1
        events.extend(self._close())

    def _data(self, part: DataPart) -> None:
        counts = usage_of_part(part.mimeType, part.data)
        if counts is not None:  # else counted with the editor's tokenizer at the end
            self.usage = counts

    def _close(self) -> list[Event]:
        kind, self._open = self._open, None
        if kind is None:
            return []
        events: list[Event] = []
        if kind == "thinking":
            signature, self._signature = self._signature or thinking_signature(), None
            delta = {"type": "signature_delta", "signature": signature}
            events.append({"type": "content_block_delta", "index": self._index, "delta": delta})
        if kind == "text" and self.results:  # the text's `[n]` marks, as its citations
            for cited in citations("".join(self._block_text), self.results):
                found = {"type": "citations_delta", "citation": citation(cited)}
                events.append({"type": "content_block_delta", "index": self._index, "delta": found})
        events.append({"type": "content_block_stop", "index": self._index})
        return events


# -- fold ---------------------------------------------------------------------------------


def _apply_delta(block: Event, delta: Event, partial: dict[int, list[str]], index: int) -> None:
    kind = delta.get("type")
    if kind == "text_delta":
        block["text"] += delta["text"]
    elif kind == "thinking_delta":
        block["thinking"] += delta["thinking"]
    elif kind == "signature_delta":
        block["signature"] = delta["signature"]
    elif kind == "citations_delta":
        block["citations"] = [*(block.get("citations") or []), delta["citation"]]
    elif kind == "input_json_delta":
        partial.setdefault(index, []).append(delta["partial_json"])


def fold_message(events: list[Event]) -> Event:
    """The Message object the events describe (the non-streaming answer).

    An `error` event raises: the non-streaming answer of a failure is an HTTP error."""
    message: Event | None = None
    partial: dict[int, list[str]] = {}
    for event in events:
        kind = event["type"]
        if kind == "message_start":
            message = {**event["message"], "content": [], "usage": dict(event["message"]["usage"])}
        elif kind == "error":
            raise ApiError(502, str(event["error"].get("message", "")), type="server_error")
        elif message is None:
            continue
        elif kind == "content_block_start":
            message["content"].append(dict(event["content_block"]))
        elif kind == "content_block_delta":
            _apply_delta(
                message["content"][event["index"]], event["delta"], partial, event["index"]
            )
        elif kind == "content_block_stop" and event["index"] in partial:
            text = "".join(partial.pop(event["index"]))
            message["content"][event["index"]]["input"] = json.loads(text) if text else {}
        elif kind == "message_delta":
            message.update(event["delta"])
            message["usage"].update(event["usage"])
    if message is None:
        raise ApiError(502, "The editor ended the answer without a result.", type="server_error")
    return message
