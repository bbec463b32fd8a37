"""Validate Response objects and streaming events against the Open Responses spec.

Test helper (not a test module). The schemas come from the Open Responses OpenAPI document
(2026-04-24) copied into ``tests/fixtures/openresponses/openapi.json`` (source and licence: the
README beside it). OpenAPI 3.1 schemas are JSON Schema 2020-12, so they are checked with
``Draft202012Validator``; a ``referencing`` registry holds the whole OpenAPI document so that
``#/components/schemas/...`` refs resolve. Validators are built once and cached.

Public functions:

* ``validate_response(obj)``: one ResponseResource (the non-streaming body).
* ``validate_event(event)``: one streaming event, checked against the schema its ``type`` names.
* ``validate_stream(events)``: every event plus the cross-event rules the spec's schemas cannot
  express (sequence numbers, lifecycle ids, delta/done agreement, item pairing, final output).
  Returns the terminal event's response. ``keepalive`` events (not in the spec: the bridge's
  and OpenAI's ``{"type": "keepalive", "sequence_number": N}`` while the model is silent) take
  their place in the sequence and are otherwise skipped.
* ``parse_sse(body)``: split an SSE body into event dicts, checking the framing we promise.

All failures raise ``AssertionError`` naming the JSON path and the jsonschema message.

Deliberate extensions (tolerated here, not in the spec). Codex uses OpenAI Responses API types that
Open Responses does not (yet) include, and the bridge emits them for Codex:

* output items ``{"type": "custom_tool_call", "id", "call_id", "name", "input", "status"}`` (Codex's
  freeform tools such as ``apply_patch``), in ``response.output`` and in
  ``response.output_item.added``/``.done``. They are checked against a small local schema; the
  rest of the object is still checked against the spec.
* ``function_call`` items with an extra ``namespace`` string (tools nested in a namespace tool).
  Extra keys are legal in the spec anyway; we only insist that it is a string.
* output items ``{"type": "web_search_call", "id", "status", "action"}`` and the events
  ``response.web_search_call.in_progress``/``.searching``/``.completed`` (the hosted web search
  the bridge runs, issue 44), checked against local schemas from the openai SDK's types.
* events ``response.custom_tool_call_input.delta`` (``item_id``, ``output_index``, ``delta``)
  and ``response.custom_tool_call_input.done`` (``item_id``, ``output_index``, ``input``), checked
  against local schemas.

Spec quirk worked around: ``JsonSchemaResponseFormat.schema`` is typed null-only (``anyOf:
[{"type": "null"}]``), a spec bug; echoing the client's real JSON schema in ``text.format`` (as
OpenAI does) would fail. When a response's ``text.format`` is ``json_schema`` we validate it with an
object/boolean ``schema`` replaced by ``null``; every other field of the format is still checked.
Note that the Open Responses compliance suite itself does not make this exception.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, NoReturn

from fixture_files import OPENAPI_SPEC
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry
from referencing.jsonschema import DRAFT202012
from spec_web_search import WEB_SEARCH_DEFS, WEB_SEARCH_EVENTS

__all__ = [
    "parse_sse",
    "spec_path",
    "validate_compaction",
    "validate_event",
    "validate_response",
    "validate_stream",
    "validate_websocket_create",
    "validate_websocket_error",
]

SPEC_URI = "urn:openresponses:openapi"
EXT_URI = "urn:maestro-bridge:spec-extensions"

TERMINAL_EVENTS = ("response.completed", "response.failed", "response.incomplete")
KEEPALIVE = "keepalive"
LIFECYCLE_EVENTS = ("response.created", "response.queued", "response.in_progress", *TERMINAL_EVENTS)

_MAX_ERRORS = 5
_MAX_MESSAGE = 300

# Local schemas for the OpenAI Responses types the bridge emits beyond the Open Responses union.
_STRING = {"type": "string"}
_INTEGER = {"type": "integer"}
_EXTENSION_DEFS: dict[str, Any] = {
    "CustomToolCall": {
        "type": "object",
        "required": ["type", "id", "call_id", "name", "input", "status"],
        "properties": {
            "type": {"const": "custom_tool_call"},
            "id": _STRING,
            "call_id": _STRING,
            "name": _STRING,
            "input": _STRING,
            "status": {"enum": ["in_progress", "completed", "incomplete"]},
        },
    },
    "FunctionCallNamespace": {"properties": {"namespace": _STRING}},
    **WEB_SEARCH_DEFS,
    "CustomToolCallInputDeltaEvent": {
        "type": "object",
        "required": ["type", "sequence_number", "item_id", "output_index", "delta"],
        "properties": {
            "type": {"const": "response.custom_tool_call_input.delta"},
            "sequence_number": _INTEGER,
            "item_id": _STRING,
            "output_index": _INTEGER,
            "delta": _STRING,
        },
    },
    "CustomToolCallInputDoneEvent": {
        "type": "object",
        "required": ["type", "sequence_number", "item_id", "output_index", "input"],
        "properties": {
            "type": {"const": "response.custom_tool_call_input.done"},
            "sequence_number": _INTEGER,
            "item_id": _STRING,
            "output_index": _INTEGER,
            "input": _STRING,
        },
    },
}
_EXTENSION_EVENTS = {
    "response.custom_tool_call_input.delta": f"{EXT_URI}#/$defs/CustomToolCallInputDeltaEvent",
    "response.custom_tool_call_input.done": f"{EXT_URI}#/$defs/CustomToolCallInputDoneEvent",
    **{name: f"{EXT_URI}#/$defs/WebSearchCallEvent" for name in WEB_SEARCH_EVENTS},
}

# Incremental event families: prefix -> (sub-index field or None, field holding the full value on
# `.done`, where the value lives in the finished item: (list key or None, field)).
_DELTA_FAMILIES: dict[str, tuple[str | None, str, tuple[str | None, str]]] = {
    "response.output_text": ("content_index", "text", ("content", "text")),
    "response.refusal": ("content_index", "refusal", ("content", "refusal")),
    "response.reasoning": ("content_index", "text", ("content", "text")),
    "response.reasoning_summary_text": ("summary_index", "text", ("summary", "text")),
    "response.function_call_arguments": (None, "arguments", (None, "arguments")),
    "response.custom_tool_call_input": (None, "input", (None, "input")),
}
# Deltas of these families belong inside a content part opened by response.content_part.added.
_NEEDS_OPEN_PART = ("response.output_text", "response.refusal")


# --------------------------------------------------------------------------- spec loading


def spec_path() -> Path:
    return OPENAPI_SPEC


@lru_cache(maxsize=1)
def _spec() -> dict[str, Any]:
    spec: dict[str, Any] = json.loads(spec_path().read_text(encoding="utf-8"))
    return spec


@lru_cache(maxsize=1)
def _registry() -> Registry[Any]:
    spec = copy.deepcopy(_spec())
    schemas = spec["components"]["schemas"]

    # Widen the closed ItemField union with our extensions. Its branches are taken from the spec
    # itself (made absolute, since they now live in another resource), so the spec stays the
    # source of truth for every standard item type.
    branches: list[dict[str, Any]] = []
    for branch in schemas["ItemField"]["oneOf"]:
        ref = {"$ref": SPEC_URI + branch["$ref"]}
        if branch["$ref"].endswith("/FunctionCall"):
            branches.append({"allOf": [ref, {"$ref": "#/$defs/FunctionCallNamespace"}]})
        else:
            branches.append(ref)
    branches.append({"$ref": "#/$defs/CustomToolCall"})
    branches.append({"$ref": "#/$defs/WebSearchCall"})
    extensions = {"$defs": {**_EXTENSION_DEFS, "ItemField": {"oneOf": branches}}}
    schemas["ItemField"] = {"$ref": f"{EXT_URI}#/$defs/ItemField"}

    return Registry().with_resources(
        [
            (SPEC_URI, DRAFT202012.create_resource(spec)),
            (EXT_URI, DRAFT202012.create_resource(extensions)),
        ]
    )


@cache
def _validator(ref: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": ref}, registry=_registry())


@lru_cache(maxsize=1)
def _event_schema_refs() -> dict[str, str]:
    """Event `type` -> schema ref, from the spec's text/event-stream union plus our extensions."""
    spec = _spec()
    content = spec["paths"]["/responses"]["post"]["responses"]["200"]["content"]
    union = content["text/event-stream"]["schema"]["oneOf"]
    refs: dict[str, str] = {}
    for branch in union:
        name = branch["$ref"].rsplit("/", 1)[-1]
        for event_type in spec["components"]["schemas"][name]["properties"]["type"]["enum"]:
            refs[event_type] = SPEC_URI + branch["$ref"]
    refs.update(_EXTENSION_EVENTS)
    return refs


