"""Issue 14, the wire: what a request may hold and what the bridge may write.

Against real `maestro-bridge serve`: non-finite numbers (`NaN`, `Infinity`, `1e999`), lone
surrogates, huge integers and junk compressed bodies get 400s (never a 5xx, never forwarded);
non-UTF-8 key headers get 401; an API key quoted in a header aiohttp refuses never reaches the
log. Then the JSON-RPC writers of both processes, which refuse non-JSON without writing a byte.
"""

from __future__ import annotations

import asyncio
import gzip
import http.client
import io
import json
import logging
import math
import signal
import socket
import sys
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import pytest
from conftest import BridgeServer, StartServer

from bridge.core import strict_json
from bridge.core.backend import ChatMessage, ChatRequest, EditorError, TextPart
from bridge.http.sse import encode_event
from bridge.log_redaction import RedactSecrets, redact_logs
from headless_editor.jsonrpc import EditorConnection
from lsp import rpc
from lsp.server import create_server

KEY = "sk-wire-test-Zq8mX2vP7dLkQ4"
BODY = b'{"model":"sim-echo","input":"hi"'  # the rest is added by each case


def send(
    server: BridgeServer,
    path: str,
    body: bytes,
    headers: dict[str, str | bytes] | None = None,
    key: str | None = None,
) -> tuple[int, bytes]:
    """One request with a raw body and raw header values (bytes go out unchanged)."""
    parts = urlsplit(server.root_url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    try:
        conn.putrequest("POST", path, skip_accept_encoding=True)
        all_headers: dict[str, str | bytes] = {"Content-Type": "application/json"}
        if key:
            all_headers["Authorization"] = f"Bearer {key}"
        all_headers.update(headers or {})
        for name, value in all_headers.items():
            conn.putheader(name, value)
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def error_of(status: int, raw: bytes, code: str, param: str | None) -> str:
    assert status == 400, raw
    error = json.loads(raw)["error"]
    assert (error["code"], error["param"]) == (code, param), error
    return str(error["message"])


# --------------------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("extra", "code", "param"),
    [
        (b'"temperature":NaN', "invalid_json", "temperature"),
        (b'"temperature":Infinity', "invalid_json", "temperature"),
        (b'"temperature":-Infinity', "invalid_json", "temperature"),
        (b'"temperature":1e999', "invalid_value", "temperature"),
        (b'"top_p":NaN', "invalid_json", "top_p"),
        (b'"top_p":-1e999', "invalid_value", "top_p"),
        (b'"max_output_tokens":1e999', "invalid_value", "max_output_tokens"),
        (b'"top_logprobs":Infinity', "invalid_json", "top_logprobs"),
        (b'"metadata":{"x":NaN}', "invalid_json", "metadata.x"),
        (
            b'"tools":[{"type":"function","name":"f","parameters":{"type":"number",'
            b'"maximum":' + b"9" * 400 + b".0}}]",
            "invalid_value",
            "tools[0].parameters.maximum",
        ),
    ],
)
@pytest.mark.parametrize("stream", [False, True])
def test_non_finite_numbers_are_refused_naming_the_param(
    bridge_server: BridgeServer, extra: bytes, code: str, param: str, stream: bool
) -> None:
    body = BODY + b',"stream":' + (b"true," if stream else b"false,") + extra + b"}"
    status, raw = send(bridge_server, "/v1/responses", body)
    error_of(status, raw, code, param)


@pytest.mark.parametrize("path", ["/v1/responses/compact", "/v1/responses/input_tokens"])
def test_non_finite_numbers_are_refused_by_every_endpoint(
    bridge_server: BridgeServer, path: str
) -> None:
    status, raw = send(bridge_server, path, BODY + b',"temperature":NaN}')
    error_of(status, raw, "invalid_json", "temperature")


