"""The Responses fast path (bridge/responses/body.py): it reads exactly what the exact path
reads, converts it to exactly the messages the old conversion made, and leaves every body it
is not certain of to the exact path, which answers today's 400s.

The old conversion is kept in tests/responses_legacy_convert.py (over the pydantic models);
the fast path's Structs must equal the exact path's result turned into Structs, and both
conversions must give equal messages (or raise the same error).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from responses_bodies import Body, bench_bodies, client_bodies, crafted, every_body
from responses_legacy_convert import legacy_editor_messages, legacy_to_chat_messages

from bridge.core import strict_json
from bridge.core.errors import ApiError
from bridge.core.limits import Limits
from bridge.core.request_limits import check_request_shape
from bridge.responses.body import PATHS, _converted, certain, create_request, fast_body
from bridge.responses.compaction_codec import encode_summary
from bridge.responses.convert_input import editor_messages, to_chat_messages
from bridge.responses.item_cache import ItemCache, resolve_references
from bridge.responses.request import CreateResponseRequest, parse_create_request
from bridge.responses.response_object import new_response
from bridge.responses.tools import plan_request_tools
from bridge.responses.wire import TYPED_DEPTH, UNREAD, CreateBody, from_validated
from bridge.settings import BridgeSettings

LIMITS = BridgeSettings().limits
TIGHT = LIMITS.model_copy(update={"maxInputItems": 6, "maxTools": 3, "maxJsonDepth": 8})
BODIES = every_body()
# Bodies the exact path accepts that the fast path must leave to it: a type no Struct names,
# values pydantic coerces, an item's fields of shapes its Struct does not declare.
EXACT_ONLY = {"unknown item type", "coerced numbers", "float tokens", "odd reasoning"}
# Bodies with a key no Struct declares, read by the fallback that drops it: the node SDK's
# `parsed_arguments` (JSON of any depth) and a hosted item's own fields.
UNDECLARED_KEYS = {"node-tools_stream-2", "every kind"}


def exact(body: Any, limits: Limits = LIMITS) -> CreateResponseRequest | ApiError:
    """Today's path (route order: shape limits, references, validation): its result or 400."""
    try:
        check_request_shape(body, limits)
        return parse_create_request(resolve_references(body, ItemCache(1 << 20)))
    except ApiError as exc:
        return exc


def outcome(convert: Callable[[], Any]) -> Any:
    try:
        return convert()
    except ApiError as exc:
        return ("error", exc.status, exc.message, exc.param, exc.code)


def encoded(body: Any) -> bytes:
    return json.dumps(body, ensure_ascii=False).encode()


def unread_cleared(value: Any) -> Any:
    """Structs with the fields declared only to be refused when unknown (`UNREAD`) set to
    None: the exact path's models do not keep them, and the conversion never reads them."""
    if isinstance(value, list):
        return [unread_cleared(one) for one in value]
    if not isinstance(value, msgspec.Struct):
        return value
    fields = {name: unread_cleared(getattr(value, name)) for name in value.__struct_fields__}
    return msgspec.structs.replace(
        value, **{name: None if name in UNREAD else one for name, one in fields.items()}
    )


def same_reading(expected: CreateResponseRequest, fast: CreateBody) -> None:
    assert unread_cleared(fast) == unread_cleared(from_validated(expected))
    assert outcome(lambda: to_chat_messages(fast)) == outcome(
        lambda: legacy_to_chat_messages(expected)
    )
    assert outcome(lambda: editor_messages(fast)) == outcome(
        lambda: legacy_editor_messages(expected)
    )


@pytest.mark.parametrize("name", sorted(BODIES))
def test_the_fast_path_reads_and_converts_what_the_exact_path_does(name: str) -> None:
    body = BODIES[name]
    expected = exact(body)
    fast = fast_body(encoded(body), LIMITS)
    if isinstance(expected, ApiError):
        assert fast is None, expected.message
        return
    if name in EXACT_ONLY:
        assert fast is None
        same_reading(expected, from_validated(expected))  # the exact path's Structs convert
        return
    assert fast is not None, name
    same_reading(expected, fast)
    before = PATHS.copy()
    assert create_request(json.loads(encoded(body)), LIMITS) == fast  # a WebSocket turn's
    assert set(PATHS - before) == ({"stripped"} if name in UNDECLARED_KEYS else {"fast"})
    plan = outcome(lambda: plan_request_tools(fast))
    assert plan == outcome(lambda: plan_request_tools(expected))
    ours, theirs = (
        new_response(fast, "resp_1", [], "auto"),
        new_response(expected, "resp_1", [], "auto"),
    )
    ours.pop("created_at"), theirs.pop("created_at")
    assert ours == theirs


