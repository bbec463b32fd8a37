"""The Messages fast path (bridge/anthropic/fast_path.py): ordinary bodies are decoded in one
pass into the wire Structs, every odd body goes to the exact path and gets today's answer, and
the conversion gives the same chat request as the one before it (tests/anthropic_reference.py).
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from anthropic_reference import reference_plan
from fixture_files import claude_code_captures
from hypothesis import given, settings
from hypothesis import strategies as st
from test_anthropic_request_fuzz import bodies, json_values

from bench import conversation
from bench.dialect_bodies import anthropic_body
from bridge.anthropic.fast_path import PATHS, fast_body, within_depth
from bridge.anthropic.plan import MessagesPlan, parse_messages_request, plan_messages
from bridge.anthropic.protocol import MessagesRequest
from bridge.anthropic.wire import MessagesBody
from bridge.core.backend import ChatRequest, ModelInfo, ResponsePart, TextPart
from bridge.core.errors import ApiError
from bridge.core.request_limits import check_request_shape, json_depth_exceeded
from bridge.core.strict_json import JsonInputError, decode
from bridge.core.validation_errors import json_object
from bridge.http.app import create_app
from bridge.settings import BridgeSettings, Limits

MODEL = ModelInfo(id="sim-echo")
LIMITS = Limits()


def raw_of(body: Any) -> bytes:
    return json.dumps(body, ensure_ascii=False).encode()


def exact(raw: bytes, limits: Limits = LIMITS) -> MessagesBody | ApiError:
    """Today's path: read_json, check_request_shape, pydantic (or its 400)."""
    try:
        try:
            body = decode(raw)
        except JsonInputError as exc:
            return ApiError(400, exc.message, param=exc.param, code=exc.code)
        check_request_shape(body, limits, items="messages")
        return parse_messages_request(body)
    except ApiError as exc:
        return exc


Planned = dict[str, Any] | tuple[str | None, str | None, str]


def comparable(plan: MessagesPlan) -> dict[str, Any]:
    """The plan with its chat request's fields (its rebuild closure is made anew each time)."""
    return {**vars(plan), "chat": vars(plan.chat)}


def planned(request: MessagesBody) -> Planned:
    try:
        return comparable(plan_messages(request, MODEL))
    except ApiError as exc:
        return exc.param, exc.code, exc.message


def reference(body: dict[str, Any]) -> Planned:
    """The plan as it was made before the fast path, from the same (valid) body."""
    try:
        return comparable(reference_plan(MessagesRequest.model_validate(json_object(body)), MODEL))
    except ApiError as exc:
        return exc.param, exc.code, exc.message


def assert_same_as_before(raw: bytes) -> MessagesBody | None:
    """The fast path reads `raw` as the exact path does (or leaves it to it), and the plan is
    the one the conversion before it made. The fast path's result, if it took the body."""
    fast, slow = fast_body(raw, LIMITS), exact(raw)
    if isinstance(slow, ApiError):
        assert fast is None, slow.message
        return None
    if fast is not None:
        assert fast == slow
    assert planned(slow) == reference(json.loads(raw))
    return fast


# --------------------------------------------------------------------------- ordinary bodies

CAPTURES = {name: capture["body"] for name, capture in claude_code_captures().items()}
BENCH = {
    f"bench-{size}": anthropic_body(conversation.history(size)) for size in (1, 2, 5, 200, 1000)
}
BENCH["bench-bulky"] = anthropic_body(conversation.bulky(200_000))


@pytest.mark.parametrize("name", sorted({**CAPTURES, **BENCH}))
def test_ordinary_bodies_take_the_fast_path_to_the_same_plan(name: str) -> None:
    body = {**CAPTURES, **BENCH}[name]
    assert assert_same_as_before(raw_of(body)) is not None
    assert assert_same_as_before(json.dumps(body, indent=1).encode()) is not None


SDK_LIKE: list[dict[str, Any]] = [
    {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]},
    {
        "model": "m",
        "max_tokens": 5,
        "system": "Be brief.",
        "temperature": 0.5,
        "top_p": 1,
        "top_k": 3,
        "stop_sequences": ["END"],
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "tool_choice": {"type": "tool", "name": "t", "disable_parallel_tool_use": True},
        "tools": [{"name": "t", "input_schema": {"type": "object"}}, {"type": "web_search"}],
        "output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}},
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "a", "cache_control": {}}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hm", "signature": "s"},
                    {"type": "redacted_thinking", "data": "x"},
                    {"type": "tool_use", "id": "c1", "name": "t", "input": {"a": [1, {"b": 2}]}},
                ],
            },
            {"role": "assistant", "content": [{"type": "tool_use", "id": "c2", "name": "t"}]},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "c1", "is_error": True},
                    {
                        "type": "tool_result",
                        "tool_use_id": "c2",
                        "content": [
                            {"type": "text", "text": "out"},
                            {"type": "tool_reference", "tool_name": "deferred"},
                            {"type": "image", "source": {"type": "url", "url": "http://x"}},
                        ],
                    },
                    {"type": "document", "source": {"type": "text", "data": "doc"}, "title": "d"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png"}},
                ],
            },
            {"role": "system", "content": "late"},
            {"role": "user", "content": [{"type": "tool_use", "id": "c3", "name": "t"}]},
        ],
    },
]