def test_an_integer_past_4300_digits_is_a_400(bridge_server: BridgeServer) -> None:
    body = BODY + b',"max_output_tokens":' + b"7" * 5000 + b"}"
    message = error_of(*send(bridge_server, "/v1/responses", body), "invalid_json", None)
    assert "4300" in message


def test_finite_numbers_still_work(bridge_server: BridgeServer) -> None:
    body = BODY + b',"temperature":0.5,"top_p":1e0,"metadata":{"x":"1e999"}}'
    status, raw = send(bridge_server, "/v1/responses", body)
    assert status == 200, raw
    answer = json.loads(raw)
    assert answer["status"] == "completed" and answer["temperature"] == 0.5


async def test_websocket_frames_are_decoded_strictly_too(bridge_server: BridgeServer) -> None:
    url = bridge_server.root_url.replace("http://", "ws://", 1) + "/v1/responses"
    frames = {
        '{"type":"response.create","model":"sim-echo","input":"hi","temperature":NaN}': (
            "temperature"
        ),
        '{"type":"response.create","model":"sim-echo","input":"hi","top_p":1e999}': "top_p",
        '{"type":"response.create","model":"sim-echo","input":"\\ud800"}': "input",
    }
    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(timeout=timeout) as http, http.ws_connect(url) as ws:
        for frame, param in frames.items():
            await ws.send_str(frame)
            message = await ws.receive(timeout=20)
            assert message.type == aiohttp.WSMsgType.TEXT, message
            event = json.loads(message.data)
            assert event["type"] == "error" and event["status"] == 400, event
            assert event["error"]["param"] == param, event
        # The connection is still good for a proper turn.
        await ws.send_str('{"type":"response.create","model":"sim-echo","input":"hi"}')
        while (event := json.loads((await ws.receive(timeout=20)).data))["type"] not in (
            "response.completed",
            "response.failed",
            "error",
        ):
            pass
        assert event["type"] == "response.completed", event


# --------------------------------------------------------------------------- surrogates

_TOOL = b'{"type":"function","name":"%s","description":"%s","parameters":%s}'


@pytest.mark.parametrize(
    ("field", "param"),
    [
        (b'"input":"\\ud800"', "input"),
        (b'"input":[{"role":"user","content":"ok \\udfff"}]', "input[0].content"),
        (b'"input":"hi","instructions":"\\udc00x"', "instructions"),
        (b'"input":"hi","tools":[' + _TOOL % (b"f\\ud800", b"d", b"{}") + b"]", "tools[0].name"),
        (
            b'"input":"hi","tools":[' + _TOOL % (b"f", b"\\uD83D", b"{}") + b"]",
            "tools[0].description",
        ),
        (
            b'"input":"hi","tools":['
            + _TOOL % (b"f", b"d", b'{"properties":{"a":{"enum":["\\ude00"]}}}')
            + b"]",
            "tools[0].parameters.properties.a.enum[0]",
        ),
        # A high surrogate followed by another high one, then its pair: the first is alone.
        (b'"input":"\\ud83d\\ud83d\\ude00"', "input"),
    ],
)
@pytest.mark.parametrize(
    "path", ["/v1/responses", "/v1/responses/compact", "/v1/responses/input_tokens"]
)
def test_lone_surrogates_are_a_400(
    bridge_server: BridgeServer, field: bytes, param: str, path: str
) -> None:
    body = b'{"model":"sim-echo",' + field + b"}"
    message = error_of(*send(bridge_server, path, body), "invalid_value", param)
    assert "surrogate" in message


def test_surrogate_bytes_in_utf8_are_a_400(bridge_server: BridgeServer) -> None:
    # UTF-8 cannot encode surrogates; Python's json would accept them ('surrogatepass').
    body = b'{"model":"sim-echo","input":"\xed\xa0\x80"}'
    message = error_of(*send(bridge_server, "/v1/responses", body), "invalid_json", None)
    assert "UTF-8" in message


