"""Bad input at scale: thousands of random and malformed bodies against a real `serve`.

Every answer must be a 2xx or 4xx (never 5xx), every error must be in OpenAI's envelope, every
success must be a valid Response (or a valid event stream), and the server must be alive and
serving afterwards. Bounded: a fixed number of examples per property, no shrinking database.
"""

from __future__ import annotations

import http.client
import json
from collections import Counter
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from conftest import BridgeServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spec_validation import (
    parse_sse,
    validate_response,
    validate_stream,
    validate_websocket_error,
)
from websockets.sync.client import connect

STATUSES: Counter[int] = Counter()  # every status seen, for the closing report
TERMINAL_TYPES = ("response.completed", "response.incomplete", "response.failed")


class Client:
    """One keep-alive connection (reopened when the server closes it)."""

    def __init__(self, server: BridgeServer) -> None:
        parts = urlsplit(server.root_url)
        self.address = (parts.hostname or "", parts.port or 0)
        self.conn: http.client.HTTPConnection | None = None

    def send(
        self, method: str, path: str, body: bytes, headers: dict[str, str]
    ) -> tuple[int, str, bytes]:
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(*self.address, timeout=30)
            try:
                self.conn.request(method, path, body=body, headers=headers)
                resp = self.conn.getresponse()
                data = resp.read()
                if resp.will_close:
                    self.close()
                return resp.status, resp.getheader("Content-Type") or "", data
            except (ConnectionError, http.client.RemoteDisconnected):
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


@pytest.fixture(scope="module")
def client(bridge_server: BridgeServer) -> Iterator[Client]:
    c = Client(bridge_server)
    yield c
    c.close()
    total = sum(STATUSES.values())
    print(f"\nfuzz: {total} requests, statuses {dict(sorted(STATUSES.items()))}")


def check_answer(status: int, content_type: str, data: bytes) -> None:
    STATUSES[status] += 1
    assert status < 500, data[:2000]
    if status >= 400:
        body = json.loads(data)
        assert set(body) == {"error"}, body
        error = body["error"]
        assert set(error) == {"message", "type", "param", "code"}, error
        assert isinstance(error["message"], str) and error["message"]
        assert isinstance(error["type"], str)
        return
    assert status == 200, data[:2000]
    if content_type.startswith("text/event-stream"):
        events = parse_sse(data.decode())
        validate_stream(events)
        assert events[-1]["type"] in (
            "response.completed",
            "response.incomplete",
            "response.failed",
        )
    else:
        body = json.loads(data)
        if body.get("object") == "response":
            validate_response(body)


def post_json(client: Client, body: Any, path: str = "/v1/responses") -> None:
    raw = json.dumps(body, allow_nan=True).encode()
    check_answer(*client.send("POST", path, raw, {"Content-Type": "application/json"}))


# --------------------------------------------------------------------------- strategies

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40)
)
any_json = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=25,
)
models = st.sampled_from(["sim-echo", "sim-reasoning"]) | st.text(max_size=20) | any_json
roles = st.sampled_from(["user", "assistant", "system", "developer", "tool", ""]) | st.text(
    max_size=8
)
part_types = st.sampled_from(
    ["input_text", "output_text", "input_image", "input_file", "refusal", "text", "image"]
)
content_parts = st.fixed_dictionaries(
    {"type": part_types},
    optional={
        "text": st.text(max_size=60) | any_json,
        "image_url": st.sampled_from(["data:image/png;base64,iVBORw0KGgo=", "https://x.test/a.png"])
        | any_json,
        "detail": st.sampled_from(["auto", "low", "high"]) | any_json,
        "file_id": st.text(max_size=10),
    },
)
item_types = st.sampled_from(
    [
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "reasoning",
        "item_reference",
        "web_search_call",
        "nonsense",
    ]
)
items = st.fixed_dictionaries(
    {},
    optional={
        "type": item_types,
        "role": roles,
        "content": st.text(max_size=60) | st.lists(content_parts, max_size=4) | any_json,
        "call_id": st.text(max_size=12) | any_json,
        "name": st.text(max_size=12) | any_json,
        "arguments": st.text(max_size=40) | any_json,
        "output": st.text(max_size=40) | any_json,
        "input": st.text(max_size=40),
        "id": st.text(max_size=12),
        "summary": any_json,
    },
)
schemas = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["object", "string", "array", "integer", "nope"]) | any_json,
        "properties": st.dictionaries(st.text(max_size=8), any_json, max_size=4),
        "required": st.lists(st.text(max_size=8), max_size=3) | any_json,
        "$ref": st.sampled_from(["#", "#/$defs/a", "#/nowhere"]),
        "$defs": any_json,
        "items": any_json,
        "enum": any_json,
    },
)
tools = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["function", "custom", "namespace", "web_search", "mcp", "x"])
        | any_json,
        "name": st.text(max_size=16) | any_json,
        "description": st.text(max_size=30) | any_json,
        "parameters": schemas | any_json,
        "strict": any_json,
        "format": any_json,
        "tools": any_json,
    },
)
requests = st.fixed_dictionaries(
    {"model": models, "input": st.text(max_size=80) | st.lists(items, max_size=6) | any_json},
    optional={
        "stream": st.booleans() | any_json,
        "instructions": st.text(max_size=40) | any_json,
        "tools": st.lists(tools, max_size=4) | any_json,
        "tool_choice": st.sampled_from(["auto", "none", "required"])
        | st.fixed_dictionaries({"type": st.sampled_from(["function", "custom", "allowed_tools"])})
        | any_json,
        "temperature": st.floats(allow_nan=True) | any_json,
        "top_p": st.floats() | any_json,
        "max_output_tokens": st.integers(min_value=-5, max_value=2**40) | any_json,
        "reasoning": st.fixed_dictionaries({}, optional={"effort": any_json, "summary": any_json})
        | any_json,
        "text": any_json,
        "metadata": any_json,
        "parallel_tool_calls": any_json,
        "previous_response_id": st.text(max_size=10),
        "store": any_json,
        "include": any_json,
        "truncation": any_json,
        "user": any_json,
    },
)