# --------------------------------------------------------------------------- error reporting


def _fail(message: str) -> NoReturn:
    raise AssertionError(message)


def _is_discriminator_miss(error: ValidationError) -> bool:
    """True when a union branch failed only because it is for another kind of object."""
    path = list(error.relative_path)
    if path == ["type"] and error.validator in ("enum", "const"):
        return True
    return not path and error.validator == "type"


def _listed(value: object) -> list[Any]:
    """A validator's value (typed loosely by jsonschema) as the list it is for enum/required."""
    return list(value) if isinstance(value, (list, tuple)) else []


def _union_mismatch(error: ValidationError, by_branch: dict[Any, list[ValidationError]]) -> str:
    """Message for an object whose `type` fits no union branch, listing the accepted types."""
    instance = error.instance
    if not isinstance(instance, dict):
        return str(error.message)
    if "type" not in instance and all(
        any(e.validator == "required" and "type" in _listed(e.validator_value) for e in errs)
        for errs in by_branch.values()
    ):
        return "'type' is missing, so the object matches no variant of the union"
    allowed: dict[Any, None] = {}
    for sub in error.context:
        if list(sub.relative_path) == ["type"] and sub.validator == "enum":
            allowed.update(dict.fromkeys(_listed(sub.validator_value)))
        elif list(sub.relative_path) == ["type"] and sub.validator == "const":
            allowed[sub.validator_value] = None
    if not allowed or "type" not in instance:
        return str(error.message)
    expected = ", ".join(map(str, allowed))
    return f"type {instance['type']!r} is not accepted here (expected one of: {expected})"


