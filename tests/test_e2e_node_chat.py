"""End to end with the real openai Node SDK as a Chat Completions client of a real
`maestro-bridge serve`.

tests/node/chat_client.cjs runs the SDK (pinned by tests/node/package-lock.json, installed by
scripts/test into `.cache/node-sdk`) and prints what the SDK gave back and every HTTP exchange
as it crossed the wire. Here both are checked against the Chat Completions schema and stream
rules (tests/chat_validation.py): every JSON answer and error body, every SSE stream (folded by
the test helper, not the bridge), the chunks the SDK handed over, then what the model answered.

The SDK is looked up as in tests/test_e2e_node_sdk.py: without it (or `node`) the tests fail
when $CI is set and are skipped otherwise.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from chat_validation import (
    DONE,
    check_failed_stream,
    check_stream,
    comparable,
    parse_sse,
    validate_completion,
    validate_error,
    without_cached,
)
from conftest import REPO_ROOT, BridgeServer, StartServer
from node_clients import node_env_with, run_node_client

CLIENT = REPO_ROOT / "tests" / "node" / "chat_client.cjs"
FORECAST = {"city": "placeholder", "celsius": 0, "sunny": False}  # the model's placeholder


@pytest.fixture(scope="module")
def node_env() -> dict[str, str]:
    """The environment that lets `node` require the pinned SDK (and zod, for parse)."""
    return node_env_with(("openai", "zod"), "the openai Node SDK")


def run_client(
    node_env: dict[str, str], scenario: str, server: BridgeServer, model: str = "sim-echo"
) -> dict[str, Any]:
    output = run_node_client(CLIENT, node_env, scenario, server, model)
    assert output["sdk"] == "6.49.0"
    return output


def include_usage(request: dict[str, Any]) -> bool:
    return bool((request.get("stream_options") or {}).get("include_usage"))


def checked_wire(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Every exchange the client made, checked; per exchange: the JSON answer or error body,
    or the folded stream (the error body for a stream that failed after it began)."""
    checked: list[dict[str, Any]] = []
    for number, exchange in enumerate(result["wire"]):
        request, status, kind = exchange["request"], exchange["status"], exchange["content_type"]
        assert exchange["url"].endswith("/v1/chat/completions"), exchange["url"]
        if kind.startswith("text/event-stream"):
            assert status == 200 and request.get("stream") is True, (number, status, request)
            chunks = parse_sse(exchange["body"]).chunks
            if any(isinstance(chunk, dict) and "error" in chunk for chunk in chunks):
                checked.append(check_failed_stream(chunks))
            else:
                checked.append(check_stream(chunks, include_usage=include_usage(request)))
            continue
        assert kind.startswith("application/json"), (number, kind)
        body = json.loads(exchange["body"])
        if status == 200:
            assert not request.get("stream"), f"exchange {number}: JSON for a stream request"
            validate_completion(body)
        else:
            assert 400 <= status < 500, f"exchange {number}: status {status}: {body}"
            validate_error(body)
        checked.append(body)
    return checked


def sdk_chunks_match_the_wire(chunks: list[Any], exchange: dict[str, Any]) -> dict[str, Any]:
    """The chunks the SDK handed over are the wire's, [DONE] aside; their fold."""
    wire = parse_sse(exchange["body"]).chunks
    assert chunks == [chunk for chunk in wire if chunk != DONE]
    return check_stream(chunks, include_usage=include_usage(exchange["request"]), wire=False)