@pytest.mark.parametrize("body", SDK_LIKE)
def test_every_kind_of_block_the_decoder_knows_takes_the_fast_path(body: dict[str, Any]) -> None:
    assert assert_same_as_before(raw_of(body)) is not None


# --------------------------------------------------------------------------- odd bodies

GOOD = SDK_LIKE[0]
DEEP: Any = "x"
for _ in range(LIMITS.maxJsonDepth):
    DEEP = [DEEP]
ODD: dict[str, bytes] = {
    "not json": b"{",
    "not an object": b"[1]",
    "NaN": b'{"model": "m", "max_tokens": 5, "temperature": NaN, "messages": []}',
    "lone surrogate": raw_of({**GOOD, "system": "X"}).replace(b'"X"', b'"\\ud800"'),
    "UTF-16": json.dumps(GOOD).encode("utf-16"),
    "UTF-8 BOM": b"\xef\xbb\xbf" + raw_of(GOOD),
    "huge int": raw_of({**GOOD, "metadata": 0}).replace(
        b'"metadata": 0', b'"metadata": ' + b"1" * 5000
    ),
    "no max_tokens": raw_of({k: v for k, v in GOOD.items() if k != "max_tokens"}),
    "max_tokens null": raw_of({**GOOD, "max_tokens": None}),
    "max_tokens float": raw_of({**GOOD, "max_tokens": 5.0}),
    "max_tokens 0": raw_of({**GOOD, "max_tokens": 0}),
    "empty model": raw_of({**GOOD, "model": ""}),
    "no messages": raw_of({**GOOD, "messages": []}),
    "temperature as string": raw_of({**GOOD, "temperature": "0.5"}),
    "temperature true": raw_of({**GOOD, "temperature": True}),
    "temperature 2": raw_of({**GOOD, "temperature": 2}),
    "is_error as string": raw_of(
        {
            **GOOD,
            "messages": [
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "a", "is_error": "true"}],
                }
            ],
        }
    ),
    "stream as int": raw_of({**GOOD, "stream": 1}),
    "unknown block": raw_of(
        {
            **GOOD,
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "search_result",
                            "title": "t",
                            "source": "s",
                            "content": [{"type": "text", "text": "x"}],
                        }
                    ],
                }
            ],
        }
    ),
    "tool_reference without a name": raw_of(
        {
            **GOOD,
            "messages": [{"role": "user", "content": [{"type": "tool_reference", "tool_name": 3}]}],
        }
    ),
    "server tool search": raw_of(
        {
            **GOOD,
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_search_tool_result",
                            "content": {"tool_references": [{"tool_name": "x"}]},
                        }
                    ],
                }
            ],
        }
    ),
    "two types": b'{"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": [{"type": "text", "type": "image", "text": "a"}]}]}',  # noqa: E501
    "deep ignored key": raw_of({**GOOD, "metadata": DEEP}),
    "deep tool input": raw_of(
        {
            **GOOD,
            "messages": [
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "a", "name": "b", "input": {"x": DEEP}}],
                }
            ],
        }
    ),
    "deep schema": raw_of({**GOOD, "tools": [{"name": "t", "input_schema": {"x": DEEP}}]}),
    "too many messages": raw_of(
        {**GOOD, "messages": GOOD["messages"] * (LIMITS.maxInputItems + 1)}
    ),
    "too many tools": raw_of({**GOOD, "tools": [{"name": "t"}] * (LIMITS.maxTools + 1)}),
    "function declarations": raw_of(
        {**GOOD, "tools": [{"functionDeclarations": [{"name": "t"}] * (LIMITS.maxTools + 1)}]}
    ),
    "additional_tools input": raw_of(
        {**GOOD, "input": [{"type": "additional_tools", "tools": [{}] * (LIMITS.maxTools + 1)}]}
    ),
    "too many values": raw_of({**GOOD, "metadata": [0] * (LIMITS.maxJsonValues + 1)}),
    "role other": raw_of({**GOOD, "messages": [{"role": "tool", "content": "x"}]}),
    "string block": raw_of({**GOOD, "messages": [{"role": "user", "content": ["x"]}]}),
    "tool_use input null": raw_of(
        {
            **GOOD,
            "messages": [
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "a", "name": "b", "input": None}],
                }
            ],
        }
    ),
    "thinking budget as float": raw_of(
        {**GOOD, "thinking": {"type": "enabled", "budget_tokens": 2048.0}}
    ),
    "bad tool choice": raw_of({**GOOD, "tool_choice": "auto"}),
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_odd_bodies_go_to_the_exact_path(name: str) -> None:
    assert fast_body(ODD[name], LIMITS) is None
    slow = exact(ODD[name])
    if not isinstance(slow, ApiError):  # accepted by pydantic: the plan as before
        assert planned(slow) == reference(json.loads(ODD[name]))