def _leaf_errors(error: ValidationError) -> list[tuple[ValidationError, str]]:
    """Descend oneOf/anyOf failures into the one branch whose discriminator matched.

    jsonschema reports a failed union as "not valid under any of the given schemas"; the useful
    message is the one from the branch the object was meant to be (same `type`, same JSON type).
    """
    if not error.context:
        return [(error, error.message)]
    by_branch: dict[Any, list[ValidationError]] = {}
    for sub in error.context:
        by_branch.setdefault(sub.relative_schema_path[0], []).append(sub)
    viable = [
        errs for errs in by_branch.values() if not any(_is_discriminator_miss(e) for e in errs)
    ]
    if len(viable) == 1:
        return [leaf for sub in viable[0] for leaf in _leaf_errors(sub)]
    return [(error, _union_mismatch(error, by_branch))]


def _short(text: str) -> str:
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 3] + "..."


def _check(instance: Any, ref: str, label: str) -> None:
    errors = sorted(_validator(ref).iter_errors(instance), key=lambda e: list(map(str, e.path)))
    if not errors:
        return
    leaves = [leaf for error in errors for leaf in _leaf_errors(error)]
    lines = [f"{leaf.json_path}: {_short(message)}" for leaf, message in leaves[:_MAX_ERRORS]]
    if len(leaves) > _MAX_ERRORS:
        lines.append(f"... and {len(leaves) - _MAX_ERRORS} more")
    schema = ref.rsplit("/", 1)[-1]
    _fail(f"{label} does not match {schema}:\n  " + "\n  ".join(lines))


# --------------------------------------------------------------------------- single objects


def _patch_json_schema_format(response: Any) -> Any:
    """Copy of `response` with text.format.schema nulled (see the module docstring)."""
    if not isinstance(response, dict):
        return response
    text = response.get("text")
    if not isinstance(text, dict):
        return response
    fmt = text.get("format")
    if not (isinstance(fmt, dict) and fmt.get("type") == "json_schema"):
        return response
    # Only a real schema (object/boolean) is nulled; anything else is left for the spec to judge.
    if not isinstance(fmt.get("schema"), (dict, bool)):
        return response
    return {**response, "text": {**text, "format": {**fmt, "schema": None}}}


def validate_response(obj: dict[str, Any]) -> None:
    """Assert that `obj` is a valid ResponseResource (with the documented extensions)."""
    if not isinstance(obj, dict):
        _fail(f"response must be a JSON object, got {type(obj).__name__}")
    _check(
        _patch_json_schema_format(obj),
        f"{SPEC_URI}#/components/schemas/ResponseResource",
        "response",
    )