@pytest.mark.parametrize(
    "text",
    [
        b"\\ud83d\\ude00 paired",  # how Python clients escape emoji: one code point
        b"\\\\ud800 is how you write it",  # an escaped backslash: text, not an escape
        b"\\\\\\ud83d\\ude00",  # a backslash, then an emoji
    ],
)
def test_paired_and_literal_escapes_still_work(bridge_server: BridgeServer, text: bytes) -> None:
    body = b'{"model":"sim-echo","input":"' + text + b'"}'
    status, raw = send(bridge_server, "/v1/responses", body)
    assert status == 200, raw
    echoed = json.loads(raw)["output"][0]["content"][0]["text"]
    assert json.loads(b'"' + text + b'"') in echoed


@pytest.mark.parametrize(
    "arguments", ['{"x": NaN}', '{"x": 1e999}', '{"x": "\\ud800"}', "[" * 100_000]
)
def test_tool_call_arguments_that_are_not_json_are_kept_as_text(
    bridge_server: BridgeServer, arguments: str
) -> None:
    """Arguments are a JSON string inside the body: what is not JSON in them goes to the
    model as the text it was, never as a value the editor's JSON-RPC cannot carry."""
    body = {
        "model": "sim-echo",
        "input": [
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": arguments},
            {"type": "function_call_output", "call_id": "c1", "output": "done"},
            {"role": "user", "content": "go on"},
        ],
        "tools": [{"type": "function", "name": "f", "parameters": {"type": "object"}}],
    }
    status, raw = send(bridge_server, "/v1/responses", json.dumps(body).encode())
    assert status == 200, raw
    assert json.loads(raw)["status"] == "completed"


# --------------------------------------------------------------------------- encodings, keys


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "br"])
def test_a_junk_compressed_body_is_a_400(bridge_server: BridgeServer, encoding: str) -> None:
    status, raw = send(
        bridge_server, "/v1/responses", b"not compressed at all", {"Content-Encoding": encoding}
    )
    assert status == 400, raw


def test_a_truncated_gzip_body_is_a_400(bridge_server: BridgeServer) -> None:
    packed = gzip.compress(BODY + b"}")[:-12]
    status, raw = send(bridge_server, "/v1/responses", packed, {"Content-Encoding": "gzip"})
    assert status == 400, raw
    bridge_server.assert_alive()


BAD_KEYS: list[dict[str, str | bytes]] = [
    {"Authorization": b"Bearer \xff\xfe\x80"},
    {"x-api-key": b"\xc3\x28\xa0"},
    {"Authorization": b"Bearer " + KEY.encode() + b"\xff"},
]


def test_non_utf8_key_headers_are_a_401(bridge_server_factory: StartServer) -> None:
    server = bridge_server_factory("--api-key", KEY)
    for headers in BAD_KEYS:
        status, raw = send(server, "/v1/responses", BODY + b"}", headers)
        assert status == 401, raw
        assert json.loads(raw)["error"]["code"] == "invalid_api_key"
    assert send(server, "/v1/responses", BODY + b"}", key=KEY)[0] == 200


@pytest.mark.parametrize("headers", BAD_KEYS)
def test_non_utf8_key_headers_are_ignored_without_a_key(
    bridge_server: BridgeServer, headers: dict[str, str | bytes]
) -> None:
    status, raw = send(bridge_server, "/v1/responses", BODY + b"}", headers)
    assert status == 200, raw


def raw_status(server: BridgeServer, request: bytes) -> int:
    """The status of one request written byte for byte (header names and values as given)."""
    parts = urlsplit(server.root_url)
    with socket.create_connection((parts.hostname or "", parts.port or 0), timeout=30) as sock:
        sock.sendall(request)
        answer = b""
        while b"\r\n" not in answer and (chunk := sock.recv(65536)):
            answer += chunk
    return int(answer.split(b" ", 2)[1])


