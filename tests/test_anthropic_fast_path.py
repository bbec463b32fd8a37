"""The Messages fast path (bridge/anthropic/body.py): ordinary bodies are decoded in one
pass into the wire Structs, every odd body goes to the exact path and gets today's answer, and
the conversion gives the same chat request as the one before it (tests/anthropic_reference.py).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from anthropic_differential import (
    LIMITS,
    MODEL,
    assert_same_as_before,
    exact,
    planned,
    raw_of,
    reference,
)
from fixture_files import claude_code_captures

from bench import conversation
from bench.dialect_bodies import anthropic_body
from bridge.anthropic.body import PATHS, fast_body
from bridge.app import create_app
from bridge.core.backend import ChatRequest, CountInput, ModelInfo, ResponsePart, TextPart
from bridge.core.errors import ApiError
from bridge.core.limits import Limits
from bridge.settings import BridgeSettings

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


def sent(request: ChatRequest) -> dict[str, Any]:
    """The chat request as planned: the prepare step then asks the editor for the input's
    count (`countInput`, for message_start), which the plans compared here do not hold."""
    assert request.countInput == CountInput(maxTokens=0, imageTokens=0)
    return {**vars(request), "countInput": None}


async def test_an_ordinary_body_takes_the_fast_path_over_http() -> None:
    body = {**anthropic_body(conversation.history(50)), "model": "sim-echo", "stream": False}
    before = (PATHS.fast, PATHS.exact)
    status, answer, backend = await _post("/v1/messages", raw_of(body))
    assert status == 200, answer
    assert (PATHS.fast, PATHS.exact) == (before[0] + 1, before[1])
    want = reference(body)
    assert isinstance(want, dict) and [sent(r) for r in backend.requests] == [want["chat"]]
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
        assert [sent(r) for r in backend.requests] == [want["chat"]]