def _text_part_type(role: str) -> str:
    return "output_text" if role == "assistant" else "input_text"


# Mostly valid requests with random extras: these reach the model and stream back.
messages = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "system", "developer"])},
    optional={"type": st.just("message")},
).flatmap(
    lambda m: st.fixed_dictionaries(
        {
            **{k: st.just(v) for k, v in m.items()},
            "content": st.text(min_size=1, max_size=60)
            | st.lists(
                st.fixed_dictionaries(
                    {
                        "type": st.just(
                            "output_text" if m["role"] == "assistant" else "input_text"
                        ),
                        "text": st.text(max_size=60),
                    }
                ),
                min_size=1,
                max_size=3,
            ),
        }
    )
)
valid_tools = st.lists(
    st.fixed_dictionaries(
        {
            "type": st.just("function"),
            "name": st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_]{0,20}", fullmatch=True),
            "parameters": st.just({"type": "object", "properties": {"q": {"type": "string"}}}),
        }
    ),
    max_size=2,
)
valid_requests = st.fixed_dictionaries(
    {
        "model": st.sampled_from(["sim-echo", "sim-reasoning"]),
        "input": st.text(min_size=1, max_size=80) | st.lists(messages, min_size=1, max_size=4),
    },
    optional={
        "stream": st.booleans(),
        "instructions": st.text(max_size=40),
        "tools": valid_tools,
        "tool_choice": st.sampled_from(["auto", "none", "required"]),
        "temperature": st.floats(min_value=0, max_value=2),
        "max_output_tokens": st.integers(min_value=1, max_value=200),
        "reasoning": st.fixed_dictionaries(
            {"effort": st.sampled_from(["none", "low", "medium", "high"])},
            optional={"summary": st.sampled_from(["auto", "concise", "detailed"])},
        ),
        "metadata": st.dictionaries(st.text(max_size=10), st.text(max_size=20), max_size=3),
        "parallel_tool_calls": st.booleans(),
        "store": st.booleans(),
        "user": st.text(max_size=10),
    },
)

