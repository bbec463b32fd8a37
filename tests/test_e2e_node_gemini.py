"""End to end with Google's real @google/genai Node SDK (what Gemini CLI is built on) as a
client of a real `maestro-bridge serve`.

tests/node/gemini_client.cjs runs the SDK (pinned by tests/node/package-lock.json, installed by
scripts/test into `.cache/node-sdk`) and prints what the SDK gave back and every HTTP exchange
as it crossed the wire. Here both are checked against the Gemini schema and stream rules
(tests/gemini_validation.py): every JSON answer, count, model list and error body, every SSE
stream (folded by the test helper, not the bridge), then what the SDK made of them.

The SDK is looked up as in tests/test_e2e_node_chat.py: without it (or `node`) the tests fail
when $CI is set and are skipped otherwise.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import REPO_ROOT, BridgeServer, StartServer
from gemini_validation import (
    check_failed_stream,
    check_stream,
    comparable,
    parse_sse,
    validate_answer,
    validate_count,
    validate_error,
    validate_model,
    validate_models,
)
from node_clients import node_env_with, run_node_client

CLIENT = REPO_ROOT / "tests" / "node" / "gemini_client.cjs"
SDK_VERSION = "3.1.0"  # tests/node/package.json


@pytest.fixture(scope="module")
def node_env() -> dict[str, str]:
    return node_env_with(("@google/genai",), "the @google/genai Node SDK")


def run_client(
    node_env: dict[str, str], scenario: str, server: BridgeServer, model: str = "sim-echo"
) -> dict[str, Any]:
    output = run_node_client(CLIENT, node_env, scenario, server, model)
    assert output["sdk"] == SDK_VERSION
    return output


def checked(exchange: dict[str, Any]) -> Any:
    """One exchange, checked by what it was: a stream (its fold, or the error that ended it),
    an error, a count, models or an answer."""
    url, status, kind = exchange["url"], exchange["status"], exchange["content_type"] or ""
    assert "/v1beta/" in url, url
    if kind.startswith("text/event-stream"):
        assert status == 200 and ":streamGenerateContent?alt=sse" in url, (status, url)
        chunks = parse_sse(exchange["body"]).chunks
        if any("error" in chunk for chunk in chunks):
            return check_failed_stream(chunks)
        return check_stream(chunks)
    assert kind.startswith("application/json"), (url, kind)
    body = json.loads(exchange["body"])
    if status != 200:
        validate_error(body, status)
    elif url.split("?")[0].endswith(":countTokens"):
        validate_count(body)
    elif url.split("?")[0].endswith("/v1beta/models"):
        validate_models(body)
    elif exchange["method"] == "GET":
        validate_model(body)
    else:
        validate_answer(body)
    return body


def checked_wire(result: dict[str, Any]) -> list[Any]:
    return [checked(exchange) for exchange in result["wire"]]


def parts_of(answer: dict[str, Any]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = answer["candidates"][0]["content"]["parts"]
    return parts


def sdk_chunks_match_the_wire(chunks: list[dict[str, Any]], exchange: dict[str, Any]) -> None:
    """The SDK handed over one chunk per `data:` line, with the same parts and finish."""
    wire = parse_sse(exchange["body"]).chunks
    assert len(chunks) == len(wire)
    for ours, theirs in zip(chunks, wire, strict=True):
        assert ours["responseId"] == theirs["responseId"]
        assert ours["candidates"][0].get("content") == theirs["candidates"][0].get("content")
        assert ours["candidates"][0].get("finishReason") == theirs["candidates"][0].get(
            "finishReason"
        )


@pytest.mark.parametrize("model", ["sim-echo", "sim-reasoning"])
def test_generate_stream_count_and_models(
    node_env: dict[str, str], bridge_server: BridgeServer, model: str
) -> None:
    result = run_client(node_env, "basics", bridge_server, model)
    answer, streamed, count, models, one = checked_wire(result)
    assert result["text"] == "You said: Hello from Node!"
    assert parts_of(answer) == [{"text": "You said: Hello from Node!"}]  # thoughts not asked
    assert comparable(streamed) == comparable(answer)
    assert "".join(result["chunk_texts"]) == result["text"]
    sdk_chunks_match_the_wire(result["chunks"], result["wire"][1])
    assert result["answer"]["usageMetadata"] == answer["usageMetadata"]
    assert result["answer"]["responseId"] == answer["responseId"]
    # The request the SDK built: its systemInstruction as a Content.
    sent = result["wire"][0]["request"]
    assert sent["systemInstruction"]["parts"] == [{"text": "Answer briefly."}]
    assert result["count"]["totalTokens"] == count["totalTokens"] > 0
    names = [entry["name"] for entry in result["models"]]
    assert names == [entry["name"] for entry in models["models"]]
    assert f"models/{model}" in names
    assert result["model"]["name"] == one["name"] == f"models/{model}"
    assert result["model"]["inputTokenLimit"] == one["inputTokenLimit"]
    bridge_server.assert_alive()


def test_keepalive_blank_lines_reach_no_sdk_chunk(
    node_env: dict[str, str], bridge_server_factory: StartServer
) -> None:
    """A model silent before and between its parts: the stream carries blank lines, which the
    SDK skips (one SDK chunk per data line), and the answers stay valid and equal."""
    slow = [
        {"type": "pause", "seconds": 0.4},
        {"type": "text", "text": "Slow"},
        {"type": "pause", "seconds": 0.4},
        {"type": "text", "text": " hello."},
    ]
    server = bridge_server_factory(
        "--keepalive-seconds", "0.1", script={"rules": [{"match": "Hello", "reply": slow}]}
    )
    result = run_client(node_env, "basics", server)
    answer, streamed = checked_wire(result)[:2]
    assert parse_sse(result["wire"][1]["body"]).keepalives >= 2
    sdk_chunks_match_the_wire(result["chunks"], result["wire"][1])
    assert result["text"] == "Slow hello." == "".join(result["chunk_texts"])
    assert comparable(streamed) == comparable(answer)
    server.assert_alive()


def test_the_sdk_opens_a_bridge_that_wants_a_key(
    node_env: dict[str, str], bridge_server_factory: StartServer
) -> None:
    """The SDK sends its apiKey as `x-goog-api-key` (its only way with an API key)."""
    server = bridge_server_factory("--api-key", "gemini-test-key")
    env = {**node_env, "MAESTRO_TEST_GEMINI_KEY": "gemini-test-key"}
    result = run_client(env, "basics", server)
    assert [exchange["status"] for exchange in result["wire"]] == [200] * 5
    checked_wire(result)
    assert "gemini-test-key" not in server.stderr_text()
    server.assert_alive()


def test_function_call_round_trip(node_env: dict[str, str], bridge_server: BridgeServer) -> None:
    result = run_client(node_env, "tools", bridge_server)
    streamed, first, second = checked_wire(result)
    assert comparable(streamed) == comparable(first)
    [call] = [part["functionCall"] for part in parts_of(first) if "functionCall" in part]
    assert call["name"] == "get_weather" and set(call["args"]) == {"city"}
    # What the SDK made of it: its functionCalls, streamed and whole.
    assert result["calls"] == [call]
    assert [entry["name"] for entry in result["streamed_calls"]] == ["get_weather"]
    # The client sent the call back with its result, paired by id.
    contents = result["wire"][2]["request"]["contents"]
    assert [content["role"] for content in contents] == ["user", "model", "user"]
    [response] = contents[2]["parts"]
    assert response["functionResponse"]["id"] == call["id"]
    assert second["candidates"][0]["finishReason"] == "STOP"
    assert result["second_text"].startswith("The tool get_weather returned")
    assert result["second_text"] == parts_of(second)[0]["text"]
    bridge_server.assert_alive()


def test_errors_reach_the_sdk_as_api_errors(
    node_env: dict[str, str], bridge_server_factory: StartServer
) -> None:
    failing = [
        {"type": "text", "text": "Partial answer"},
        {"type": "pause", "seconds": 0.5},  # a keepalive sends the held text before the failure
        {"type": "error", "code": "Other"},
    ]
    server = bridge_server_factory(
        "--keepalive-seconds", "0.1", script={"rules": [{"match": "Fail midway", "reply": failing}]}
    )
    result = run_client(node_env, "errors", server)
    unknown, two, image, failed = checked_wire(result)
    refused = result["refused"]
    for name, body, status in (
        ("unknown_model", unknown, 404),
        ("two_candidates", two, 400),
        ("image_answer", image, 400),
    ):
        assert refused[name]["status"] == status == body["error"]["code"], refused[name]
        assert json.loads(refused[name]["message"]) == body  # the SDK keeps the envelope
    # The failure came after the stream began: its chunks, then the error the SDK throws.
    texts = [part.get("text", "") for chunk in result["stream_chunks"] for part in parts_of(chunk)]
    assert "".join(texts) == "Partial answer", result["wire"][-1]
    error = result["stream_error"]
    assert error is not None and error["status"] == failed["error"]["code"], error
    assert failed["error"]["message"] in error["message"]
    server.assert_alive()