def validate_websocket_error(event: dict[str, Any]) -> None:
    """Assert that `event` is a valid WebSocketErrorEvent (WebSocket mode's error envelope)."""
    _check(event, f"{SPEC_URI}#/components/schemas/WebSocketErrorEvent", "WebSocket error")


def validate_websocket_create(frame: dict[str, Any]) -> None:
    """Assert that a client `response.create` frame is a valid WebSocketResponseCreateEvent."""
    _check(frame, f"{SPEC_URI}#/components/schemas/WebSocketResponseCreateEvent", "create frame")


def validate_compaction(obj: dict[str, Any]) -> None:
    """Assert that `obj` is a valid CompactResource (the `/responses/compact` answer)."""
    _check(obj, f"{SPEC_URI}#/components/schemas/CompactResource", "compaction")


def validate_event(event: dict[str, Any]) -> None:
    """Assert that `event` is a valid streaming event of the kind its `type` names."""
    if not isinstance(event, dict):
        _fail(f"event must be a JSON object, got {type(event).__name__}")
    event_type = event.get("type")
    refs = _event_schema_refs()
    if not isinstance(event_type, str) or event_type not in refs:
        _fail(f"unknown streaming event type {event_type!r} (not in the Open Responses union)")
    if "response" in event:
        event = {**event, "response": _patch_json_schema_format(event["response"])}
    _check(event, refs[event_type], f"event {event_type!r}")


# --------------------------------------------------------------------------- streams


def _family(event_type: str) -> tuple[str, str] | None:
    """('response.output_text', 'delta') for 'response.output_text.delta', else None."""
    prefix, _, kind = event_type.rpartition(".")
    if kind in ("delta", "done") and prefix in _DELTA_FAMILIES:
        return prefix, kind
    return None


def _item_ids(items: Iterable[Any]) -> list[Any]:
    return [item.get("id") if isinstance(item, dict) else None for item in items]


