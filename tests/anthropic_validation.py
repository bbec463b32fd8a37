"""Check Anthropic Messages answers against tests/schemas/anthropic_messages.json (a test helper).

The schema (JSON Schema 2020-12, one file with `$defs`) was written from the anthropic SDK's
types; see its `description`. Public functions, all raising AssertionError with the JSON path
and the reason:

* `validate_message(obj)`: the non-streaming answer of `POST /v1/messages`.
* `validate_event(event_name, data)`: one stream event; the SSE `event:` name must equal
  `data["type"]`.
* `validate_error(obj)`: the error envelope `{"type": "error", "error": {"type", "message"}}`.
* `validate_count_tokens(obj)`, `validate_model_list(obj)`: the other two endpoints.
* `check_stream(events)`: every event, and the order the API keeps (rules in `_StreamCheck`);
  returns the message the stream assembles (checked as a Message) or the error that ended it.
* `parse_sse(body)`: `(event name, data)` pairs from an SSE body.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, NoReturn

from jsonschema import FormatChecker
from schema_defs import SchemaDefs

SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "anthropic_messages.json"
EVENT_DEFS = {
    "message_start": "MessageStartEvent",
    "content_block_start": "ContentBlockStartEvent",
    "content_block_delta": "ContentBlockDeltaEvent",
    "content_block_stop": "ContentBlockStopEvent",
    "message_delta": "MessageDeltaEvent",
    "message_stop": "MessageStopEvent",
    "ping": "PingEvent",
    "error": "Error",
}
# The deltas each kind of block may receive (redacted_thinking arrives whole, with none).
DELTAS_OF_BLOCK = {
    "text": {"text_delta", "citations_delta"},
    "tool_use": {"input_json_delta"},
    "thinking": {"thinking_delta", "signature_delta"},
    "redacted_thinking": set(),
    # The web search the bridge runs: its call streams its input, its result comes whole.
    "server_tool_use": {"input_json_delta"},
    "web_search_tool_result": set(),
}
# jsonschema checks `date-time` only with an optional package installed: checked here instead.
FORMATS = FormatChecker(formats=())
RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt]\d{2}:[0-5]\d:[0-5]\d(\.\d+)?([Zz]|[+-]\d{2}:\d{2})"
)


@FORMATS.checks("date-time", raises=ValueError)
def is_date_time(value: object) -> bool:
    """RFC 3339 (what the API's `created_at` is): a real date, a time, and a time zone."""
    if not isinstance(value, str):
        return True  # `format` says nothing about other types
    match = RFC3339.fullmatch(value)
    if match is None:
        return False
    date(int(match[1]), int(match[2]), int(match[3]))  # ValueError for 2026-13-01
    return True


def _fail(message: str) -> NoReturn:
    raise AssertionError(message)


DEFS = SchemaDefs(SCHEMA_PATH, FORMATS)
check = DEFS.check


def schema() -> dict[str, Any]:
    return DEFS.schema


def validate_message(obj: Any) -> None:
    check(obj, "Message", "message")


def validate_error(obj: Any) -> None:
    check(obj, "Error", "error body")


def validate_count_tokens(obj: Any) -> None:
    check(obj, "CountTokensResponse", "count_tokens answer")


def validate_model_list(obj: Any) -> None:
    check(obj, "ModelList", "model list")


def validate_event(event_name: str, data: Any) -> None:
    if not isinstance(data, dict):
        _fail(f"event {event_name!r}: data is not a JSON object: {data!r}")
    if data.get("type") != event_name:
        _fail(
            f"event {event_name!r}: the SSE event name differs from data.type {data.get('type')!r}"
        )
    if event_name not in EVENT_DEFS:
        _fail(f"event {event_name!r}: not a Messages stream event")
    check(data, EVENT_DEFS[event_name], f"event {event_name!r}")


@dataclass
class StreamResult:
    """What a valid stream delivered: the assembled message, or the error that ended it."""

    message: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    events: list[str] = field(default_factory=list)  # event names, in order


class _StreamCheck:
    """The order rules: `message_start` first (or a lone `error`); then the blocks, each
    `content_block_start`, deltas of its own kind, `content_block_stop`, with indexes 0, 1, ...
    and one block open at a time; then one `message_delta` and `message_stop`, the last event.
    `ping` may come anywhere after message_start; an `error` ends the stream."""

    def __init__(self) -> None:
        self.result = StreamResult()
        self.message: dict[str, Any] | None = None
        self.blocks: list[dict[str, Any]] = []
        self.json_parts: dict[int, list[str]] = {}
        self.open: int | None = None
        self.delta_seen = False
        self.finished = False

    def where(self) -> str:
        return f"after {self.result.events[:-1] or 'nothing'}"

    def take(self, name: str, data: dict[str, Any]) -> None:
        if self.finished:
            _fail(f"event {name!r} after the stream ended ({self.where()})")
        self.result.events.append(name)
        if name == "error":
            self.result.error = data
            self.finished = True
        elif self.message is None:
            if name != "message_start":
                _fail(f"the first event must be message_start, not {name!r}")
            self.message = dict(data["message"])
        elif name == "ping":
            pass
        elif name == "message_start":
            _fail(f"a second message_start ({self.where()})")
        elif self.delta_seen and name != "message_stop":
            _fail(f"{name!r} after message_delta: only message_stop may follow it")
        elif name == "content_block_start":
            self.start_block(data)
        elif name == "content_block_delta":
            self.delta(data)
        elif name == "content_block_stop":
            if data["index"] != self.open:
                _fail(f"content_block_stop for index {data['index']}, open: {self.open}")
            self.open = None
        elif name == "message_delta":
            self.message_delta(data)
        elif name == "message_stop":
            if not self.delta_seen:
                _fail(f"message_stop before message_delta ({self.where()})")
            self.finished = True

    def start_block(self, data: dict[str, Any]) -> None:
        if self.open is not None:
            _fail(f"content_block_start while block {self.open} is still open")
        if data["index"] != len(self.blocks):
            _fail(f"content_block_start index {data['index']}, expected {len(self.blocks)}")
        self.open = data["index"]
        self.blocks.append(dict(data["content_block"]))

    def delta(self, data: dict[str, Any]) -> None:
        if data["index"] != self.open:
            _fail(f"content_block_delta for index {data['index']}, open: {self.open}")
        block, delta = self.blocks[data["index"]], data["delta"]
        if delta["type"] not in DELTAS_OF_BLOCK[block["type"]]:
            _fail(f"{delta['type']} in a {block['type']} block (index {data['index']})")
        if delta["type"] == "text_delta":
            block["text"] += delta["text"]
        elif delta["type"] == "thinking_delta":
            block["thinking"] += delta["thinking"]
        elif delta["type"] == "signature_delta":
            block["signature"] = delta["signature"]
        elif delta["type"] == "citations_delta":
            block["citations"] = [*(block.get("citations") or []), delta["citation"]]
        elif delta["type"] == "input_json_delta":
            self.json_parts.setdefault(data["index"], []).append(delta["partial_json"])

    def message_delta(self, data: dict[str, Any]) -> None:
        if self.open is not None:
            _fail(f"message_delta while block {self.open} is still open")
        assert self.message is not None
        self.delta_seen = True
        self.message["stop_reason"] = data["delta"]["stop_reason"]
        self.message["stop_sequence"] = data["delta"].get("stop_sequence")
        usage = dict(self.message["usage"])
        usage.update({key: value for key, value in data["usage"].items() if value is not None})
        self.message["usage"] = usage

    def assemble(self) -> StreamResult:
        if not self.finished:
            _fail(f"the stream ended without message_stop or error: {self.result.events}")
        if self.result.error is not None:
            return self.result
        assert self.message is not None
        for index, parts in self.json_parts.items():
            text = "".join(parts)
            try:
                tool_input = json.loads(text) if text else {}
            except json.JSONDecodeError as exc:
                _fail(f"block {index}: the input_json_delta parts are not JSON ({exc}): {text!r}")
            if not isinstance(tool_input, dict):
                _fail(f"block {index}: the tool input is not a JSON object: {text!r}")
            self.blocks[index]["input"] = tool_input
        self.message["content"] = self.blocks
        if self.message["stop_reason"] == "tool_use" and not any(
            block["type"] == "tool_use" for block in self.blocks
        ):
            _fail("stop_reason tool_use without a tool_use block")
        check(self.message, "Message", "the message the stream assembles")
        self.result.message = self.message
        return self.result


def check_stream(events: Iterable[tuple[str, Any]]) -> StreamResult:
    """Every `(event name, data)` pair against the schema and the order rules."""
    checker = _StreamCheck()
    for number, (name, data) in enumerate(events):
        try:
            validate_event(name, data)
        except AssertionError as exc:
            _fail(f"event #{number}: {exc}")
        checker.take(name, data)
    return checker.assemble()


def parse_sse(body: bytes | str) -> list[tuple[str, Any]]:
    """`(event, data)` per SSE frame (frames end with a blank line; `:` lines are comments).
    Every frame must carry one `event:` and `data:` that is JSON, as the API's do."""
    text = body.decode("utf-8") if isinstance(body, bytes) else body
    frames: list[tuple[str, Any]] = []
    for raw in text.replace("\r\n", "\n").split("\n\n"):
        lines = [line for line in raw.split("\n") if line and not line.startswith(":")]
        if not lines:
            continue
        fields: dict[str, list[str]] = {}
        for line in lines:
            name, _, value = line.partition(":")
            fields.setdefault(name, []).append(value.removeprefix(" "))
        if len(fields.get("event", [])) != 1 or "data" not in fields:
            _fail(f"an SSE frame without exactly one event: and a data: line: {raw!r}")
        try:
            data = json.loads("\n".join(fields["data"]))
        except json.JSONDecodeError as exc:
            _fail(f"an SSE frame whose data is not JSON ({exc}): {raw!r}")
        frames.append((fields["event"][0], data))
    return frames
