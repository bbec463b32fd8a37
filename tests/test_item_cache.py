"""The cache of emitted items behind `item_reference`: what it keeps, how it forgets, and the
resolution of references in a request body (bridge/responses/item_cache.py)."""

from __future__ import annotations

import gc
import json
import tracemalloc
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from pydantic import ValidationError

from bridge.core import ids
from bridge.core.backend import TextPart, ThinkingPart, ToolCallPart
from bridge.core.errors import ApiError
from bridge.responses.events import Event, ResponseEventBuilder
from bridge.responses.item_cache import ItemCache, is_reference, remembering, resolve_references
from bridge.responses.request import parse_create_request
from bridge.responses.response_object import new_response, usage_object
from bridge.responses.tools import ToolTarget
from bridge.settings import BridgeSettings


def message(text: str = "Hello there.", item_id: str | None = None) -> Event:
    return {
        "type": "message",
        "id": item_id or ids.message_id(),
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}],
    }


def cost_of_one(item: Event) -> int:
    """What one item costs in a cache (measured, so the tests need no copy of the formula)."""
    probe = ItemCache(1 << 30)
    probe.remember(item)
    return probe.used_bytes


# --------------------------------------------------------------------------- keeping


def test_an_item_comes_back_exactly_as_emitted_and_as_a_copy() -> None:
    cache = ItemCache(1 << 20)
    item = message('Ünïcode ✓ and "quotes"')
    cache.remember(item)

    first = cache.get(item["id"])
    assert first == item
    assert first is not item
    first["content"][0]["text"] = "changed by a caller"
    assert cache.get(item["id"]) == item


def test_tool_calls_are_kept_whole() -> None:
    cache = ItemCache(1 << 20)
    call = {
        "type": "function_call",
        "id": ids.function_call_id(),
        "call_id": "call_1",
        "name": "spawn_agent",
        "namespace": "multi_agent_v1",
        "arguments": '{"task":"x"}',
        "status": "completed",
    }
    custom = {
        "type": "custom_tool_call",
        "id": ids.custom_tool_call_id(),
        "call_id": "call_2",
        "name": "apply_patch",
        "input": "*** Begin Patch",
        "status": "completed",
    }
    cache.remember(call)
    cache.remember(custom)
    assert cache.get(call["id"]) == call
    assert cache.get(custom["id"]) == custom


def test_reasoning_keeps_only_its_marker() -> None:
    cache = ItemCache(1 << 20)
    thought = "a long secret chain of thought " * 100
    item_id = ids.reasoning_id()
    reasoning: Event = {
        "type": "reasoning",
        "id": item_id,
        "summary": [{"type": "summary_text", "text": thought}],
        "content": [{"type": "reasoning_text", "text": thought}],
    }
    cache.remember(reasoning)
    assert cache.get(item_id) == {"type": "reasoning", "id": item_id, "summary": []}
    assert cache.used_bytes < len(thought)


def test_items_without_an_id_are_not_kept() -> None:
    cache = ItemCache(1 << 20)
    cache.remember({"type": "message", "role": "assistant", "content": []})
    cache.remember({"type": "message", "id": "", "role": "assistant", "content": []})
    assert len(cache) == 0
    assert cache.used_bytes == 0


# --------------------------------------------------------------------------- forgetting


def test_least_recently_used_goes_first() -> None:
    a, b, c = message("a"), message("b"), message("c")
    cache = ItemCache(cost_of_one(a) * 2)
    cache.remember(a)
    cache.remember(b)
    assert cache.get(a["id"]) == a  # a is now the most recently used
    cache.remember(c)

    assert b["id"] not in cache
    assert cache.get(a["id"]) == a
    assert cache.get(c["id"]) == c
    assert cache.used_bytes <= cache.max_bytes


def test_the_byte_bound_holds_however_many_items_come() -> None:
    cache = ItemCache(50_000)
    for n in range(500):
        cache.remember(message("x" * (n % 300)))
        assert cache.used_bytes <= cache.max_bytes
    assert 0 < len(cache) < 500


def test_an_item_larger_than_the_cache_is_not_kept_and_pushes_nothing_out() -> None:
    small = message("small")
    cache = ItemCache(cost_of_one(small) * 3)
    cache.remember(small)
    cache.remember(message("x" * cache.max_bytes))
    assert len(cache) == 1
    assert small["id"] in cache


def test_size_zero_keeps_nothing() -> None:
    cache = ItemCache(0)
    cache.remember(message())
    assert len(cache) == 0


def test_remembering_an_id_again_replaces_it_without_counting_it_twice() -> None:
    item = message("first")
    cache = ItemCache(1 << 20)
    cache.remember(item)
    again = {**item, "status": "incomplete"}
    cache.remember(again)
    assert len(cache) == 1
    assert cache.used_bytes == cost_of_one(again)
    assert cache.get(item["id"]) == again


@pytest.mark.parametrize("text_size", [0, 1_000])
def test_the_byte_count_is_an_upper_bound_of_the_memory_used(text_size: int) -> None:
    # Items arrive as fresh objects (decoded here, as from the event stream), ids included.
    encoded = [json.dumps(message("x" * text_size)) for _ in range(2_000)]
    cache = ItemCache(1 << 30)
    gc.collect()
    tracemalloc.start()
    try:
        for text in encoded:
            cache.remember(json.loads(text))
        gc.collect()
        used = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert used <= cache.used_bytes
    assert used >= cache.used_bytes * 0.7  # and not a wild overestimate


# --------------------------------------------------------------------------- resolving


