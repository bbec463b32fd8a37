"""Chat Completions errors end to end, with the real `openai` Python SDK against a real
`maestro-bridge serve`: statuses before streaming (400 naming the param, 401, 404, 429 with
Retry-After) in OpenAI's envelope, and a failure after the stream began (one error chunk)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest
from chat_http import ECHO, HELLO, checked, error_body, make_client
from chat_validation import DONE, check_failed_stream, parse_sse
from conftest import BridgeServer, StartServer
from openai import OpenAI
from plain_http import post


@pytest.fixture
def client(bridge_server: BridgeServer) -> Iterator[OpenAI]:
    with make_client(bridge_server) as sdk:
        yield sdk


def test_n_above_one_is_a_400_naming_n(client: OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(model="sim-echo", messages=HELLO, n=2)
    assert error_body(raised.value)["error"]["param"] == "n"
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="sim-echo", messages=HELLO, n=2, stream=True)


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"logprobs": True}, "logprobs"),
        ({"top_logprobs": 2}, "top_logprobs"),
        ({"modalities": ["text", "audio"]}, "modalities"),
        ({"audio": {"voice": "alloy", "format": "wav"}}, "audio"),
    ],
)
def test_unsupported_params_are_a_400_naming_them(
    client: OpenAI, extra: dict[str, Any], param: str
) -> None:
    with pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(model="sim-echo", messages=HELLO, extra_body=extra)
    assert error_body(raised.value)["error"]["param"] == param


def test_unknown_model_is_a_404(client: OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as raised:
        client.chat.completions.create(model="no-such-model", messages=HELLO)
    body = error_body(raised.value)
    assert body["error"]["code"] == "model_not_found" and body["error"]["param"] == "model"


def test_a_wrong_api_key_is_a_401(bridge_server_factory: StartServer) -> None:
    server = bridge_server_factory("--api-key", "right-key")
    with make_client(server, api_key="wrong-key") as client:
        with pytest.raises(openai.AuthenticationError) as raised:
            client.chat.completions.create(model="sim-echo", messages=HELLO)
        error_body(raised.value)
    with make_client(server, api_key="right-key") as client:
        answer = checked(client.chat.completions.create(model="sim-echo", messages=HELLO))
    assert answer.choices[0].message.content == ECHO


def test_rate_limit_is_a_429_with_retry_after(bridge_server_factory: StartServer) -> None:
    script = {
        "rules": [
            {"match": "busy", "reply": [{"type": "error", "code": "Blocked", "message": "Busy."}]}
        ]
    }
    server = bridge_server_factory(script=script)
    busy: list[Any] = [{"role": "user", "content": "busy"}]
    with make_client(server) as client:
        with pytest.raises(openai.RateLimitError) as raised:
            client.chat.completions.create(model="sim-echo", messages=busy)
        assert raised.value.response.headers["retry-after"]
        assert error_body(raised.value)["error"]["type"] == "rate_limit_error"
        with pytest.raises(openai.RateLimitError) as streamed:  # before streaming: a status
            list(client.chat.completions.create(model="sim-echo", messages=busy, stream=True))
        assert streamed.value.response.headers["retry-after"]


def test_a_failure_mid_stream_is_an_error_chunk(bridge_server_factory: StartServer) -> None:
    script = {
        "rules": [
            {
                "match": "fail",
                "reply": [
                    {"type": "text", "text": "Half an answer"},
                    {"type": "error", "code": "Other", "message": "The editor went away."},
                ],
            }
        ]
    }
    server = bridge_server_factory(script=script)
    body: dict[str, Any] = {
        "model": "sim-echo",
        "messages": [{"role": "user", "content": "fail now"}],
    }
    response = post(f"{server.base_url}/chat/completions", {**body, "stream": True})
    assert response.status_code == 200
    sse = parse_sse(response.text)
    # The error chunk ends the stream: no `data: [DONE]` after it.
    assert DONE not in sse.chunks
    error = check_failed_stream(sse.chunks)
    assert error["error"]["message"] == "The editor went away."
    assert sse.chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    with make_client(server) as client:
        with pytest.raises(openai.APIError, match=r"The editor went away\."):
            list(client.chat.completions.create(**body, stream=True))
        with pytest.raises(openai.InternalServerError) as raised:  # not streaming: a status
            client.chat.completions.create(**body)
    assert raised.value.status_code == 502
    assert error_body(raised.value)["error"]["code"] == "editor_error"


def test_no_free_model_slot_is_a_429_with_retry_after(bridge_server_factory: StartServer) -> None:
    script = {
        "rules": [
            {
                "match": "slow",
                "reply": [{"type": "pause", "seconds": 3}, {"type": "text", "text": "Late."}],
            }
        ]
    }
    server = bridge_server_factory(
        "--max-concurrent", "1", "--keepalive-seconds", "0.2", script=script
    )
    slow: list[Any] = [{"role": "user", "content": "slow"}]
    with make_client(server) as client:
        # Returns at the first keepalive: the stream holds the only slot until it is closed.
        holding = client.chat.completions.create(model="sim-echo", messages=slow, stream=True)
        try:
            with pytest.raises(openai.RateLimitError) as raised:
                client.chat.completions.create(model="sim-echo", messages=HELLO)
            assert raised.value.response.headers["retry-after"]
            assert error_body(raised.value)["error"]["code"] == "too_many_concurrent_requests"
        finally:
            holding.close()