def message_of(completion: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = completion["choices"][0]["message"]
    return message


def content_deltas(chunks: list[dict[str, Any]]) -> list[str]:
    return [
        choice["delta"]["content"]
        for chunk in chunks
        for choice in chunk["choices"]
        if choice["delta"].get("content")
    ]


# --------------------------------------------------------------------------- text


@pytest.mark.parametrize("model", ["sim-echo", "sim-reasoning"])
def test_create_and_stream(
    node_env: dict[str, str], bridge_server: BridgeServer, model: str
) -> None:
    result = run_client(node_env, "basics", bridge_server, model)
    created, streamed, helped = checked_wire(result)
    assert result["created"] == created  # the SDK's create() returns the JSON as it came
    assert message_of(created)["content"] == "You said: Hello from Node!"
    assert created["id"].startswith("chatcmpl-AM-") and created["model"] == model
    assert created["choices"][0]["finish_reason"] == "stop"
    usage = created["usage"]
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0

    # create({stream: true}) and the stream() helper: chunks as on the wire, and their fold
    # is the non-streaming answer (the same question, a deterministic model).
    raw = sdk_chunks_match_the_wire(result["raw_chunks"], result["wire"][1])
    helper = sdk_chunks_match_the_wire(result["helper_chunks"], result["wire"][2])
    for folded in (raw, helper, streamed, helped):
        assert comparable(folded) == comparable(created)
    assert len(content_deltas(result["raw_chunks"])) > 1
    final = result["helper_final"]
    assert message_of(final)["content"] == "You said: Hello from Node!"
    assert final["id"] == helper["id"]
    assert without_cached(final["usage"]) == without_cached(usage)

    reasoning = message_of(created).get("reasoning_content")
    if model == "sim-reasoning":
        assert reasoning and usage["completion_tokens_details"]["reasoning_tokens"] > 0
        assert message_of(raw)["reasoning_content"] == reasoning
    else:
        assert reasoning is None and "reasoning_content" not in message_of(raw)
    bridge_server.assert_alive()


def test_keepalive_comments_reach_no_sdk_chunk(
    node_env: dict[str, str], bridge_server_factory: StartServer
) -> None:
    """A model silent before and between its parts: the streams carry `:` comments, which the
    SDK skips (its chunks are the wire's data frames), and the answers stay valid."""
    pauses = [
        {"type": "pause", "seconds": 0.4},
        {"type": "text", "text": "Slow"},
        {"type": "pause", "seconds": 0.4},
        {"type": "text", "text": " hello."},
    ]
    server = bridge_server_factory(
        "--keepalive-seconds", "0.1", script={"rules": [{"match": "Hello", "reply": pauses}]}
    )
    result = run_client(node_env, "basics", server)
    checked = checked_wire(result)
    for exchange in result["wire"][1:]:
        assert parse_sse(exchange["body"]).keepalives >= 2
    sdk_chunks_match_the_wire(result["raw_chunks"], result["wire"][1])
    sdk_chunks_match_the_wire(result["helper_chunks"], result["wire"][2])
    assert [message_of(answer)["content"] for answer in checked] == ["Slow hello."] * 3
    server.assert_alive()


def test_token_limit_and_stop_sequences(
    node_env: dict[str, str], bridge_server: BridgeServer
) -> None:
    result = run_client(node_env, "limits", bridge_server)
    short, short_stream, stopped, stopped_stream = checked_wire(result)
    assert result["short"] == short and result["stopped"] == stopped
    # max_completion_tokens and max_tokens: the answer is cut, finish_reason "length".
    for answer in (short, short_stream):
        assert answer["choices"][0]["finish_reason"] == "length", answer
        assert 0 < answer["usage"]["completion_tokens"] <= 3
        assert "You said: Tell me about the lighthouse keeper.".startswith(
            message_of(answer)["content"]
        )
    # `stop` (a list, a string): cut before the sequence, finish_reason "stop".
    for answer in (stopped, stopped_stream):
        assert message_of(answer)["content"] == "You said: Tell me about the "
        assert answer["choices"][0]["finish_reason"] == "stop"
    sdk_chunks_match_the_wire(result["short_chunks"], result["wire"][1])
    sdk_chunks_match_the_wire(result["stopped_chunks"], result["wire"][3])
    bridge_server.assert_alive()


# --------------------------------------------------------------------------- tools


def test_tool_loop(node_env: dict[str, str], bridge_server: BridgeServer) -> None:
    result = run_client(node_env, "tools", bridge_server)
    first, second, runner_first, runner_second = checked_wire(result)
    assert sdk_chunks_match_the_wire(result["first_chunks"], result["wire"][0]) == first
    assert first["choices"][0]["finish_reason"] == "tool_calls"
    (call,) = message_of(first)["tool_calls"]
    assert call["function"]["name"] == "get_weather" and call["id"]
    assert json.loads(call["function"]["arguments"]) == {"city": "placeholder"}
    # The SDK's helper assembled the same call, and the client sent it back with the result.
    assert result["calls"] == [call]
    sent = result["wire"][1]["request"]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool"]
    assert sent[2]["tool_call_id"] == call["id"]
    answer = "The tool get_weather returned 27 characters."  # "Sunny, 21 C in placeholder."
    assert message_of(second)["content"] == answer and result["second"] == second
    assert second["choices"][0]["finish_reason"] == "stop"

    # runTools(): the SDK ran the loop itself over two plain create() calls.
    assert runner_first["choices"][0]["finish_reason"] == "tool_calls"
    assert message_of(runner_second)["content"] == answer == result["runner_content"]
    assert result["runner_roles"] == ["user", "assistant", "tool", "assistant"]
    bridge_server.assert_alive()


def test_several_tool_calls_stream_with_their_indexes(
    node_env: dict[str, str], bridge_server_factory: StartServer
) -> None:
    calls = [
        {"type": "tool_call", "name": "get_weather", "arguments": {"city": "Paris"}},
        {"type": "tool_call", "name": "get_weather", "arguments": {"city": "Lyon"}},
    ]
    script = {"rules": [{"match": "weather", "reply": [{"type": "text", "text": "Two."}, *calls]}]}
    server = bridge_server_factory(script=script)
    result = run_client(node_env, "tools", server)
    first = checked_wire(result)[0]
    folded = message_of(first)["tool_calls"]
    assert [json.loads(call["function"]["arguments"])["city"] for call in folded] == [
        "Paris",
        "Lyon",
    ]
    assert len({call["id"] for call in folded}) == 2
    assert result["calls"] == folded  # what the SDK's helper assembled
    server.assert_alive()


# --------------------------------------------------------------------------- structured output


def test_parse_with_a_json_schema_format(
    node_env: dict[str, str], bridge_server: BridgeServer
) -> None:
    result = run_client(node_env, "parse", bridge_server)
    created, streamed = checked_wire(result)
    assert json.loads(message_of(created)["content"]) == FORECAST
    assert result["parsed"] == FORECAST
    sdk_chunks_match_the_wire(result["stream_chunks"], result["wire"][1])
    assert json.loads(message_of(streamed)["content"]) == FORECAST
    assert result["stream_parsed"] == FORECAST
    assert result["wire"][0]["request"]["response_format"]["type"] == "json_schema"
    bridge_server.assert_alive()


# --------------------------------------------------------------------------- errors


def test_errors_reach_the_sdk_as_api_errors(
    node_env: dict[str, str], bridge_server_factory: StartServer
) -> None:
    failing = [{"type": "text", "text": "Partial answer"}, {"type": "error", "code": "Other"}]
    server = bridge_server_factory(script={"rules": [{"match": "Fail midway", "reply": failing}]})
    result = run_client(node_env, "errors", server)
    n, unknown, empty, failed = checked_wire(result)
    refused = result["refused"]
    for name, body, status, param in (
        ("n", n, 400, "n"),
        ("unknown_model", unknown, 404, "model"),
        ("no_messages", empty, 400, "messages"),
    ):
        assert refused[name]["status"] == status, refused[name]
        assert refused[name]["error"] == body["error"] and body["error"]["param"] == param

    # The failure came after the stream began: its chunks, then the error, which the SDK throws.
    assert failed["error"]["type"] == "server_error"
    assert "".join(content_deltas(result["stream_chunks"])) == "Partial answer"
    error = result["stream_error"]
    assert error is not None and error["error"] == failed["error"], error
    server.assert_alive()