@pytest.mark.parametrize(
    "headers",
    [
        b"Host: \xff\xfe\r\n",
        b"Host: 127.0.0.1\r\nOrigin: http://\xff\r\n",
        b"Host: 127.0.0.1\r\nSec-Fetch-Site: \xff\r\n",
        b"Host: 127.0.0.1\r\nContent-Type: application/json; charset=\xff\r\n",
        b"Host: 127.0.0.1\r\nContent-Encoding: \xff\r\n",
        b"Host: 127.0.0.1\r\nX-\xff: 1\r\n",
    ],
)
def test_non_utf8_headers_never_give_a_5xx(bridge_server: BridgeServer, headers: bytes) -> None:
    body = BODY + b"}"
    request = b"POST /v1/responses HTTP/1.1\r\n%sContent-Length: %d\r\n\r\n%s" % (
        headers,
        len(body),
        body,
    )
    assert raw_status(bridge_server, request) < 500


def test_a_websocket_handshake_with_a_non_ascii_key_is_a_400(bridge_server: BridgeServer) -> None:
    request = (
        b"GET /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        b"Connection: Upgrade\r\nSec-WebSocket-Key: \xff\xfeAAAAAAAAAAAAAAAAAAAA==\r\n"
        b"Sec-WebSocket-Version: 13\r\n\r\n"
    )
    assert raw_status(bridge_server, request) == 400


def test_the_key_in_a_refused_header_never_reaches_the_log(
    bridge_server_factory: StartServer,
) -> None:
    server = bridge_server_factory("--api-key", KEY)
    refused: list[dict[str, str | bytes]] = [
        {"X-Big": KEY + "a" * 9000},  # past aiohttp's 8190 bytes
        {"Authorization": f"Bearer {KEY}{'b' * 9000}"},
        {"X-Ctl": KEY.encode() + b"\x01\x02"},  # a control character
        {"Authorization": b"Bearer " + KEY.encode() + b"\x7f"},
        {"x-api-key": KEY.encode() + b"\x00"},
    ]
    for headers in refused:
        status, raw = send(server, "/v1/models", b"", headers)
        assert status == 400, raw
    # Stopped first, so that every line it would write is written.
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=10) == 0
    log = server.stderr_text()
    server.release()
    assert log.count("Error handling request") >= len(refused), log  # aiohttp did log them
    assert KEY not in log
    assert KEY[:12] not in log  # not even cut short


# --------------------------------------------------------------------------- unit: redaction


def test_redaction_covers_exception_and_stack_text() -> None:
    redactor = RedactSecrets()
    redactor.secrets.add(KEY)
    try:
        raise ValueError(f"bad header b'X-Thing: {KEY}\\x01'")
    except ValueError:
        exc_info = sys.exc_info()
    record = logging.LogRecord("t", logging.ERROR, __file__, 1, "oops %s", ("x",), exc_info)
    record.stack_info = f"Stack (most recent call last):\n  key={KEY}"
    assert redactor.filter(record)
    text = logging.Formatter().format(record)
    assert "ValueError: bad header" in text and "Stack" in text
    assert KEY not in text
    assert record.exc_info is None


def test_redaction_reaches_handlers_of_any_logger() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    own = logging.getLogger("some.library.with.its.own.handler")
    own.addHandler(handler)
    own.propagate = False
    try:
        redact_logs(secret=KEY)
        try:
            raise RuntimeError(f"Bearer {KEY}")
        except RuntimeError:
            own.exception("failed with %s", KEY, stack_info=True)
    finally:
        own.removeHandler(handler)
    text = stream.getvalue()
    assert "RuntimeError" in text and "failed with ***" in text
    assert KEY not in text


# --------------------------------------------------------------------------- unit: decoding