def test_a_count_takes_any_max_tokens_and_stream() -> None:
    body = {k: v for k, v in GOOD.items() if k != "max_tokens"}
    counted = fast_body(raw_of({**body, "stream": True}), LIMITS, counting=True)
    assert counted is not None and (counted.max_tokens, counted.stream) == (1, False)
    assert fast_body(raw_of(body), LIMITS) is None  # a message needs it


def test_limits_smaller_than_the_defaults_are_kept() -> None:
    small = Limits(maxInputItems=2, maxTools=1, maxJsonDepth=8)
    body = {**GOOD, "messages": GOOD["messages"] * 2, "tools": [{"name": "t"}]}
    assert fast_body(raw_of(body), small) is not None
    for odd in (
        {**body, "messages": GOOD["messages"] * 3},
        {**body, "tools": [{"name": "t"}] * 2},
        {**body, "metadata": [[[[[[[[1]]]]]]]]},
    ):
        assert fast_body(raw_of(odd), small) is None
        assert isinstance(exact(raw_of(odd), small), ApiError)
    assert fast_body(raw_of({**body, "metadata": [[[[[[[1]]]]]]]}), small) is not None


# --------------------------------------------------------------------------- any body


@settings(max_examples=400, deadline=None)
@given(bodies)
def test_any_body_is_read_and_planned_as_before(body: dict[str, Any]) -> None:
    assert_same_as_before(raw_of(body))


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_any_json_value_is_read_as_before(body: Any) -> None:
    assert_same_as_before(raw_of(body))


# Bodies the API takes, of every shape the conversion knows (and keys it ignores): each one is
# read by the fast path or left to the exact path, and planned as before.
_ids = st.sampled_from(["c1", "c2", "c3"])
_text = st.sampled_from(["", " ", "hi", "x-anthropic-billing-header: v\nrest", "[a]{b}\\"])
_extra = st.dictionaries(st.sampled_from(["cache_control", "citations", "zz"]), json_values)
_source = st.fixed_dictionaries(
    {"type": st.sampled_from(["base64", "url", "text", "content", "file"])},
    optional={
        "media_type": st.sampled_from(["image/png", "text/plain"]),
        "data": st.sampled_from(["aGk=", "iVBORw0KGgo=", "!", "text"]) | st.lists(json_values),
        "url": st.just("http://x/" + "u" * 250),
        "file_id": st.just("file_1"),
        "content": _text | st.lists(json_values | st.fixed_dictionaries({"text": _text})),
    },
)


def _block(kind: str, **fields: Any) -> Any:
    return st.fixed_dictionaries({"type": st.just(kind), **fields}, optional={"zz": json_values})


_inner = st.one_of(
    _block("text", text=_text),
    _block("image", source=_source),
    _block("document", source=_source, title=st.none() | _text, context=st.none() | _text),
    _block("tool_reference", tool_name=st.sampled_from(["a", "b"]) | json_values),
    _block("thinking", thinking=_text),
    _block("redacted_thinking"),
    _block("search_result", title=_text, source=_text, content=st.lists(json_values)),
    _block(
        "tool_search_tool_result",
        content=st.fixed_dictionaries({"tool_references": st.lists(json_values) | json_values}),
    ),
)
_call = _block(
    "tool_use",
    id=_ids,
    name=st.sampled_from(["t", "u"]),
    input=st.dictionaries(st.text(max_size=3), json_values),
)
_result = _block(
    "tool_result",
    tool_use_id=_ids,
    content=_text
    | st.lists(
        _inner
        | _call
        | _block("tool_result", tool_use_id=_ids, content=st.lists(_inner, max_size=2)),
        max_size=3,
    ),
    is_error=st.none() | st.booleans(),
)
_message = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["user", "assistant", "system"]),
        "content": _text | st.lists(_inner | _call | _result, max_size=4),
    }
)
valid_bodies = st.fixed_dictionaries(
    {
        "model": st.just("m"),
        "max_tokens": st.just(64),
        "messages": st.lists(_message, min_size=1, max_size=6),
    },
    optional={
        "system": _text | st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": _text})),
        "tools": st.lists(
            st.fixed_dictionaries(
                {"name": st.sampled_from(["t", "u", "a", "b"])},
                optional={
                    "defer_loading": st.booleans(),
                    "type": st.sampled_from(["custom", "bash_1"]),
                },
            ),
            max_size=4,
        ),
        "tool_choice": st.fixed_dictionaries({"type": st.sampled_from(["auto", "any", "none"])}),
        "temperature": st.floats(0, 1),
        "thinking": st.fixed_dictionaries(
            {"type": st.sampled_from(["enabled", "disabled", "adaptive"])}
        ),
        "stream": st.booleans(),
        "metadata": json_values,
    },
)


