"""WebSocket mode's frames and what a connection keeps between turns.

Parsing a `response.create` frame, the error event that answers a bad one, the conversation a
connection keeps for `previous_response_id` (bounded by `limits.websocketKeptBytes`), and the
events of a `generate: false` warm-up. The connection itself is bridge/responses/websocket.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from bridge.core import ids, strict_json
from bridge.core.errors import ApiError
from bridge.core.strict_json import JsonInputError
from bridge.responses.events import Event, ResponseEventBuilder
from bridge.responses.response_object import new_response, usage_object
from bridge.responses.tools import plan_request_tools
from bridge.responses.wire import AnyRequest

CREATE_EVENT = "response.create"
# Fields of the frame that steer the transport, not the response.
_TRANSPORT_FIELDS = (
    "type",
    "generate",
    "previous_response_id",
    "stream",
    "stream_options",
    "background",
    "stream_id",
)
_CACHEABLE = ("completed", "incomplete")  # a response with usable output


# --------------------------------------------------------------------------- pure parts


@dataclass
class CreateFrame:
    """A `response.create` frame, read: the create body and the transport's own fields."""

    body: dict[str, Any]
    previous_response_id: str | None
    generate: bool


@dataclass
class CachedResponse:
    """The connection's most recent completed response, as input items for the next turn."""

    id: str
    items: list[Any]
    # `json_bytes` of `items`, added up turn by turn (bookkeeping: not part of the equality).
    size: int = field(default=0, compare=False)


def json_bytes(value: Any) -> int:
    """The size of `value` as compact JSON text (characters; base64 images are ASCII)."""
    return len(strict_json.dumps(value))


def conversation_too_large(size: int, limit: int) -> ApiError:
    """A continuation past what a connection keeps (`limits.websocketKeptBytes`)."""
    mib = 1024 * 1024
    return ApiError(
        400,
        f"This conversation is {size / mib:.1f} MiB of JSON, more than the {limit / mib:.1f} MiB "
        "a WebSocket connection keeps for `previous_response_id` (limits.websocketKeptBytes). "
        "Start again without `previous_response_id` (on this or a new connection), sending the "
        "full input, or compact the conversation (`/v1/responses/compact`) and continue from "
        "the compacted input.",
        param="previous_response_id",
        code="conversation_too_large",
    )


def frame_error(message: str, *, param: str | None = None) -> ApiError:
    """A frame the server cannot read at all (the spec's `invalid_request_error`)."""
    return ApiError(400, message, param=param, code="invalid_request_error")


def error_event(error: ApiError) -> Event:
    """The WebSocket error envelope (the spec's WebSocketErrorEvent; `code` is required).

    The HTTP answer's headers (a 429's `retry-after`) go along as `headers`, as OpenAI sends
    them and Codex reads them.
    """
    event: Event = {
        "type": "error",
        "status": error.status,
        "error": {
            "type": error.type,
            "code": error.code or error.type,
            "message": error.message,
            "param": error.param,
        },
    }
    if error.headers:
        event["headers"] = {name.lower(): value for name, value in error.headers.items()}
    return event


def parse_frame(text: str) -> CreateFrame:
    """A client text frame -> CreateFrame; raises ApiError (400) for anything else.

    Both shapes are accepted: flat (`{"type": "response.create", "model": ...}`, what the
    SDKs send) and nested (`{"type": "response.create", "response": {"model": ...}}`).
    """
    try:
        frame = strict_json.decode(text)
    except JsonInputError as exc:
        raise frame_error(exc.message.replace("request body", "message"), param=exc.param) from None
    except ValueError as exc:
        raise frame_error(f"The message is not valid JSON: {exc}.") from None
    except RecursionError:
        raise frame_error("The message is nested too deeply to be read.") from None
    if not isinstance(frame, dict):
        raise frame_error("The message must be a JSON object.")
    if frame.get("type") != CREATE_EVENT:
        raise frame_error(
            f"Unsupported message type {frame.get('type')!r}: send `{CREATE_EVENT}`.",
            param="type",
        )
    body = frame.get("response", frame)
    if not isinstance(body, dict):
        raise frame_error("`response` must be an object (the create body).", param="response")
    generate = body.get("generate", frame.get("generate", True))
    if not isinstance(generate, bool):
        raise frame_error("`generate` must be true or false.", param="generate")
    previous = body.get("previous_response_id")
    if previous is not None and not isinstance(previous, str):
        raise frame_error("`previous_response_id` must be a string.", param="previous_response_id")
    create = {key: value for key, value in body.items() if key not in _TRANSPORT_FIELDS}
    create.pop("response", None)
    return CreateFrame(create, previous or None, generate)


def as_items(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, str):
        return [{"type": "message", "role": "user", "content": value}]
    if isinstance(value, list):
        return list(value)
    raise frame_error("`input` must be a string or an array of input items.", param="input")


def conversation_input(
    cached: CachedResponse | None, previous_response_id: str | None, new_input: Any
) -> list[Any]:
    """The full input of a turn: the cached conversation when continued, then the new items."""
    if previous_response_id is None:
        return as_items(new_input)
    if cached is None or cached.id != previous_response_id:
        raise ApiError(
            400,
            f"Previous response with id '{previous_response_id}' not found. WebSocket mode "
            "keeps only the most recent completed response of the same connection; send "
            "the full conversation without `previous_response_id` to start again.",
            param="previous_response_id",
            code="previous_response_not_found",
        )
    return cached.items + as_items(new_input)


def cached_after(
    response: dict[str, Any], items: list[Any], size: int = 0
) -> CachedResponse | None:
    """What to keep after a turn: its conversation plus its output, if it produced one.

    `size` is that of `items`; the output's is added (its JSON text only: the history
    before is not encoded again, so keeping costs each turn only what the turn added).
    """
    if response.get("status") not in _CACHEABLE:
        return None
    output = list(response.get("output") or [])
    return CachedResponse(str(response["id"]), items + output, size + json_bytes(output))


def warmup_events(request: AnyRequest, previous_response_id: str | None) -> Iterable[list[Event]]:
    """`generate: false`: a response with no output and no model call, whose id can be chained.

    The same event builder as a generated response, so the lifecycle events are identical.
    """
    tools = plan_request_tools(request)
    response = new_response(request, ids.response_id(), tools.echo, tools.choice_echo)
    response["previous_response_id"] = previous_response_id
    builder = ResponseEventBuilder(response, tools.targets, reasoning_summary=False)
    return [builder.complete(usage_object(0, 0))]


# --------------------------------------------------------------------------- the connection
