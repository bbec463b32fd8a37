"""The one place where editor parts become Responses streaming events.

A pure state machine: feed it the editor's parts in order, it returns the events to send, with
`sequence_number` from 0 and the Response it keeps up to date. The non-streaming answer is the
same events folded (`bridge.fold`), so both paths see exactly the same output.

`response.created` and `response.in_progress` are held back until there is something else to
send (the first part, a keepalive, the end): until then nothing has gone out, so an editor
failure can still be answered with its HTTP status instead of a stream (see `started`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from bridge.core import ids, strict_json
from bridge.core.backend import DataPart, ResponsePart, TextPart, ThinkingPart, ToolCallPart
from bridge.core.editor_usage import usage_of_part
from bridge.core.thinking_tokens import is_sealed, token_of
from bridge.responses.response_object import usage_object
from bridge.responses.tools import ToolTarget, custom_tool_text
from bridge.responses.web_search import search_item, url_citations
from bridge.web_search.events import search_of
from bridge.web_search.results import SearchOutcome, SearchResult

log = logging.getLogger(__name__)

Event = dict[str, Any]

# Not a Responses event: sent while the model is silent so that clients which time out on idle
# streams (Codex counts parsed events, not bytes) keep waiting. OpenAI sends the same shape.
KEEPALIVE_EVENT = "keepalive"


def _json(value: Any) -> str:
    return strict_json.encode(value)


def _new_message() -> Event:
    return {
        "type": "message",
        "id": ids.message_id(),
        "status": "in_progress",
        "role": "assistant",
        "content": [],
    }


def _new_reasoning() -> Event:
    return {"type": "reasoning", "id": ids.reasoning_id(), "summary": []}


def _text_part(text: str) -> Event:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


class _OpenItem:
    """The output item being streamed: a message or a reasoning item collecting text."""

    def __init__(self, item: Event, index: int) -> None:
        self.item = item
        self.id: str = item["id"]
        self.index = index
        self.chunks: list[str] = []


class ResponseEventBuilder:
    def __init__(
        self,
        response: Event,
        targets: dict[str, ToolTarget],
        reasoning_summary: bool,
        encrypted_reasoning: bool = False,
    ) -> None:
        self.response = response
        self._targets = targets
        self._summary = reasoning_summary
        # `include: ["reasoning.encrypted_content"]`: reasoning items carry the provider's
        # thought (thinking_tokens.py)
        self._encrypted = encrypted_reasoning
        self._seq = 0
        self.started = False  # response.created has been handed out (to be sent)
        self._open: _OpenItem | None = None
        self.usage: Event | None = None  # from the editor's `usage` data part, when it sends one
        self.output_text: list[str] = []  # every produced text, for token estimates
        self.reasoning_text: list[str] = []  # every thinking text, for reasoning_tokens
        self.search_results: list[SearchResult] = []  # as the model numbers them (`[n]`)
        self.search_sources = False  # `web_search_call.action.sources` asked for

    # -- lifecycle ---------------------------------------------------------------------------

    def _event(self, type_: str, **fields: Any) -> Event:
        event = {"type": type_, "sequence_number": self._seq, **fields}
        self._seq += 1
        return event

    def _snapshot(self) -> Event:
        return {**self.response, "output": list(self.response["output"])}

    def start(self) -> list[Event]:
        """`response.created` and `response.in_progress` the first time, then nothing (every
        other method starts the stream itself when it has not started yet)."""
        if self.started:
            return []
        self.started = True
        return [
            self._event("response.created", response=self._snapshot()),
            self._event("response.in_progress", response=self._snapshot()),
        ]

    def keepalive(self) -> list[Event]:
        """A keepalive event, numbered in the response's sequence (as OpenAI numbers its own)."""
        events = self.start()
        events.append(self._event(KEEPALIVE_EVENT))
        return events

    def complete(self, usage: Event) -> list[Event]:
        events = self.start() + self._close()
        self.response.update(status="completed", completed_at=int(time.time()), usage=usage)
        events.append(self._event("response.completed", response=self.response))
        return events

    def incomplete(self, usage: Event, reason: str) -> list[Event]:
        """The model stopped early (e.g. at `max_output_tokens`): the open item is incomplete."""
        events = self.start() + self._close(status="incomplete")
        self.response.update(
            status="incomplete", incomplete_details={"reason": reason}, usage=usage
        )
        events.append(self._event("response.incomplete", response=self.response))
        return events

    def fail(self, code: str, message: str) -> list[Event]:
        events = self.start() + self._close(status="incomplete")
        self.response.update(status="failed", error={"code": code, "message": message})
        events.append(self._event("response.failed", response=self.response))
        return events

    # -- parts -------------------------------------------------------------------------------

    def add(self, parts: list[ResponsePart]) -> list[Event]:
        """The events for a batch of parts; a batch always starts the stream, even one whose
        parts show nothing (a usage part): the editor is answering."""
        events = self.start() if parts else []
        for part in parts:
            if isinstance(part, TextPart):
                self._text(part.value, events)
            elif isinstance(part, ToolCallPart):
                events.extend(self._close())
                self._tool_call(part, events)
            elif isinstance(part, ThinkingPart):
                self._thinking(part.value, events)
                if is_sealed(part):
                    self._seal(part, events)
            elif isinstance(part, DataPart):
                outcome = search_of(part)
                if outcome is None:
                    self._data(part)
                else:
                    events.extend(self._close())
                    self._web_search(outcome, events)
        return events

    def _web_search(self, outcome: SearchOutcome, events: list[Event]) -> None:
        """A search the bridge ran: a `web_search_call` item, its events as OpenAI sends them."""
        item = search_item(outcome, self.search_sources)
        status, item["status"] = item["status"], "in_progress"
        index = self._add_item(item, events)
        ref = {"item_id": item["id"], "output_index": index}
        for stage in ("in_progress", "searching", "completed"):
            events.append(self._event(f"response.web_search_call.{stage}", **ref))
        item["status"] = status
        events.append(self._event("response.output_item.done", output_index=index, item=item))
        self.search_results.extend(outcome.results)

    def _add_item(self, item: Event, events: list[Event]) -> int:
        index = len(self.response["output"])
        self.response["output"].append(item)
        events.append(
            self._event("response.output_item.added", output_index=index, item=dict(item))
        )
        return index

    def _open_or_new(
        self, kind: str, new_item: Callable[[], Event], events: list[Event]
    ) -> tuple[_OpenItem, bool]:
        """The open item of this kind, or a new one (closing the one before); True if new."""
        if self._open is not None and self._open.item["type"] == kind:
            return self._open, False
        events.extend(self._close())
        item = new_item()
        self._open = _OpenItem(item, self._add_item(item, events))
        return self._open, True

    def _text(self, value: str, events: list[Event]) -> None:
        if not value:
            return
        self.output_text.append(value)
        open_ = self._open
        if open_ is None or open_.item["type"] != "message":
            open_, _ = self._open_or_new("message", _new_message, events)
            ref = {"item_id": open_.item["id"], "output_index": open_.index, "content_index": 0}
            events.append(self._event("response.content_part.added", **ref, part=_text_part("")))
        open_.chunks.append(value)
        # Built in place, not through _event(**fields): this runs once per streamed delta.
        events.append(
            {
                "type": "response.output_text.delta",
                "sequence_number": self._seq,
                "item_id": open_.id,
                "output_index": open_.index,
                "content_index": 0,
                "delta": value,
                "logprobs": [],
            }
        )
        self._seq += 1

    def _thinking(self, value: str, events: list[Event]) -> None:
        if not value:
            return
        self.reasoning_text.append(value)
        open_, fresh = self._open_or_new("reasoning", _new_reasoning, events)
        open_.chunks.append(value)
        if self._summary:
            ref = {"item_id": open_.item["id"], "output_index": open_.index, "summary_index": 0}
            if fresh:
                part = {"type": "summary_text", "text": ""}
                events.append(
                    self._event("response.reasoning_summary_part.added", **ref, part=part)
                )
            events.append(self._event("response.reasoning_summary_text.delta", **ref, delta=value))

    def _seal(self, part: ThinkingPart, events: list[Event]) -> None:
        """The provider's encrypted thought ends its reasoning item: the item's
        `encrypted_content` (when the request's `include` asks) gives it back next turn."""
        if not self._encrypted:
            return
        open_, _ = self._open_or_new("reasoning", _new_reasoning, events)
        open_.item["encrypted_content"] = token_of(part)
        events.extend(self._close())

    def _tool_call(self, part: ToolCallPart, events: list[Event]) -> None:
        target = self._targets.get(part.name, ToolTarget("function", part.name))
        if target.kind == "tool_search":
            self._tool_search_call(part, events)
            return
        item: Event = {"call_id": part.callId or ids.call_id(), "name": target.name}
        if target.kind == "custom":
            raw = custom_tool_text(part.input)
            value = raw if raw is not None else _json(part.input)
            item = {"type": "custom_tool_call", "id": ids.custom_tool_call_id(), **item}
            field, event_prefix = "input", "response.custom_tool_call_input"
        else:
            value = _json(part.input)
            item = {"type": "function_call", "id": ids.function_call_id(), **item}
            if target.has_encrypted_params:
                # None of the arguments is encrypted: Codex then reads them as plain text.
                item["encrypted_function_args"] = []
            field, event_prefix = "arguments", "response.function_call_arguments"
        if target.namespace:
            item["namespace"] = target.namespace
        item.update({field: "", "status": "in_progress"})
        index = self._add_item(item, events)
        # The editor gives whole calls: one delta carries all of the input.
        ref = {"item_id": item["id"], "output_index": index}
        events.append(self._event(f"{event_prefix}.delta", **ref, delta=value))
        events.append(self._event(f"{event_prefix}.done", **ref, **{field: value}))
        item.update({field: value, "status": "completed"})
        self.output_text.append(value)
        events.append(self._event("response.output_item.done", output_index=index, item=item))

    def _tool_search_call(self, part: ToolCallPart, events: list[Event]) -> None:
        """A call of the client's own tool search (`tool_search.py`): the client runs it."""
        item: Event = {
            "type": "tool_search_call",
            "id": ids.tool_search_call_id(),
            "call_id": part.callId or ids.call_id(),
            "execution": "client",
            "arguments": part.input,
            "status": "in_progress",
        }
        index = self._add_item(item, events)
        item["status"] = "completed"
        self.output_text.append(_json(part.input))
        events.append(self._event("response.output_item.done", output_index=index, item=item))

    def _data(self, part: DataPart) -> None:
        counts = usage_of_part(part.mimeType, part.data)
        if counts is not None:  # else counted with the editor's tokenizer at the end
            self.usage = usage_object(*counts)

    # -- closing -----------------------------------------------------------------------------

    def _close(self, status: str = "completed") -> list[Event]:
        open_, self._open = self._open, None
        if open_ is None:
            return []
        item, index, text = open_.item, open_.index, "".join(open_.chunks)
        ref = {"item_id": item["id"], "output_index": index}
        events: list[Event] = []
        if item["type"] == "message":
            part = _text_part(text)
            for number, note in enumerate(url_citations(text, self.search_results)):
                part["annotations"].append(note)
                events.append(
                    self._event(
                        "response.output_text.annotation.added",
                        **ref,
                        content_index=0,
                        annotation_index=number,
                        annotation=note,
                    )
                )
            events.append(
                self._event(
                    "response.output_text.done", **ref, content_index=0, text=text, logprobs=[]
                )
            )
            events.append(
                self._event("response.content_part.done", **ref, content_index=0, part=part)
            )
            item.update(content=[part], status=status)
        else:
            summary = {"type": "summary_text", "text": text}
            if self._summary and text:
                events.append(
                    self._event(
                        "response.reasoning_summary_text.done", **ref, summary_index=0, text=text
                    )
                )
                events.append(
                    self._event(
                        "response.reasoning_summary_part.done", **ref, summary_index=0, part=summary
                    )
                )
                item["summary"] = [summary]
            item["content"] = [{"type": "reasoning_text", "text": text}]
        events.append(self._event("response.output_item.done", output_index=index, item=item))
        return events