def test_decode_finds_the_path_of_what_is_not_json() -> None:
    with pytest.raises(strict_json.JsonInputError) as caught:
        strict_json.decode(b'{"a":[1,{"b\\ud800":2}]}')
    assert caught.value.param == "a[1].b\\ud800"
    json.dumps(caught.value.message, ensure_ascii=False).encode()  # the message itself encodes
    assert strict_json.decode('{"a":"\\ud83d\\ude00"}') == {"a": "\U0001f600"}
    assert strict_json.decode(b'\xef\xbb\xbf{"bom":1}') == {"bom": 1}
    assert strict_json.decode('{"x":"x"}'.encode("utf-16")) == {"x": "x"}
    with pytest.raises(strict_json.JsonInputError):
        strict_json.decode('{"x":"\ud800"}'.encode("utf-16", "surrogatepass"))


def test_strict_encoders_refuse_non_finite_numbers() -> None:
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(ValueError):
            strict_json.encode({"x": bad})
        with pytest.raises(ValueError):
            encode_event({"type": "response.created", "response": {"temperature": bad}})


# --------------------------------------------------------------------------- unit: JSON-RPC


class Recorder:
    def __init__(self) -> None:
        self.frames: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.frames.append(data)

    def close(self) -> None:
        pass


def _body(frame: bytes) -> Any:
    return json.loads(frame.partition(b"\r\n\r\n")[2])


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, "\ud800"])
def test_language_server_writer_refuses_what_is_not_json(bad: Any) -> None:
    protocol = create_server().rpc
    writer = Recorder()
    protocol.set_writer(writer)
    with pytest.raises(rpc.UnsendableMessage):
        protocol.notify_raw(rpc.SERVER_READY, {"x": bad})
    with pytest.raises(rpc.UnsendableMessage):
        protocol.send_request(rpc.CHAT, {"temperature": bad}, msg_id="chat-9")
    assert writer.frames == []  # not a byte: the editor's reader never sees half a frame
    # A reply that cannot be encoded becomes an error reply: the editor is never left waiting.
    protocol._send_data({"jsonrpc": "2.0", "id": 7, "result": {"x": bad}})
    (reply,) = [_body(frame) for frame in writer.frames]
    assert reply["id"] == 7 and reply["error"]["code"] == rpc.INTERNAL_ERROR


def test_a_chat_whose_params_cannot_be_sent_fails_cleanly() -> None:
    server = create_server()
    writer = Recorder()
    server.protocol.set_writer(writer)
    request = ChatRequest(
        model="sim-echo",
        messages=[ChatMessage(role="user", content=[TextPart(value="hi")])],
        modelOptions={"temperature": math.nan},
    )

    async def chat() -> None:
        async for _ in server.backend.chat(request):
            pass

    with pytest.raises(EditorError) as caught:
        asyncio.run(asyncio.wait_for(chat(), 10))
    assert caught.value.code == "Other" and "could not be sent" in caught.value.message
    assert writer.frames == []
    assert server.backend.pending() == {"chats": 0, "requestFutures": 0, "resultTypes": 0}


@pytest.mark.parametrize("bad", [math.nan, math.inf, "\udfff"])
def test_headless_editor_writer_refuses_what_is_not_json(bad: Any) -> None:
    connection = EditorConnection()
    writer = Recorder()
    connection.set_writer(writer)  # type: ignore[arg-type]
    with pytest.raises(rpc.UnsendableMessage):
        connection.notify_raw(rpc.CHAT_PARTS, {"chatId": "c", "parts": [{"x": bad}]})
    assert writer.frames == []

    @connection.feature("test/answer")
    def answer(params: Any) -> Any:
        return {"tokens": bad}

    async def ask() -> None:
        connection.handle_message({"jsonrpc": "2.0", "id": 3, "method": "test/answer"})
        await asyncio.sleep(0)
        await asyncio.gather(*connection._running.values())

    asyncio.run(asyncio.wait_for(ask(), 10))
    (reply,) = [_body(frame) for frame in writer.frames]
    assert reply["id"] == 3 and reply["error"]["code"] == rpc.INTERNAL_ERROR
