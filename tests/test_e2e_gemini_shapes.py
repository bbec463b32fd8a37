"""Every shape of answer a real `maestro-bridge serve` gives under `/v1beta`, over plain HTTP,
checked against the Gemini schema and stream rules (tests/gemini_validation.py): full answers,
SSE streams and array streams (folded by the test helper, not the bridge, and compared with the
full answer), counts, models, and errors before and after a stream began."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from conftest import BridgeServer, StartServer
from gemini_validation import (
    check_failed_stream,
    check_stream,
    comparable,
    parse_json_array,
    parse_sse,
    validate_answer,
    validate_count,
    validate_error,
    validate_model,
    validate_models,
)
from plain_http import Reply, post

WEATHER_TOOL = {
    "functionDeclarations": [
        {
            "name": "get_weather",
            "description": "The weather in a city.",
            "parameters": {
                "type": "OBJECT",
                "properties": {"city": {"type": "STRING"}},
                "required": ["city"],
            },
        }
    ]
}


def url(server: BridgeServer, path: str) -> str:
    return f"{server.root_url}/v1beta/{path}"


def get(address: str) -> Reply:
    try:
        with urllib.request.urlopen(address, timeout=30) as response:
            headers = {k.lower(): v for k, v in response.headers.items()}
            return Reply(response.status, headers, response.read().decode())
    except urllib.error.HTTPError as error:
        headers = {k.lower(): v for k, v in error.headers.items()}
        return Reply(error.code, headers, error.read().decode())


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "parts": [{"text": text}]}


def answer(server: BridgeServer, model: str, body: dict[str, Any]) -> dict[str, Any]:
    reply = post(url(server, f"models/{model}:generateContent"), body)
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("application/json")
    obj: dict[str, Any] = reply.json()
    validate_answer(obj)
    return obj


def sse_stream(server: BridgeServer, model: str, body: dict[str, Any]) -> Reply:
    reply = post(url(server, f"models/{model}:streamGenerateContent?alt=sse"), body)
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("text/event-stream")
    return reply


def all_three(server: BridgeServer, model: str, body: dict[str, Any]) -> dict[str, Any]:
    """The full answer; the SSE stream and the array stream each fold into it."""
    whole = answer(server, model, body)
    folded = check_stream(parse_sse(sse_stream(server, model, body).text).chunks)
    array = post(url(server, f"models/{model}:streamGenerateContent"), body)
    assert array.status_code == 200 and array.headers["content-type"].startswith("application/json")
    folded_array = check_stream(parse_json_array(array.text))
    assert comparable(folded) == comparable(whole) == comparable(folded_array)
    return whole


def parts_of(obj: dict[str, Any]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = obj["candidates"][0]["content"]["parts"]
    return parts


def test_text_answers_and_their_streams(bridge_server: BridgeServer) -> None:
    body = {"contents": [user("Hello")], "systemInstruction": {"parts": [{"text": "Be brief."}]}}
    whole = all_three(bridge_server, "sim-echo", body)
    assert parts_of(whole) == [{"text": "You said: Hello"}]
    assert whole["modelVersion"] == "sim-echo" and whole["responseId"].startswith("AM-")
    bridge_server.assert_alive()


@pytest.mark.parametrize("include", [True, False])
def test_thinking_is_a_thought_part_only_when_asked(
    bridge_server: BridgeServer, include: bool
) -> None:
    # A budget makes Copilot's Claude think at all; includeThoughts decides what is shown.
    config = {"thinkingConfig": {"includeThoughts": include, "thinkingBudget": 1024}}
    whole = all_three(
        bridge_server, "sim-reasoning", {"contents": [user("Hi")], "generationConfig": config}
    )
    thoughts = [part for part in parts_of(whole) if part.get("thought")]
    assert bool(thoughts) == include
    assert whole["usageMetadata"]["thoughtsTokenCount"] > 0


def test_a_function_call_and_its_answer(bridge_server: BridgeServer) -> None:
    body: dict[str, Any] = {
        "contents": [user("What is the weather in Paris?")],
        "tools": [WEATHER_TOOL],
    }
    first = all_three(bridge_server, "sim-echo", body)
    [call] = [part["functionCall"] for part in parts_of(first) if "functionCall" in part]
    assert call["name"] == "get_weather" and set(call["args"]) == {"city"}
    result = {
        "functionResponse": {
            "id": call["id"],
            "name": call["name"],
            "response": {"output": "Sunny."},
        }
    }
    body["contents"] += [first["candidates"][0]["content"], {"role": "user", "parts": [result]}]
    second = all_three(bridge_server, "sim-echo", body)
    assert parts_of(second)[0]["text"].startswith("The tool get_weather returned")


def test_max_output_tokens_ends_with_max_tokens(bridge_server: BridgeServer) -> None:
    body = {
        "contents": [user("Tell me about the lighthouse keeper.")],
        "generationConfig": {"maxOutputTokens": 3},
    }
    whole = all_three(bridge_server, "sim-echo", body)
    assert whole["candidates"][0]["finishReason"] == "MAX_TOKENS"
    assert 0 < whole["usageMetadata"]["candidatesTokenCount"] <= 3


def test_stop_sequences_and_json_answers(bridge_server: BridgeServer) -> None:
    stop = {"stopSequences": ["lighthouse"]}
    body = {"contents": [user("Tell me about the lighthouse keeper.")], "generationConfig": stop}
    whole = all_three(bridge_server, "sim-echo", body)
    assert parts_of(whole) == [{"text": "You said: Tell me about the "}]
    assert whole["candidates"][0]["finishReason"] == "STOP"
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "sunny": {"type": "boolean"}},
        "required": ["city", "sunny"],
    }
    config = {"responseMimeType": "application/json", "responseJsonSchema": schema}
    body = {"contents": [user("The weather, as JSON.")], "generationConfig": config}
    whole = all_three(bridge_server, "sim-echo", body)
    assert set(json.loads(parts_of(whole)[0]["text"])) == {"city", "sunny"}


def test_a_wrong_key_is_refused_in_googles_envelope(bridge_server_factory: StartServer) -> None:
    server = bridge_server_factory("--api-key", "right-key")
    body = {"contents": [user("Hello")]}
    path = "models/sim-echo:generateContent"
    for headers, query in (({}, ""), ({"x-goog-api-key": "wrong"}, ""), ({}, "?key=wrong")):
        reply = post(url(server, path) + query, body, headers=headers)
        assert reply.status_code == 401, reply.text
        validate_error(reply.json(), 401)
    for headers, query in (({"x-goog-api-key": "right-key"}, ""), ({}, "?key=right-key")):
        reply = post(url(server, path) + query, body, headers=headers)
        assert reply.status_code == 200, reply.text
        validate_answer(reply.json())
    assert "right-key" not in server.stderr_text() and "wrong" not in server.stderr_text()


def test_count_and_models(bridge_server: BridgeServer) -> None:
    reply = post(url(bridge_server, "models/sim-echo:countTokens"), {"contents": [user("Hello")]})
    assert reply.status_code == 200, reply.text
    validate_count(reply.json())
    assert reply.json()["totalTokens"] > 0
    listed = get(url(bridge_server, "models"))
    assert listed.status_code == 200, listed.text
    validate_models(listed.json())
    names = [model["name"] for model in listed.json()["models"]]
    assert "models/sim-echo" in names
    for name in ("sim-echo", "models/sim-echo"):
        one = get(url(bridge_server, name if name.startswith("models/") else f"models/{name}"))
        assert one.status_code == 200, one.text
        validate_model(one.json())
        assert one.json()["name"] == "models/sim-echo"
    page = get(url(bridge_server, "models?pageSize=1"))
    assert page.status_code == 200, page.text
    validate_models(page.json())
    assert len(page.json()["models"]) == 1 and page.json().get("nextPageToken")


ERRORS = {
    "unknown model": ("models/nope:generateContent", {"contents": [user("x")]}, 404),
    "two candidates": (
        "models/sim-echo:generateContent",
        {"contents": [user("x")], "generationConfig": {"candidateCount": 2}},
        400,
    ),
    "no contents": ("models/sim-echo:generateContent", {}, 400),
    "contents not a list": ("models/sim-echo:streamGenerateContent?alt=sse", {"contents": 1}, 400),
    "unknown action": ("models/sim-echo:embedContent", {"contents": [user("x")]}, 404),
    "bad count body": ("models/sim-echo:countTokens", {"contents": "x"}, 400),
}


@pytest.mark.parametrize("case", ERRORS.values(), ids=ERRORS.keys())
def test_errors_before_the_answer(bridge_server: BridgeServer, case: tuple[str, Any, int]) -> None:
    path, body, status = case
    reply = post(url(bridge_server, path), body)
    assert reply.status_code == status, reply.text
    assert reply.headers["content-type"].startswith("application/json")
    validate_error(reply.json(), status)


def test_not_json_and_an_unknown_model_get_google_errors(bridge_server: BridgeServer) -> None:
    reply = post(url(bridge_server, "models/sim-echo:generateContent"), raw=b"{not json")
    assert reply.status_code == 400
    validate_error(reply.json(), 400)
    missing = get(url(bridge_server, "models/nope"))
    assert missing.status_code == 404
    validate_error(missing.json(), 404)


def test_an_error_after_the_stream_began_is_one_data_line(
    bridge_server_factory: StartServer,
) -> None:
    # The bridge holds its latest chunk (the last one carries the finish) until more comes or
    # the model is silent for a keepalive: the pause, with a short keepalive, sends the text
    # before the failure. Otherwise the failure comes first: a 502 before any chunk.
    failing = [
        {"type": "text", "text": "Partial answer"},
        {"type": "pause", "seconds": 0.5},
        {"type": "error", "code": "Other"},
    ]
    server = bridge_server_factory(
        "--keepalive-seconds", "0.1", script={"rules": [{"match": "Fail midway", "reply": failing}]}
    )
    body = {"contents": [user("Fail midway")]}
    chunks = parse_sse(sse_stream(server, "sim-echo", body).text).chunks
    error = check_failed_stream(chunks)
    assert error["error"]["code"] >= 500
    assert "".join(p.get("text", "") for c in chunks[:-1] for p in parts_of(c)) == "Partial answer"
    reply = post(url(server, "models/sim-echo:generateContent"), body)
    validate_error(reply.json(), reply.status_code)
    server.assert_alive()


def test_keepalives_are_blank_lines(bridge_server_factory: StartServer) -> None:
    slow = [
        {"type": "pause", "seconds": 0.4},
        {"type": "text", "text": "Slow"},
        {"type": "pause", "seconds": 0.4},
        {"type": "text", "text": " hello."},
    ]
    server = bridge_server_factory(
        "--keepalive-seconds", "0.1", script={"rules": [{"match": "Hello", "reply": slow}]}
    )
    body = {"contents": [user("Hello")]}
    parsed = parse_sse(sse_stream(server, "sim-echo", body).text)  # fails on `:` comments
    assert parsed.keepalives >= 2
    assert parts_of(check_stream(parsed.chunks)) == [{"text": "Slow hello."}]
    assert json.dumps(parts_of(answer(server, "sim-echo", body))) == '[{"text": "Slow hello."}]'
    server.assert_alive()
