"""A create body, read once: the fast path when it is certainly fine, else today's exact path.

Fast: msgspec decodes the bytes into the Structs of wire.py in one pass. They refuse keys
they do not declare, so nothing goes unread; a body with other keys is decoded to dicts, those
keys dropped (known_keys.py), and converted. Then the checks that today's path runs on the
dict (request_limits' shape limits, request.py's state and `model` / `input` rules, compaction
summaries that must decode) run on the Structs. Anything that is not certain (a check that
would fail, an item without `type` that is no message, an `item_reference`, a body that is not
UTF-8 JSON of these types) takes the exact path: today's `read_json` + `check_request_shape` +
`resolve_references` + pydantic validation, which answers exactly today's 400s or, accepting,
gives the same data as Structs (`from_validated`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, cast

import msgspec
from aiohttp import web

from bridge.core import json_depth
from bridge.core.limits import Limits
from bridge.core.request_limits import check_request_shape
from bridge.core.typed_body import TypedBody, within_depth
from bridge.http.json_body import read_json
from bridge.responses.compaction_codec import CompactionDecodeError, decode_summary
from bridge.responses.item_cache import ItemCache, resolve_references
from bridge.responses.known_keys import TooDeep, known_only
from bridge.responses.request import parse_create_request
from bridge.responses.wire import (
    TYPED_DEPTH,
    AdditionalToolsItem,
    CompactionItem,
    CreateBody,
    InputItem,
    MessageItem,
    ToolSearchCallItem,
    ToolSearchOutputItem,
    TypelessMessage,
    from_validated,
)

TYPED = TypedBody(CreateBody)
_ANY = TypedBody(object)  # any JSON, as dicts and lists
# Which path each body took ("fast", "typeless", "stripped", "exact"): the tests read it.
PATHS: Counter[str] = Counter()


class _RawItemsBody(CreateBody, kw_only=True):
    """The body with its items left undecoded, for a history that holds typeless messages."""

    input: str | list[msgspec.Raw] | None = None  # type: ignore[assignment]


_RAW_ITEMS = TypedBody(_RawItemsBody)
_ITEM = msgspec.json.Decoder(InputItem)
_TYPELESS = msgspec.json.Decoder(TypelessMessage)
# Item kinds with a check beyond their type: free-form fields, tools that count, a summary.
_CHECKED = frozenset(
    (AdditionalToolsItem, ToolSearchCallItem, ToolSearchOutputItem, CompactionItem)
)
_FREE_FORM_TOP = ("tool_choice", "text", "metadata")


def _typeless_items(items: list[Any], read: Any, typeless: Any) -> list[InputItem]:
    """Items one by one: each as an item Struct, else as a message without `type`."""
    found: list[InputItem] = []
    append = found.append
    for one in items:
        try:
            append(read(one))
        except msgspec.ValidationError:
            message = typeless(one)
            append(MessageItem(role=message.role, content=message.content))
    return found


def _with_typeless(raw: bytes, limits: Limits) -> CreateBody | None:
    """The body whose items include `{"role", "content"}` messages without a `type`."""
    body = _RAW_ITEMS.decode(raw, limits)
    if body is None or not isinstance(body.input, list):
        return None
    try:
        items = _typeless_items(body.input, _ITEM.decode, _TYPELESS.decode)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
        return None
    fields = {name: getattr(body, name) for name in CreateBody.__struct_fields__}
    fields["input"] = items
    return CreateBody(**fields)


def _known_keys_only(body: Any, limits: Limits) -> CreateBody | None:
    """A decoded body with keys no Struct declares, as Structs without them; None when it is
    not certainly of these types or a dropped value nests too deep."""
    try:
        kept = known_only(body, CreateBody, TypelessMessage, limits.maxJsonDepth)
    except TooDeep:
        return None
    return _converted(kept) if type(kept) is dict else None


def _read_item(item: Any) -> InputItem:
    return cast("InputItem", msgspec.convert(item, InputItem))


def _read_typeless(item: Any) -> TypelessMessage:
    return msgspec.convert(item, TypelessMessage)


def _converted(body: dict[str, Any]) -> CreateBody | None:
    """A decoded body (dicts and lists) as Structs, typeless messages included; None when
    it is not certainly of these types."""
    try:
        return msgspec.convert(body, CreateBody)
    except msgspec.ValidationError:
        pass
    items = body.get("input")
    if not isinstance(items, list):
        return None
    try:
        read = msgspec.convert({**body, "input": None}, CreateBody)
        read.input = _typeless_items(items, _read_item, _read_typeless)
    except msgspec.ValidationError:
        return None
    return read


def _items_certain(items: list[InputItem], limits: Limits) -> tuple[bool, int]:
    """(every checked item passes today's checks, tools its `additional_tools` offer)."""
    offered = 0
    for item in items:
        kind = type(item)
        if kind not in _CHECKED:
            continue
        if kind is CompactionItem:
            try:
                decode_summary(item.encrypted_content)  # type: ignore[union-attr]
            except CompactionDecodeError:
                return False, offered
        elif kind is ToolSearchCallItem:
            if not within_depth(item.arguments, limits, 3):  # type: ignore[union-attr]
                return False, offered
        else:
            tools: list[dict[str, Any]] = item.tools  # type: ignore[union-attr]
            # input (1) > item (2) > tools (3): as deep as check_request_shape counts it.
            if not within_depth(tools, limits, 3) or not _one_tool_each(tools):
                return False, offered
            if kind is AdditionalToolsItem:
                offered += len(tools)
    return True, offered


def _one_tool_each(tools: list[dict[str, Any]]) -> bool:
    """No entry declares several tools (request_limits counts Gemini's declarations)."""
    return not any("functionDeclarations" in t or "function_declarations" in t for t in tools)


def certain(body: CreateBody, limits: Limits) -> bool:
    """True when today's path would accept this body as it is (then it is ready: an absent
    `input` with instructions becomes `[]`, as there)."""
    if not body.model or body.previous_response_id is not None or body.conversation is not None:
        return False
    if body.background is True:
        return False
    offered = 0
    items = body.input
    if items is None:
        if not body.instructions:
            return False
    elif isinstance(items, list):
        if len(items) > limits.maxInputItems:
            return False
        if not _CHECKED.isdisjoint(map(type, items)):
            ok, offered = _items_certain(items, limits)
            if not ok:
                return False
    tools = body.tools
    if tools is not None:
        if not within_depth(tools, limits, 1) or not _one_tool_each(tools):
            return False
        offered += len(tools)
        if len(tools) > limits.maxTools:
            return False
    if offered > limits.maxTools:
        return False
    for name in _FREE_FORM_TOP:
        value = getattr(body, name)
        if isinstance(value, dict) and not within_depth(value, limits, 1):
            return False
    if items is None:
        body.input = []  # instructions alone are a whole request
    body.background = None  # `false`: nothing to keep (the exact path's models have no field)
    return True


def fast_body(raw: bytes, limits: Limits) -> CreateBody | None:
    """The body as Structs when the fast path can take it, else None."""
    body = TYPED.decode(raw, limits)
    path = "fast"
    if body is None:
        body = _with_typeless(raw, limits)
        path = "typeless"
    if body is None:
        decoded = _ANY.decode(raw, limits)
        body = None if decoded is None else _known_keys_only(decoded, limits)
        path = "stripped"
    if body is None or not certain(body, limits):
        return None
    # The declared types nest up to TYPED_DEPTH: only a lower limit needs the bytes counted.
    if limits.maxJsonDepth < TYPED_DEPTH and not json_depth.within_depth(raw, limits.maxJsonDepth):
        return None
    PATHS[path] += 1
    return body


def create_request(body: dict[str, Any], limits: Limits) -> CreateBody:
    """A create body already decoded (a WebSocket turn's, with its kept history) as Structs:
    converted when certain, else validated by the exact path (`parse_create_request`)."""
    read = _converted(body)
    path = "fast"
    if read is None:
        read = _known_keys_only(body, limits)
        path = "stripped"
    if read is not None and certain(read, limits):
        PATHS[path] += 1
        return read
    PATHS["exact"] += 1
    return from_validated(parse_create_request(body))


def exact_body(body: Any, limits: Limits, cache: ItemCache) -> CreateBody:
    """Today's path over the decoded JSON: its 400s, or its result as Structs."""
    check_request_shape(body, limits)
    parsed = parse_create_request(resolve_references(body, cache))
    return from_validated(parsed)


async def read_create_body(request: web.Request, limits: Limits, cache: ItemCache) -> CreateBody:
    """`POST /v1/responses`' body, by the fast path when it can take it."""
    body = fast_body(await request.read(), limits)
    if body is not None:
        return body
    PATHS["exact"] += 1
    return exact_body(await read_json(request), limits, cache)