def test_ordinary_client_bodies_take_the_fast_path() -> None:
    """Every captured client body the bridge accepts, and the bench's: no exact path."""
    taken = 0
    for body in [*client_bodies().values(), *bench_bodies().values()]:
        if isinstance(exact(body), ApiError):
            continue  # `previous_response_id` over HTTP: a 400 either way
        assert fast_body(encoded(body), LIMITS) is not None, body.get("input")
        taken += 1
    assert taken >= 40


def test_captured_client_bodies_are_read_without_dropping_a_key() -> None:
    """The Structs declare every key the captured clients send (they refuse any other, so
    that nothing goes unread): those bodies take one decode, not the fallback."""
    for name, body in [*client_bodies().items(), *bench_bodies().items()]:
        if isinstance(exact(body), ApiError):
            continue
        before = PATHS.copy()
        assert fast_body(encoded(body), LIMITS) is not None
        taken = set(PATHS - before)
        assert taken == ({"stripped"} if name in UNDECLARED_KEYS else {"fast"}) or (
            taken == {"typeless"}
        ), (name, taken)


def _typed_depth(info: Any) -> int:
    """How deep a value of this msgspec type can nest, free-form values (Any) counted as 0."""
    if isinstance(info, mi.StructType):
        return 1 + max((_typed_depth(f.type) for f in info.fields), default=0)
    if isinstance(info, (mi.ListType, mi.DictType)):
        inner = info.item_type if isinstance(info, mi.ListType) else info.value_type
        return 1 + _typed_depth(inner)
    if isinstance(info, mi.UnionType):
        return max(_typed_depth(one) for one in info.types)
    return 0


def test_typed_depth_is_how_deep_the_declared_types_nest() -> None:
    assert _typed_depth(mi.type_info(CreateBody)) == TYPED_DEPTH


# Keys no Struct declares, in each kind of object, holding a value of `depth` levels.
def _unknown_keys(depth: int) -> dict[str, Any]:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    part = {"type": "input_text", "text": "hi"}
    message = {"type": "message", "role": "user", "content": [part]}
    with_part = {**message, "content": [{**part, "x_part": value}]}
    return {
        "top": {"model": "m", "input": "hi", "x_top": value},
        "item": {"model": "m", "input": [{**message, "x_item": value}]},
        "part": {"model": "m", "input": [with_part]},
        "typeless": {"model": "m", "input": [{"role": "user", "content": "hi", "x": value}]},
        "reasoning param": {"model": "m", "input": "hi", "reasoning": {"x": value}},
    }


@pytest.mark.parametrize("where", sorted(_unknown_keys(1)))
def test_an_undeclared_key_is_dropped_and_its_depth_still_checked(where: str) -> None:
    # Level of the object holding the key: top 1, reasoning 2, item 3, part 5.
    levels = {"top": 1, "reasoning param": 2, "item": 3, "typeless": 3, "part": 5}
    fits = LIMITS.maxJsonDepth - levels[where]
    body = _unknown_keys(fits)[where]
    before = PATHS.copy()
    fast = fast_body(encoded(body), LIMITS)
    expected = exact(body)
    assert fast is not None and not isinstance(expected, ApiError)
    assert set(PATHS - before) == {"stripped"}
    same_reading(expected, fast)
    assert create_request(json.loads(encoded(body)), LIMITS) == fast
    too_deep = _unknown_keys(fits + 1)[where]
    assert isinstance(exact(too_deep), ApiError)
    assert fast_body(encoded(too_deep), LIMITS) is None


def test_a_low_depth_limit_counts_the_bytes_of_the_declared_types() -> None:
    """Logprobs nest TYPED_DEPTH deep: past a limit below that, the exact path answers."""
    logprob: dict[str, Any] = {"token": "a", "logprob": -0.1, "bytes": [97]}
    with_top = {**logprob, "top_logprobs": [logprob]}
    part = {"type": "output_text", "text": "a", "annotations": [], "logprobs": [with_top]}
    body = {"model": "m", "input": [{"type": "message", "role": "assistant", "content": [part]}]}
    assert TIGHT.maxJsonDepth < TYPED_DEPTH
    assert isinstance(exact(body, TIGHT), ApiError)
    assert fast_body(encoded(body), TIGHT) is None
    before = PATHS.copy()
    assert fast_body(encoded(body), LIMITS) is not None
    assert set(PATHS - before) == {"fast"}


