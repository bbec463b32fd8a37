"""Any JSON body against a real `serve` on `/v1/chat/completions`: never a 5xx.

The request fuzz (tests/test_chat_completions_request_fuzz.py) checks the planning functions;
this sends the same bodies through the real route (body reading, shape limits, the model's
resolution, the schema check, the answer), with the simulated model behind it. Every answer
is a 2xx with a completion (or a stream ending in `[DONE]`), or a 4xx in OpenAI's envelope.
"""

from __future__ import annotations

import http.client
import json
from collections import Counter
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from conftest import BridgeServer, running_bridge_server
from hypothesis import HealthCheck, Phase, given, settings
from test_chat_completions_request_fuzz import bodies, json_values

PATH = "/v1/chat/completions"
MODEL = "sim-echo"  # the simulated model: it answers with the last message's text


@pytest.fixture(scope="module")
def server() -> Iterator[BridgeServer]:
    with running_bridge_server("--idle-timeout", "10") as running:
        yield running


def post(server: BridgeServer, body: Any) -> tuple[int, str, bytes]:
    parts = urlsplit(server.root_url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port or 0, timeout=20)
    try:
        conn.request(
            "POST", PATH, body=json.dumps(body), headers={"Content-Type": "application/json"}
        )
        resp = conn.getresponse()
        return resp.status, resp.getheader("Content-Type") or "", resp.read()
    finally:
        conn.close()


def with_real_model(body: dict[str, Any]) -> dict[str, Any]:
    return {**body, "model": MODEL} if body.get("model") == "m" else body


def check_answer(status: int, content_type: str, data: bytes) -> None:
    assert status < 500, data[:500]
    if status >= 400:
        error = json.loads(data)["error"]
        assert isinstance(error["message"], str) and error["message"]
        assert error["type"] == "invalid_request_error" or status != 400
        return
    assert status == 200
    if content_type.startswith("text/event-stream"):
        frames = [
            line[5:].strip() for line in data.decode().splitlines() if line.startswith("data:")
        ]
        assert frames and frames[-1] == "[DONE]"
        for frame in frames[:-1]:
            assert json.loads(frame)["object"] == "chat.completion.chunk"
    else:
        assert json.loads(data)["object"] == "chat.completion"


FUZZ = settings(
    max_examples=150,
    deadline=None,
    phases=[Phase.generate],  # no shrinking: a failure shows its body as it was
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def test_any_body_is_answered_or_a_4xx(server: BridgeServer) -> None:
    seen: Counter[int] = Counter()

    @FUZZ
    @given(bodies.map(with_real_model))
    def one(body: dict[str, Any]) -> None:
        status, content_type, data = post(server, body)
        seen[status] += 1
        check_answer(status, content_type, data)

    one()
    print(f"\nchat fuzz statuses: {dict(sorted(seen.items()))}")
    # The fuzz must reach answers, not only refusals (and refusals too).
    assert seen[200] >= 10 and seen[400] >= 10, seen


@FUZZ
@given(json_values)
def test_any_json_value_as_the_whole_body(server: BridgeServer, body: Any) -> None:
    check_answer(*post(server, body))


def test_a_plain_request_is_answered(server: BridgeServer) -> None:
    status, _, data = post(
        server, {"model": MODEL, "messages": [{"role": "user", "content": "hello there"}]}
    )
    assert status == 200, data
    assert "hello there" in json.loads(data)["choices"][0]["message"]["content"]


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"n": 3}, "n"),
        (
            {"messages": [{"role": "user", "content": [{"type": "input_audio"}]}]},
            "messages[0].content[0].input_audio",
        ),
        (
            {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]},
            "messages[0].content[0].image_url.url",
        ),
        ({"stop": ["a"] * 100}, "stop"),
        (
            {"response_format": {"type": "json_schema", "json_schema": {"schema": {"type": 3}}}},
            "response_format.json_schema.schema",
        ),
    ],
)
def test_a_400_names_the_field_over_http(
    server: BridgeServer, extra: dict[str, Any], param: str
) -> None:
    body = {"model": MODEL, "messages": [{"role": "user", "content": "hi"}], **extra}
    status, _, data = post(server, body)
    assert status == 400, data
    assert json.loads(data)["error"]["param"] == param


def test_an_unknown_model_is_a_404(server: BridgeServer) -> None:
    status, _, data = post(
        server, {"model": "no-such", "messages": [{"role": "user", "content": "x"}]}
    )
    assert status == 404 and json.loads(data)["error"]["message"]