def validate_stream(events: list[dict[str, Any]]) -> dict[str, Any]:
    """Validate a whole event stream and return the terminal event's response.

    Besides each event's schema, checks: sequence_number is 0, 1, 2, ...; the stream starts with
    response.created and every lifecycle event carries the same response id; output_item.added and
    .done pair up per output_index (indices handed out 0, 1, 2, ...) with the same item id/call_id;
    item-level events point at an open item; content parts open before text deltas; deltas
    concatenate to their .done value, which matches the finished item; the last event (and only
    that one) is terminal, its status agrees with it, and its output ids equal the output_item.done
    items in order. A response.failed stream may leave items unfinished (generation was cut off).
    """
    if not events:
        _fail("stream is empty")
    for i, event in enumerate(events):
        try:
            if isinstance(event, dict) and event.get("type") == KEEPALIVE:
                _check_keepalive(event)
            else:
                validate_event(event)
        except AssertionError as exc:
            raise AssertionError(f"event #{i}: {exc}") from None
        if event["sequence_number"] != i:
            _fail(
                f"event #{i} ({event['type']}): sequence_number is {event['sequence_number']},"
                f" expected {i}"
            )

    if events[0]["type"] != "response.created":
        _fail(f"first event must be response.created, got {events[0]['type']}")
    response_id = events[0]["response"]["id"]

    last = events[-1]
    if last["type"] not in TERMINAL_EVENTS:
        _fail(f"last event must be one of {', '.join(TERMINAL_EVENTS)}, got {last['type']}")

    open_items: dict[int, dict[str, Any]] = {}  # output_index -> item from output_item.added
    next_index = 0
    done_items: list[dict[str, Any]] = []
    open_parts: set[tuple[Any, Any]] = set()  # (item_id, content_index)
    closed_parts: set[tuple[Any, Any]] = set()
    deltas: dict[tuple[str, Any, Any], list[str]] = {}
    done_values: dict[tuple[str, Any, Any], str] = {}

    for i, event in enumerate(events):
        event_type = event["type"]
        where = f"event #{i} ({event_type})"
        if event_type == KEEPALIVE:
            continue

        if event_type in LIFECYCLE_EVENTS:
            if event_type in TERMINAL_EVENTS and i != len(events) - 1:
                _fail(f"{where}: terminal event before the end of the stream")
            if event["response"]["id"] != response_id:
                _fail(
                    f"{where}: response id {event['response']['id']!r} differs from"
                    f" response.created's {response_id!r}"
                )
            continue

        if event_type in ("response.output_item.added", "response.output_item.done"):
            index, item = event["output_index"], event["item"]
            if not isinstance(item, dict):
                _fail(f"{where}: item must be an object, got {item!r}")
            if event_type.endswith(".added"):
                if index != next_index:
                    _fail(f"{where}: output_index {index}, expected {next_index}")
                next_index += 1
                open_items[index] = item
                continue
            added = open_items.pop(index, None)
            if added is None:
                _fail(f"{where}: output_index {index} was not added or is already done")
            for name in ("id", "type", "call_id"):
                if added.get(name) != item.get(name):
                    _fail(
                        f"{where}: {name} {item.get(name)!r} differs from output_item.added's"
                        f" {added.get(name)!r}"
                    )
            done_items.append(item)
            continue

        # Every remaining item-level event must point at an item that is currently open.
        if "item_id" in event and "output_index" in event:
            item = open_items.get(event["output_index"])
            if item is None or item.get("id") != event["item_id"]:
                _fail(
                    f"{where}: item {event['item_id']!r} at output_index"
                    f" {event['output_index']} is not an open output item"
                )

        if event_type in ("response.content_part.added", "response.content_part.done"):
            part_key = (event["item_id"], event["content_index"])
            if event_type.endswith(".added"):
                if part_key in open_parts or part_key in closed_parts:
                    _fail(f"{where}: content part {part_key} added twice")
                open_parts.add(part_key)
            else:
                if part_key not in open_parts:
                    _fail(f"{where}: content part {part_key} was not added or is already done")
                open_parts.discard(part_key)
                closed_parts.add(part_key)
            continue

        family = _family(event_type)
        if family is None:
            continue
        prefix, kind = family
        sub_field, done_field, _ = _DELTA_FAMILIES[prefix]
        sub = event[sub_field] if sub_field else None
        key = (prefix, event["item_id"], sub)
        if prefix in _NEEDS_OPEN_PART and (event["item_id"], sub) not in open_parts:
            _fail(f"{where}: content part {(event['item_id'], sub)} is not open")
        if key in done_values:
            _fail(f"{where}: after {prefix}.done for item {event['item_id']!r}")
        if kind == "delta":
            deltas.setdefault(key, []).append(event["delta"])
            continue
        joined = "".join(deltas.get(key, []))
        if joined != event[done_field]:
            _fail(
                f"{where}: deltas concatenate to {_short(repr(joined))} but {done_field} is"
                f" {_short(repr(event[done_field]))} (item {event['item_id']!r}"
                + (f", {sub_field} {sub})" if sub_field else ")")
            )
        done_values[key] = event[done_field]

    response: dict[str, Any] = last["response"]
    expected_status = last["type"].removeprefix("response.")
    if response["status"] != expected_status:
        _fail(f"{last['type']} carries response status {response['status']!r}")

    if last["type"] != "response.failed":
        if open_items:
            _fail(f"output items never done: {sorted(open_items)} (output_index)")
        if open_parts:
            _fail(f"content parts never done: {sorted(open_parts, key=repr)}")
        unfinished = sorted(set(deltas) - set(done_values), key=repr)
        if unfinished:
            _fail(f"deltas without a .done event: {unfinished}")

    # The finished items must carry exactly what the .done events announced.
    items_by_id = {item.get("id"): item for item in done_items}
    for (prefix, item_id, sub), value in done_values.items():
        list_key, field = _DELTA_FAMILIES[prefix][2]
        target: Any = items_by_id.get(item_id)
        if target is None:
            continue  # already reported above unless the stream failed
        if list_key is not None:
            parts = target.get(list_key)
            target = parts[sub] if isinstance(parts, list) and 0 <= sub < len(parts) else None
        actual = target.get(field) if isinstance(target, dict) else None
        if actual != value:
            where = f"{list_key}[{sub}].{field}" if list_key else field
            _fail(
                f"output_item.done for {item_id!r}: {where} is {_short(repr(actual))} but"
                f" {prefix}.done said {_short(repr(value))}"
            )

    output_ids = _item_ids(response["output"])
    done_ids = _item_ids(done_items)
    if output_ids != done_ids:
        _fail(
            f"{last['type']}: response.output ids {output_ids} differ from the"
            f" output_item.done items {done_ids}"
        )
    for item, done_item in zip(response["output"], done_items, strict=True):
        if item.get("call_id") != done_item.get("call_id"):
            _fail(
                f"{last['type']}: call_id {item.get('call_id')!r} of {item.get('id')!r} differs"
                f" from output_item.done's {done_item.get('call_id')!r}"
            )
    return response