def test_the_conversion_keeps_every_kind_of_item() -> None:
    """A guard on the corpus: the differential test covers every kind the conversion reads."""
    fast = fast_body(encoded(crafted()["every kind"]), LIMITS)
    assert fast is not None and isinstance(fast.input, list)
    kinds = {type(item).__name__ for item in fast.input}
    assert len(kinds) == 13, kinds


# --------------------------------------------------------------------------- odd bodies

DEEP: Any = []
for _ in range(120):
    DEEP = [DEEP]
ODD: dict[str, bytes] = {
    "not json": b"{model",
    "not an object": b"[1]",
    "no model": encoded({"input": "x"}),
    "empty model": encoded({"model": "", "input": "x"}),
    "no input": encoded({"model": "m"}),
    "previous_response_id": encoded({"model": "m", "input": "x", "previous_response_id": "r"}),
    "conversation": encoded({"model": "m", "input": "x", "conversation": "c"}),
    "background": encoded({"model": "m", "input": "x", "background": True}),
    "item not an object": encoded({"model": "m", "input": ["x"]}),
    "typeless without role": encoded({"model": "m", "input": [{"content": "x"}]}),
    "typed null": encoded(
        {"model": "m", "input": [{"type": None, "role": "user", "content": "x"}]}
    ),
    "item_reference": encoded({"model": "m", "input": [{"type": "item_reference", "id": "msg_x"}]}),
    "bare reference": encoded({"model": "m", "input": [{"id": "msg_x"}]}),
    "bad role": encoded({"model": "m", "input": [{"role": "tool", "content": "x"}]}),
    "call without id": encoded({"model": "m", "input": [{"type": "function_call", "name": "f"}]}),
    "null arguments": encoded(
        {
            "model": "m",
            "input": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": None}],
        }
    ),
    "bad compaction": encoded(
        {"model": "m", "input": [{"type": "compaction", "encrypted_content": "amcmp1.xx"}]}
    ),
    "deep tools": encoded({"model": "m", "input": "x", "tools": [{"type": "function", "x": DEEP}]}),
    "deep additional tools": encoded(
        {"model": "m", "input": [{"type": "additional_tools", "tools": [{"d": DEEP}]}]}
    ),
    "deep search arguments": encoded(
        {"model": "m", "input": [{"type": "tool_search_call", "arguments": DEEP}]}
    ),
    "deep metadata": encoded({"model": "m", "input": "x", "metadata": {"d": DEEP}}),
    # JSON takes the last `type`; a fast reading that took the first would convert another item.
    "duplicate type": b'{"model": "m", "input": [{"type": "reasoning", "type": "function_call", '
    b'"call_id": "c", "name": "f"}]}',
    "NaN": b'{"model": "m", "input": "x", "temperature": NaN}',
    "huge float": b'{"model": "m", "input": "x", "temperature": 1e400}',
    "lone surrogate": b'{"model": "m", "input": "\\ud800"}',
    "not UTF-8": b'{"model": "m", "input": "\xff"}',
    "UTF-16": encoded({"model": "m", "input": "x"}).decode().encode("utf-16"),
    "orphan output": encoded(
        {"model": "m", "input": [{"type": "function_call_output", "call_id": "c", "output": "x"}]}
    ),
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_odd_bodies_are_left_to_the_exact_path(name: str) -> None:
    """All but two: the orphan (valid JSON of valid items: its 400 comes from the conversion)
    and the duplicated `type`, which msgspec's tagged decode refuses and the fallback reads
    from dicts, taking the last as the exact path does."""
    raw = ODD[name]
    fast = fast_body(raw, LIMITS)
    if name not in ("orphan output", "duplicate type"):
        assert fast is None
        return
    expected = exact(strict_json.decode(raw))
    assert fast is not None and not isinstance(expected, ApiError)
    same_reading(expected, fast)


def test_tight_limits_send_bodies_to_the_exact_path() -> None:
    calls = [{"type": "function_call", "call_id": f"c{i}", "name": "f"} for i in range(7)]
    too_many_tools = [{"type": "function", "name": f"t{i}"} for i in range(4)]
    # 8 levels deep under `tools`, 9 under an item's `tools`: past maxJsonDepth 8 both.
    shallow = {"type": "function", "name": "f", "parameters": {"a": {"b": {"c": {"d": {}}}}}}
    deep = {**shallow, "parameters": {"a": shallow["parameters"]}}
    for body in (
        {"model": "m", "input": calls},
        {"model": "m", "input": "x", "tools": too_many_tools},
        {"model": "m", "input": [{"type": "additional_tools", "tools": too_many_tools}]},
        {"model": "m", "input": "x", "tools": [deep]},
        {"model": "m", "input": [{"type": "additional_tools", "tools": [shallow]}]},
    ):
        assert isinstance(exact(body, TIGHT), ApiError)
        assert fast_body(encoded(body), TIGHT) is None
        assert fast_body(encoded(body), LIMITS) is not None


# --------------------------------------------------------------------------- mutations

VALUES = st.sampled_from(
    [
        None,
        0,
        1,
        -1,
        1.5,
        True,
        False,
        "",
        "x",
        "user",
        "assistant",
        "system",
        "message",
        "reasoning",
        "item_reference",
        "function_call",
        "compaction",
        "additional_tools",
        "client",
        [],
        {},
        [{}],
        ["x"],
        {"type": "message"},
        {"role": "user", "content": "x"},
        {"id": "msg_1"},
        encode_summary("s"),
        "amcmp1.bad",
        {"functionDeclarations": [{}]},
        {"type": "function", "name": "g"},
        DEEP,
    ]
)
SEEDS = ["every kind", "bench 1", "string input", "typeless only", "instructions only"]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _paths(child, (*path, index))
    return found


def _mutated(body: Body, path: tuple[Any, ...], op: str, value: Any, key: str) -> Any:
    copy = json.loads(json.dumps(body))
    if not path:
        return value if op == "set" else copy
    parent = copy
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if op == "set":
        parent[last] = value
    elif op == "delete":
        del parent[last]
    elif isinstance(parent[last], dict):
        parent[last][key] = value
    return copy


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.sampled_from(SEEDS),
    pick=st.integers(min_value=0),
    op=st.sampled_from(["set", "delete", "add"]),
    value=VALUES,
    key=st.sampled_from(["type", "role", "content", "call_id", "tools", "text", "zz"]),
    tight=st.booleans(),
)
def test_a_mutated_body_is_read_as_the_exact_path_reads_it_or_left_to_it(
    seed: str, pick: int, op: str, value: Any, key: str, tight: bool
) -> None:
    base = BODIES[seed] if seed in BODIES else crafted()[seed]
    paths = _paths(base)
    body = _mutated(base, paths[pick % len(paths)], op, value, key)
    limits = TIGHT if tight else LIMITS
    fast = fast_body(encoded(body), limits)
    if fast is not None:
        expected = exact(body, limits)
        if isinstance(expected, ApiError) and value is DEEP and expected.code == "nesting_too_deep":
            # The one known difference: depth inside a field no Struct reads (the test below).
            assert fast == fast_body(encoded(base), limits)
            return
        assert not isinstance(expected, ApiError), expected.message
        same_reading(expected, fast)
    # A WebSocket turn's body, decoded already (its shape was checked as the frame came in).
    converted = _converted(body) if isinstance(body, dict) else None
    if converted is not None and certain(converted, limits):
        validated = parse_create_request(body)
        same_reading(validated, converted)