FUZZ = settings(
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# --------------------------------------------------------------------------- properties


@settings(FUZZ, max_examples=600)
@given(body=requests)
def test_fuzz_request_shaped_bodies(client: Client, body: dict[str, Any]) -> None:
    post_json(client, body)


@settings(FUZZ, max_examples=500)
@given(body=valid_requests)
def test_fuzz_mostly_valid_requests(client: Client, body: dict[str, Any]) -> None:
    post_json(client, body)


@settings(FUZZ, max_examples=600)
@given(body=any_json)
def test_fuzz_any_json_body(client: Client, body: Any) -> None:
    post_json(client, body)


@settings(FUZZ, max_examples=400)
@given(
    raw=st.binary(max_size=300)
    | st.text(max_size=200).map(str.encode)
    | st.sampled_from(
        [b"{", b'{"model": "sim-echo", "input": ', b"\xff\xfe", b"[" * 5000, b"1e999999"]
    ),
    content_type=st.sampled_from(["application/json", "text/plain", "", "multipart/form-data"]),
)
def test_fuzz_malformed_bytes(client: Client, raw: bytes, content_type: str) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    check_answer(*client.send("POST", "/v1/responses", raw, headers))


@settings(FUZZ, max_examples=300)
@given(
    method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]),
    path=st.sampled_from(["/v1/responses", "/v1/models", "/health", "/responses", "/models"])
    | st.text(
        alphabet=st.characters(min_codepoint=33, max_codepoint=126, exclude_characters="#?%"),
        max_size=30,
    ).map(lambda p: "/" + p),
    body=any_json,
)
def test_fuzz_methods_and_paths(client: Client, method: str, path: str, body: Any) -> None:
    raw = b"" if method in ("GET", "HEAD") else json.dumps(body).encode()
    status, content_type, data = client.send(
        method, path, raw, {"Content-Type": "application/json"}
    )
    if method == "HEAD":  # no body by definition
        STATUSES[status] += 1
        assert status < 500
        return
    check_answer(status, content_type, data)


# --------------------------------------------------------------------------- WebSocket frames


class SocketClient:
    """One WebSocket connection in WebSocket mode, kept open across examples: a bad frame must
    leave it usable, so it is reopened only if the server closed it (which fails the test)."""

    def __init__(self, server: BridgeServer) -> None:
        self.url = server.root_url.replace("http://", "ws://", 1) + "/v1/responses"
        self.socket = connect(self.url, open_timeout=30, max_size=None)
        self.frames = 0

    def exchange(self, frame: str | bytes) -> None:
        """Send one frame; read until its one error event or its response's terminal event."""
        self.frames += 1
        self.socket.send(frame)
        events: list[dict[str, Any]] = []
        while True:
            event = json.loads(self.socket.recv(timeout=30))
            if event["type"] == "error":
                assert not events, f"an error event in the middle of a response: {events}"
                validate_websocket_error(event)
                STATUSES[event["status"]] += 1
                assert event["status"] < 500, event
                return
            events.append(event)
            if event["type"] in TERMINAL_TYPES:
                validate_stream(events)
                STATUSES[200] += 1
                return


@pytest.fixture(scope="module")
def socket_client(bridge_server: BridgeServer) -> Iterator[SocketClient]:
    c = SocketClient(bridge_server)
    yield c
    print(f"\nfuzz: {c.frames} WebSocket frames on one connection")
    c.socket.close()


create_frames = requests.map(lambda body: {"type": "response.create", **body}) | st.builds(
    lambda body: {"type": "response.create", "response": body}, any_json
)


@settings(FUZZ, max_examples=300)
@given(frame=create_frames | any_json)
def test_fuzz_websocket_json_frames(socket_client: SocketClient, frame: Any) -> None:
    socket_client.exchange(json.dumps(frame, allow_nan=True))


@settings(FUZZ, max_examples=200)
@given(frame=st.binary(max_size=200) | st.text(max_size=200))
def test_fuzz_websocket_raw_frames(socket_client: SocketClient, frame: str | bytes) -> None:
    socket_client.exchange(frame)


def test_fuzzed_socket_still_answers(socket_client: SocketClient) -> None:
    """The same connection, after every bad frame above, still runs a response."""
    socket_client.socket.send(
        json.dumps({"type": "response.create", "model": "sim-echo", "input": "still open?"})
    )
    events: list[dict[str, Any]] = []
    while not events or events[-1]["type"] not in TERMINAL_TYPES:
        events.append(json.loads(socket_client.socket.recv(timeout=30)))
    final = validate_stream(events)
    assert final["status"] == "completed"


def test_fuzzed_server_is_alive_and_serving(bridge_server: BridgeServer, client: Client) -> None:
    """Runs after the properties above (file order): the same process still answers."""
    bridge_server.assert_alive()
    status, _, data = client.send(
        "POST",
        "/v1/responses",
        json.dumps({"model": "sim-echo", "input": "still there?"}).encode(),
        {"Content-Type": "application/json"},
    )
    assert status == 200
    body = json.loads(data)
    validate_response(body)
    assert body["output_text"] if "output_text" in body else body["output"]
    fuzzed = sum(STATUSES.values())
    assert fuzzed >= 2900 or fuzzed == 0, STATUSES  # 0: this test was run on its own
    assert not any(code >= 500 for code in STATUSES), STATUSES
