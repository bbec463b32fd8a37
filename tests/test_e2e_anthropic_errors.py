"""Errors of the Anthropic dialect end to end, with the real `anthropic` SDK: each has the
Messages API's status, exception class and envelope (checked by tests/anthropic_validation.py);
a failure after the stream started is an `error` event that ends it."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import anthropic
import pytest
from anthropic import Anthropic
from anthropic_http import error_body, make_client, text_of
from anthropic_validation import check_stream, parse_sse, validate_error
from conftest import BridgeServer, StartServer
from plain_http import post

HELLO: list[Any] = [{"role": "user", "content": "Hello from the SDK!"}]


@pytest.fixture
def client(bridge_server: BridgeServer) -> Iterator[Anthropic]:
    with make_client(bridge_server) as sdk:
        yield sdk


def test_bad_request_is_a_400(client: Anthropic, bridge_server: BridgeServer) -> None:
    bad_role: list[Any] = [{"role": "tool", "content": "x"}]
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(model="sim-echo", max_tokens=10, messages=bad_role)
    assert error_body(caught.value)["error"]["type"] == "invalid_request_error"
    response = post(f"{bridge_server.base_url}/messages", raw=b"{not json")
    assert response.status_code == 400
    validate_error(response.json())


def test_unknown_model_is_not_found(client: Anthropic) -> None:
    with pytest.raises(anthropic.NotFoundError) as caught:
        client.messages.create(model="claude-nope", max_tokens=10, messages=HELLO)
    assert error_body(caught.value)["error"]["type"] == "not_found_error"
    with pytest.raises(anthropic.NotFoundError):
        client.messages.count_tokens(model="claude-nope", messages=HELLO)


def test_wrong_key_is_a_401(bridge_server_factory: StartServer) -> None:
    server = bridge_server_factory("--api-key", "s3cret")
    with (
        make_client(server, "wrong") as client,
        pytest.raises(anthropic.AuthenticationError) as caught,
    ):
        client.messages.create(model="sim-echo", max_tokens=10, messages=HELLO)
    assert error_body(caught.value)["error"]["type"] == "authentication_error"
    with make_client(server, "s3cret") as client:  # sent as x-api-key
        assert text_of(client.messages.create(model="sim-echo", max_tokens=50, messages=HELLO))
    bearer = Anthropic(base_url=server.root_url, auth_token="s3cret", max_retries=0)
    with bearer:
        assert bearer.models.list().data


def test_failure_mid_stream_is_an_error_event(bridge_server_factory: StartServer) -> None:
    script = {
        "rules": [
            {
                "match": "break",
                "reply": [
                    {"type": "text", "text": "Start"},
                    {"type": "error", "code": "Other", "message": "Lost."},
                ],
            },
            {
                "match": "blocked",
                "reply": [{"type": "error", "code": "Blocked", "message": "Quota."}],
            },
        ]
    }
    server = bridge_server_factory(script=script)
    body = {"model": "sim-echo", "max_tokens": 50, "stream": True}
    response = post(
        f"{server.base_url}/messages", {**body, "messages": [{"role": "user", "content": "break"}]}
    )
    result = check_stream(parse_sse(response.text))
    assert result.error == {"type": "error", "error": {"type": "api_error", "message": "Lost."}}
    with make_client(server) as client:
        with (
            pytest.raises(anthropic.APIStatusError),
            client.messages.stream(
                model="sim-echo", max_tokens=50, messages=[{"role": "user", "content": "break"}]
            ) as stream,
        ):
            stream.get_final_message()
        with pytest.raises(anthropic.RateLimitError) as caught:
            client.messages.create(
                model="sim-echo", max_tokens=50, messages=[{"role": "user", "content": "blocked"}]
            )
        assert error_body(caught.value)["error"]["type"] == "rate_limit_error"
        assert caught.value.response.headers["retry-after"]
        with pytest.raises(anthropic.InternalServerError) as failed:
            client.messages.create(
                model="sim-echo", max_tokens=50, messages=[{"role": "user", "content": "break"}]
            )
        assert failed.value.status_code == 502
        assert error_body(failed.value)["error"]["type"] == "api_error"


def test_errors_outside_the_dialect_use_its_envelope_for_its_clients(
    bridge_server: BridgeServer,
) -> None:
    """Claude Code sends `anthropic-version` on every request: an unknown path answers in
    Anthropic's envelope; under /v1/messages any error does."""
    marked = post(
        f"{bridge_server.base_url}/nowhere", {}, headers={"anthropic-version": "2023-06-01"}
    )
    assert marked.status_code == 404
    validate_error(marked.json())
    assert marked.json()["error"]["type"] == "not_found_error"
    unmarked = post(f"{bridge_server.base_url}/nowhere", {})
    assert unmarked.status_code == 404 and "type" not in unmarked.json()  # OpenAI's shape
    under = post(f"{bridge_server.base_url}/messages/nope", {})
    assert under.status_code == 404 and under.json()["type"] == "error"
    for path in ("/messages", "/v1/messages/count_tokens"):
        wrong = post(f"{bridge_server.root_url}{path}", [1, 2])
        assert wrong.status_code == 400, wrong.text
        validate_error(wrong.json())