@settings(max_examples=500, deadline=None)
@given(valid_bodies, _extra)
def test_any_valid_body_is_read_and_planned_as_before(body: dict[str, Any], extra: Any) -> None:
    assert_same_as_before(raw_of({**extra, **body}))


def _nested(rng: random.Random, depth: int) -> Any:
    if depth == 0:
        return rng.choice([1, "a[", '}]\\"{', "x\\\\", None, '\\n"', '\\\\\\"[', '"', "\\"])
    if rng.random() < 0.5:
        return [_nested(rng, depth - 1) for _ in range(rng.randint(0, 3))]
    keys = ["k", "[", ']\\"', '{"', "\\", '\\\\"']
    return {rng.choice(keys): _nested(rng, depth - 1) for _ in range(rng.randint(0, 3))}


def test_within_depth_counts_as_the_request_limits_do() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        value = {"a": _nested(rng, rng.randint(0, 9))}
        raw = json.dumps(value, ensure_ascii=rng.random() < 0.5).encode()
        for limit in range(1, 12):
            assert within_depth(raw, limit) == (not json_depth_exceeded(value, limit)), raw


@given(st.text(alphabet='[]{}"\\ ab', max_size=30))
def test_within_depth_on_brackets_inside_strings(text: str) -> None:
    value = {"s": text, "l": [[text]]}
    raw = json.dumps(value).encode()
    assert within_depth(raw, 3) and not within_depth(raw, 2)


# --------------------------------------------------------------------------- over HTTP


class Recording:
    """Models, a word counter and one answer; it keeps every chat request it was sent."""

    def __init__(self) -> None:
        self.requests: list[ChatRequest] = []

    async def list_models(self) -> list[ModelInfo]:
        return [MODEL]

    async def chat(self, request: ChatRequest) -> AsyncGenerator[list[ResponsePart], None]:
        self.requests.append(request)
        yield [TextPart(value="ok")]

    async def count_tokens(self, model: str, text: str) -> int:
        return len(text.split())


async def _post(path: str, raw: bytes) -> tuple[int, Any, Recording]:
    backend = Recording()
    async with TestClient(TestServer(create_app(backend, BridgeSettings()))) as client:
        headers = {"Content-Type": "application/json", "anthropic-version": "2023-06-01"}
        response = await client.post(path, data=raw, headers=headers)
        return response.status, await response.json(), backend


async def test_an_ordinary_body_takes_the_fast_path_over_http() -> None:
    body = {**anthropic_body(conversation.history(50)), "model": "sim-echo", "stream": False}
    before = (PATHS.fast, PATHS.exact)
    status, answer, backend = await _post("/v1/messages", raw_of(body))
    assert status == 200, answer
    assert (PATHS.fast, PATHS.exact) == (before[0] + 1, before[1])
    want = reference(body)
    assert isinstance(want, dict) and [vars(r) for r in backend.requests] == [want["chat"]]
    status, answer, _ = await _post("/v1/messages/count_tokens", raw_of(body))
    assert status == 200 and answer["input_tokens"] > 0
    assert (PATHS.fast, PATHS.exact) == (before[0] + 2, before[1])


@pytest.mark.parametrize("name", ["deep ignored key", "is_error as string", "no max_tokens"])
async def test_an_odd_body_gets_the_exact_paths_answer_over_http(name: str) -> None:
    raw = ODD[name].replace(b'"model": "m"', b'"model": "sim-echo"')
    before = PATHS.exact
    status, answer, backend = await _post("/v1/messages", raw)
    assert PATHS.exact == before + 1
    slow = exact(raw)
    if isinstance(slow, ApiError):
        assert status == 400 and answer["error"]["message"] == slow.message
    else:
        want = planned(slow)
        assert status == 200 and isinstance(want, dict)
        assert [vars(r) for r in backend.requests] == [want["chat"]]
