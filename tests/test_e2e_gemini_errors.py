"""Gemini errors end to end, with Google's real `google-genai` Python SDK against a real
`maestro-bridge serve`: statuses before streaming (400 naming the field, 401 by header or
`?key=`, 404, 429 with Retry-After and RetryInfo) in Google's envelope, and a failure after the
stream began (one `data: {"error": ...}` line that ends it)."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import StartServer
from gemini_http import ECHO, HELLO, checked, make_client, model_url, pause, script_rule, text
from gemini_validation import check_failed_stream, parse_sse, validate_error
from google.genai import errors, types
from plain_http import post

BODY = {"contents": [{"role": "user", "parts": [{"text": HELLO}]}]}


def error_of(exc: errors.APIError) -> dict[str, Any]:
    """The envelope the SDK parsed, validated against the schema and the HTTP status."""
    body = {"error": {"code": exc.code, "message": exc.message, "status": exc.status}}
    if exc.details and isinstance(exc.details, dict):
        body = exc.details
    validate_error(body, exc.code)
    return body


def test_a_refused_param_is_a_400_naming_it(bridge_server_factory: StartServer) -> None:
    server = bridge_server_factory()
    with make_client(server) as client:
        config = types.GenerateContentConfig(candidate_count=2)
        with pytest.raises(errors.ClientError) as raised:
            client.models.generate_content(model="sim-echo", contents=HELLO, config=config)
        assert raised.value.code == 400 and raised.value.status == "INVALID_ARGUMENT"
        body = error_of(raised.value)
        assert "candidateCount" in body["error"]["message"]
        with pytest.raises(errors.ClientError):  # before streaming: a status too
            list(
                client.models.generate_content_stream(
                    model="sim-echo", contents=HELLO, config=config
                )
            )
    reply = post(model_url(server, "sim-echo", "generateContent"), {"contents": "nope"})
    assert reply.status_code == 400
    validate_error(reply.json(), 400)


def test_unknown_model_is_a_404(bridge_server_factory: StartServer) -> None:
    server = bridge_server_factory()
    with make_client(server) as client:
        with pytest.raises(errors.ClientError) as raised:
            client.models.generate_content(model="no-such-model", contents=HELLO)
        assert raised.value.code == 404 and raised.value.status == "NOT_FOUND"
        error_of(raised.value)
        with pytest.raises(errors.ClientError) as missing:
            client.models.get(model="no-such-model")
        assert missing.value.code == 404
    reply = post(model_url(server, "sim-echo", "embedContent"), BODY)
    assert reply.status_code == 404
    validate_error(reply.json(), 404)


def test_a_wrong_api_key_is_a_401_by_header_and_by_query(
    bridge_server_factory: StartServer,
) -> None:
    key = "right-key-7f3a9c"
    server = bridge_server_factory("--api-key", key)
    with make_client(server, api_key="wrong-key") as client:
        with pytest.raises(errors.ClientError) as raised:
            client.models.generate_content(model="sim-echo", contents=HELLO)
        assert raised.value.code == 401 and raised.value.status == "UNAUTHENTICATED"
        error_of(raised.value)
    with make_client(server, api_key=key) as client:
        assert (
            checked(client.models.generate_content(model="sim-echo", contents=HELLO)).text == ECHO
        )
    url = model_url(server, "sim-echo", "generateContent")
    wrong = post(f"{url}?key=wrong-query-key-5d1e", BODY)
    assert wrong.status_code == 401
    validate_error(wrong.json(), 401)
    right = post(f"{url}?key={key}", BODY)
    assert right.status_code == 200, right.text
    # `?key=` is only read under /v1beta: elsewhere a key in the URL is not a key.
    assert post(f"{server.base_url}/chat/completions?key={key}", {}).status_code == 401
    assert "right-key-7f3a9c" not in server.stderr_text()
    assert "wrong-query-key-5d1e" not in server.stderr_text()


def test_rate_limit_is_a_429_with_retry_after(bridge_server_factory: StartServer) -> None:
    script = {
        "rules": [script_rule("busy", {"type": "error", "code": "Blocked", "message": "Busy."})]
    }
    server = bridge_server_factory(script=script)
    with make_client(server) as client:
        with pytest.raises(errors.ClientError) as raised:
            client.models.generate_content(model="sim-echo", contents="busy")
        assert raised.value.code == 429 and raised.value.status == "RESOURCE_EXHAUSTED"
        assert raised.value.response is not None
        with pytest.raises(errors.ClientError) as streamed:  # before streaming: a status
            list(client.models.generate_content_stream(model="sim-echo", contents="busy"))
        assert streamed.value.code == 429
    busy = {"contents": [{"parts": [{"text": "busy"}]}]}
    reply = post(model_url(server, "sim-echo", "generateContent"), busy)
    assert reply.status_code == 429 and reply.headers["retry-after"]
    body = reply.json()
    validate_error(body, 429)
    retry = [d for d in body["error"]["details"] if d["@type"].endswith("RetryInfo")]
    assert retry == [
        {
            "@type": "type.googleapis.com/google.rpc.RetryInfo",
            "retryDelay": f"{reply.headers['retry-after']}s",
        }
    ]


def test_a_failure_mid_stream_is_an_error_line(bridge_server_factory: StartServer) -> None:
    script = {
        "rules": [
            script_rule(
                "fail",
                text("Half an answer"),
                pause(0.6),
                {"type": "error", "code": "Other", "message": "The editor went away."},
            )
        ]
    }
    # The last batch's chunk is held for the finish until the next batch or a keepalive tick
    # (bridge/gemini/chunks.py): the tick sends it, so the failure comes after the stream began.
    server = bridge_server_factory("--keepalive-seconds", "0.2", script=script)
    body = {"contents": [{"parts": [{"text": "fail now"}]}]}
    reply = post(model_url(server, "sim-echo", "streamGenerateContent", "?alt=sse"), body)
    assert reply.status_code == 200
    sse = parse_sse(reply.text)
    error = check_failed_stream(sse.chunks)
    assert error["error"]["message"] == "The editor went away."
    assert sse.chunks[0]["candidates"][0]["content"]["parts"] == [{"text": "Half an answer"}]
    with make_client(server) as client:
        seen: list[str] = []
        with pytest.raises(errors.ServerError) as raised:
            for chunk in client.models.generate_content_stream(
                model="sim-echo", contents="fail now"
            ):
                seen.append(chunk.text or "")
        assert seen == ["Half an answer"] and raised.value.code == 502
        with pytest.raises(errors.ServerError) as plain:  # not streaming: a status
            client.models.generate_content(model="sim-echo", contents="fail now")
    assert plain.value.code == 502 and plain.value.status == "UNAVAILABLE"