def test_the_slot_cap_is_a_rate_limit_error(bridge_server_factory: StartServer) -> None:
    reply = [
        {"type": "text", "text": "Hi"},
        {"type": "pause", "seconds": 2},
        {"type": "text", "text": " there"},
    ]
    server = bridge_server_factory(
        "--max-concurrent", "1", script={"rules": [{"match": "slow", "reply": reply}]}
    )
    slow: dict[str, Any] = {
        "model": "sim-echo",
        "max_tokens": 50,
        "messages": [{"role": "user", "content": "slow"}],
    }
    request = urllib.request.Request(
        f"{server.base_url}/messages",
        data=json.dumps({**slow, "stream": True}).encode(),
        headers={"content-type": "application/json"},
    )
    # The stream's headers come with its first event: from then on it holds the one slot.
    with urllib.request.urlopen(request, timeout=30) as streaming:
        second = post(f"{server.base_url}/messages/count_tokens", slow)
        assert second.status_code == 429, second.text
        assert second.json()["error"]["type"] == "rate_limit_error"
        assert second.headers["retry-after"]
        validate_error(second.json())
        message = check_stream(parse_sse(streaming.read().decode())).message
    assert message is not None and message["content"][0]["text"] == "Hi there"


@pytest.mark.parametrize(
    "body",
    [
        None,
        "text",
        {},
        {"model": 5, "max_tokens": 10, "messages": HELLO},
        {"model": "sim-echo", "max_tokens": -1, "messages": HELLO},
        {"model": "sim-echo", "max_tokens": "many", "messages": HELLO},
        {"model": "sim-echo", "max_tokens": 10, "messages": "hello"},
        {"model": "sim-echo", "max_tokens": 10, "messages": []},
        {"model": "sim-echo", "max_tokens": 10, "messages": HELLO, "stop_sequences": "END"},
        {"model": "sim-echo", "max_tokens": 10, "messages": HELLO, "stop_sequences": [1]},
        {"model": "sim-echo", "max_tokens": 10, "messages": [{"role": "user", "content": [{}]}]},
        {"model": "sim-echo", "max_tokens": 10, "messages": HELLO, "tools": [{"name": 1}]},
    ],
)
def test_bad_bodies_are_400s_in_the_envelope(bridge_server: BridgeServer, body: Any) -> None:
    for path in ("/v1/messages", "/v1/messages/count_tokens"):
        if path.endswith("count_tokens") and isinstance(body, dict) and body.get("max_tokens"):
            continue  # a count takes any max_tokens (it is not one of its parameters)
        reply = post(bridge_server.root_url + path, body)
        assert reply.status_code == 400, (path, reply.text)
        validate_error(reply.json())
        assert reply.json()["error"]["type"] == "invalid_request_error"