def test_references_are_replaced_in_place() -> None:
    cache = ItemCache(1 << 20)
    answer, reasoning = message("Hi!"), {"type": "reasoning", "id": ids.reasoning_id()}
    cache.remember(answer)
    cache.remember(reasoning)
    body = {
        "model": "sim-echo",
        "input": [
            {"role": "user", "content": "Hello"},
            {"type": "item_reference", "id": reasoning["id"]},
            {"id": answer["id"]},  # `type` is optional in a reference
            {"role": "user", "content": "And now?"},
        ],
    }
    resolved = resolve_references(body, cache)

    assert resolved["input"] == [
        body["input"][0],
        {"type": "reasoning", "id": reasoning["id"], "summary": []},
        answer,
        body["input"][3],
    ]
    assert body["input"][2] == {"id": answer["id"]}  # the client's body is not changed
    parsed = parse_create_request(resolved)
    assert isinstance(parsed.input, list)
    assert [item.type for item in parsed.input] == ["message", "reasoning", "message", "message"]


def test_a_body_without_references_is_returned_as_it_is() -> None:
    body = {"model": "sim-echo", "input": [{"role": "user", "content": "hi"}, 3]}
    assert resolve_references(body, ItemCache(1 << 20)) is body
    assert resolve_references("not an object", ItemCache(1 << 20)) == "not an object"


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ({"type": "item_reference", "id": "msg_1"}, True),
        ({"type": None, "id": "msg_1"}, True),
        ({"id": "msg_1"}, True),
        ({"role": "assistant", "id": "msg_1", "content": "x"}, False),
        ({"type": "message", "id": "msg_1", "role": "user", "content": "x"}, False),
        ({"type": "reasoning", "id": "rs_1"}, False),
        ("msg_1", False),
    ],
)
def test_what_counts_as_a_reference(item: Any, expected: bool) -> None:
    assert is_reference(item) is expected


def test_an_unknown_id_is_a_400_that_says_how_to_fix_it() -> None:
    body = {
        "model": "sim-echo",
        "input": [{"role": "user", "content": "hi"}, {"type": "item_reference", "id": "msg_x"}],
    }
    with pytest.raises(ApiError) as raised:
        resolve_references(body, ItemCache(1 << 20))
    error = raised.value
    assert (error.status, error.code, error.param) == (400, "item_not_found", "input[1].id")
    assert "'msg_x' not found" in error.message
    assert "providerOptions.openai.store" in error.message
    assert "`false`" in error.message


@pytest.mark.parametrize("bad_id", [None, "", 42, ["msg_1"]])
def test_a_reference_without_a_usable_id_is_a_400(bad_id: Any) -> None:
    body = {"model": "sim-echo", "input": [{"type": "item_reference", "id": bad_id}]}
    with pytest.raises(ApiError) as raised:
        resolve_references(body, ItemCache(1 << 20))
    assert (raised.value.status, raised.value.code) == (400, "invalid_value")
    assert raised.value.param == "input[0].id"


@pytest.mark.parametrize("param", ["previous_response_id", "conversation"])
def test_state_the_bridge_does_not_keep_is_reported_before_references(param: str) -> None:
    body = {"model": "sim-echo", param: "x", "input": [{"type": "item_reference", "id": "m"}]}
    assert resolve_references(body, ItemCache(1 << 20)) is body
    with pytest.raises(ApiError) as raised:
        parse_create_request(body)
    assert raised.value.param == param


# --------------------------------------------------------------------------- remembering


async def _events(cancelled: list[bool]) -> AsyncGenerator[list[Event], None]:
    """A real response's event batches: reasoning, text, a function and a custom tool call."""
    request = parse_create_request({"model": "sim-echo", "input": "hi"})
    targets = {"apply_patch": ToolTarget("custom", "apply_patch")}
    builder = ResponseEventBuilder(
        new_response(request, ids.response_id(), [], "auto"), targets, True
    )
    try:
        yield builder.start()
        yield builder.add([ThinkingPart(value="Thinking it over.")])
        yield builder.add([TextPart(value="Let me "), TextPart(value="look.")])
        yield builder.add([ToolCallPart(callId="c1", name="get_weather", input={"city": "P"})])
        yield builder.add([ToolCallPart(callId="c2", name="apply_patch", input={"input": "p"})])
        yield builder.complete(usage_object(1, 2))
    finally:
        cancelled.append(True)


async def test_every_finished_output_item_is_kept_as_the_client_received_it() -> None:
    cache = ItemCache(1 << 20)
    final: Event = {}
    async for batch in remembering(_events([]), cache):
        for event in batch:
            if event["type"] == "response.completed":
                final = event["response"]

    output = final["output"]
    assert [item["type"] for item in output] == [
        "reasoning",
        "message",
        "function_call",
        "custom_tool_call",
    ]
    assert len(cache) == 4
    assert cache.get(output[0]["id"]) == {"type": "reasoning", "id": output[0]["id"], "summary": []}
    for item in output[1:]:
        assert cache.get(item["id"]) == item


async def test_closing_early_closes_the_response_events_too() -> None:
    closed: list[bool] = []
    events = remembering(_events(closed), ItemCache(1 << 20))
    await anext(events)
    await events.aclose()
    assert closed == [True]


# --------------------------------------------------------------------------- settings


def test_the_size_is_a_limit_with_a_default_and_a_serve_flag() -> None:
    from bridge.cli import _parser, _security_options

    assert BridgeSettings().limits.itemCacheBytes == 16 * 1024 * 1024
    args = _parser().parse_args(["serve", "--item-cache-bytes", "4096"])
    assert BridgeSettings.from_options(_security_options(args)).limits.itemCacheBytes == 4096
    with pytest.raises(ValidationError, match="itemCacheBytes"):
        BridgeSettings.from_options({"limits": {"itemCacheBytes": -1}})