def _check_keepalive(event: dict[str, Any]) -> None:
    """Exactly ``{"type": "keepalive", "sequence_number": N}``: it carries nothing else."""
    if set(event) != {"type", "sequence_number"} or type(event["sequence_number"]) is not int:
        _fail(f"a keepalive event is {{type, sequence_number}} only, got {_short(repr(event))}")


# --------------------------------------------------------------------------- SSE framing


def parse_sse(body: str) -> list[dict[str, Any]]:
    """Parse an SSE body of ``event: <type>\\ndata: <json>\\n\\n`` frames into event dicts.

    ``: comment`` lines are skipped. Each frame needs exactly one ``event:`` and one
    one-line ``data:`` whose JSON ``type`` equals the event name. ``\\r`` is rejected: the Open
    Responses suite's parser never dispatches frames ended by ``\\r\\n``. A body that reaches
    its terminal event must end with ``data: [DONE]`` right after it (Open Responses: "The
    terminal event MUST be the literal string `[DONE]`"); ``[DONE]`` anywhere else is rejected.
    A body cut off before its terminal event (a test that stopped reading) needs none.
    """
    if "\r" in body:
        _fail("SSE body contains '\\r': frames must use '\\n' line endings only")
    events: list[dict[str, Any]] = []
    event_name: str | None = None
    data: str | None = None
    frame_line = 0
    seen_done = False

    lines = body.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the body's final newline, not an empty line
    for number, line in enumerate(lines, start=1):
        if line == "":
            if data is None:
                if event_name is not None:
                    _fail(f"SSE line {frame_line}: 'event: {event_name}' without a data line")
                continue  # a comment-only frame
            if seen_done:
                _fail(f"SSE line {frame_line}: frame after data: [DONE]")
            if data == "[DONE]":
                if event_name is not None:
                    _fail(f"SSE line {frame_line}: 'data: [DONE]' comes without an 'event:' line")
                if not events or events[-1].get("type") not in TERMINAL_EVENTS:
                    _fail(f"SSE line {frame_line}: 'data: [DONE]' before the terminal event")
                seen_done = True
            else:
                events.append(_decode_frame(event_name, data, frame_line))
            event_name = data = None
            continue
        if line.startswith(":"):
            continue
        if event_name is None and data is None:
            frame_line = number
        field, sep, value = line.partition(":")
        if not sep:
            _fail(f"SSE line {number}: not a 'field: value' line: {_short(repr(line))}")
        value = value.removeprefix(" ")
        if field == "event":
            if event_name is not None:
                _fail(f"SSE line {number}: second 'event:' line in one frame")
            event_name = value
        elif field == "data":
            if data is not None:
                _fail(f"SSE line {number}: second 'data:' line in a frame (JSON must be one line)")
            data = value
        elif field not in ("id", "retry"):
            _fail(f"SSE line {number}: unknown field {field!r}")
    if event_name is not None or data is not None:
        _fail(f"SSE line {frame_line}: last frame is not terminated by a blank line")
    if events and events[-1].get("type") in TERMINAL_EVENTS and not seen_done:
        _fail("SSE body: no 'data: [DONE]' after the terminal event")
    return events


def _decode_frame(event_name: str | None, data: str, line: int) -> dict[str, Any]:
    try:
        payload = json.loads(data)
    except json.JSONDecodeError as exc:
        raise AssertionError(f"SSE line {line}: data is not JSON ({exc}): {_short(data)}") from None
    if not isinstance(payload, dict):
        _fail(f"SSE line {line}: data must be a JSON object, got {_short(data)}")
    if event_name is None:
        _fail(f"SSE line {line}: frame has no 'event:' line (data type {payload.get('type')!r})")
    if payload.get("type") != event_name:
        _fail(f"SSE line {line}: 'event: {event_name}' but data type is {payload.get('type')!r}")
    return payload