# Items to interleave: every kind, calls and results of a few ids (so some pair, some repeat,
# some are orphans), in any order.
POOL = [
    item
    for call_id in ("c1", "c2")
    for item in (
        {"type": "function_call", "call_id": call_id, "name": "shell", "arguments": "{}"},
        {"type": "function_call_output", "call_id": call_id, "output": f"out {call_id}"},
        {"type": "custom_tool_call", "call_id": f"x{call_id}", "name": "patch", "input": "p"},
        {"type": "custom_tool_call_output", "call_id": f"x{call_id}", "output": []},
    )
] + [
    item
    for item in crafted()["every kind"]["input"]
    if item.get("type") not in ("function_call", "function_call_output")
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(POOL), max_size=12), st.sampled_from([None, "Be terse."]))
def test_any_order_of_items_converts_as_the_old_conversion_did(
    items: list[Body], instructions: str | None
) -> None:
    body: Body = {"model": "m", "input": items}
    if instructions is not None:
        body["instructions"] = instructions
    expected = exact(body)
    fast = fast_body(encoded(body), LIMITS)
    assert fast is not None and not isinstance(expected, ApiError)
    same_reading(expected, fast)


def test_depth_inside_a_field_the_bridge_ignores_takes_the_exact_path() -> None:
    """msgspec skips a field no Struct names without building it; the depth of the bytes
    (bridge/core/json_depth.py) still sends a body nested past maxJsonDepth there to the exact
    path, and its 400 `nesting_too_deep`."""
    body = {"model": "m", "input": [{"role": "user", "content": "x", "zz": DEEP}]}
    assert fast_body(encoded(body), LIMITS) is None
    error = exact(body)
    assert isinstance(error, ApiError) and error.code == "nesting_too_deep"
    very_deep = b'{"model": "m", "input": "x", "zz": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    assert fast_body(very_deep, LIMITS) is None
