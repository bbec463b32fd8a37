"""End to end over HTTP: a real `maestro-bridge serve` (headless editor -> lsp -> aiohttp),
driven with aiohttp as a curl-like client.

Every Response body and every streamed event is checked against the Open Responses spec with
tests/spec_validation.py; every error against the OpenAI envelope; no request may get a 5xx.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from conftest import REPO_ROOT, BridgeServer, StartServer
from fixture_files import client_headers, client_requests
from processes import reaped
from samples import WEATHER_TOOL, output_text
from spec_validation import parse_sse, validate_response, validate_stream

TIMEOUT = aiohttp.ClientTimeout(total=30)
JSON_HEADERS = {"Content-Type": "application/json"}
ERROR_KEYS = {"message", "type", "param", "code"}

# Headers of a captured request that describe that one connection, not the client.
_HOP_HEADERS = {"host", "content-length", "connection", "accept-encoding", "transfer-encoding"}


# --------------------------------------------------------------------------- helpers


class Reply:
    """A finished HTTP exchange."""

    def __init__(self, status: int, headers: dict[str, str], text: str) -> None:
        self.status = status
        self.headers = headers
        self.text = text

    @property
    def content_type(self) -> str:
        return self.headers.get("Content-Type", "").split(";")[0].strip()

    def json(self) -> Any:
        return json.loads(self.text)


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(timeout=TIMEOUT) as session:
        yield session


async def request(
    session: aiohttp.ClientSession,
    method: str,
    url: str,
    *,
    data: bytes | str | None = None,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    if body is not None:
        data = json.dumps(body)
    async with session.request(
        method, url, data=data, headers={**JSON_HEADERS, **(headers or {})}
    ) as response:
        text = await response.text()
        reply = Reply(response.status, dict(response.headers), text)
    assert reply.status < 500, f"{method} {url} answered {reply.status}: {text[:2000]}"
    return reply


async def create(
    session: aiohttp.ClientSession,
    server: BridgeServer,
    body: Any,
    headers: dict[str, str] | None = None,
) -> Reply:
    return await request(
        session, "POST", f"{server.base_url}/responses", body=body, headers=headers
    )


def ok_response(reply: Reply) -> dict[str, Any]:
    """A validated non-streaming Response."""
    assert reply.status == 200, f"status {reply.status}: {reply.text[:2000]}"
    assert reply.content_type == "application/json", reply.headers
    response: dict[str, Any] = reply.json()
    validate_response(response)
    return response


def ok_stream(reply: Reply) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The validated events of a streaming answer and the final Response."""
    assert reply.status == 200, f"status {reply.status}: {reply.text[:2000]}"
    assert reply.content_type == "text/event-stream", reply.headers
    events = parse_sse(reply.text)
    final = validate_stream(events)
    validate_response(final)
    return events, final


def assert_error(
    reply: Reply,
    status: int,
    *,
    code: str | None = None,
    param: str | None = None,
    type_: str | None = "invalid_request_error",
) -> dict[str, Any]:
    """The OpenAI error envelope, exactly: {"error": {"message", "type", "param", "code"}}."""
    assert reply.status == status, f"expected {status}, got {reply.status}: {reply.text[:2000]}"
    assert reply.content_type == "application/json", reply.headers
    body = reply.json()
    assert isinstance(body, dict) and set(body) == {"error"}, body
    error: dict[str, Any] = body["error"]
    assert isinstance(error, dict) and set(error) == ERROR_KEYS, error
    assert isinstance(error["message"], str) and error["message"].strip(), error
    assert isinstance(error["type"], str) and error["type"], error
    assert error["param"] is None or isinstance(error["param"], str), error
    assert error["code"] is None or isinstance(error["code"], str), error
    if type_ is not None:
        assert error["type"] == type_, error
    if code is not None:
        assert error["code"] == code, error
    if param is not None:
        assert error["param"] == param, error
    return error


def items_of(response: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [item for item in response["output"] if item["type"] == kind]


# --------------------------------------------------------------------------- basic requests


async def test_health(http: aiohttp.ClientSession, bridge_server: BridgeServer) -> None:
    reply = await request(http, "GET", f"{bridge_server.root_url}/health")
    assert reply.status == 200
    body = reply.json()
    assert body["status"] == "ok"
    assert isinstance(body["version"], str) and body["version"]


async def test_models_list(http: aiohttp.ClientSession, bridge_server: BridgeServer) -> None:
    reply = await request(http, "GET", f"{bridge_server.base_url}/models")
    assert reply.status == 200
    assert reply.content_type == "application/json"
    body = reply.json()
    assert body["object"] == "list"
    assert isinstance(body["data"], list) and body["data"]
    for model in body["data"]:
        assert model["object"] == "model"
        assert isinstance(model["id"], str) and model["id"]
        assert isinstance(model["created"], int)
        assert isinstance(model["owned_by"], str) and model["owned_by"]
    by_id = {model["id"]: model for model in body["data"]}
    assert {"sim-echo", "sim-reasoning"} <= set(by_id)
    assert by_id["sim-echo"]["max_input_tokens"] == 128000


async def test_non_stream_text(http: aiohttp.ClientSession, bridge_server: BridgeServer) -> None:
    reply = await create(http, bridge_server, {"model": "sim-echo", "input": "Hello!"})
    response = ok_response(reply)
    assert response["object"] == "response"
    assert response["status"] == "completed"
    assert response["model"] == "sim-echo"
    assert output_text(response) == "You said: Hello!"
    usage = response["usage"]
    assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]


async def test_stream_text(http: aiohttp.ClientSession, bridge_server: BridgeServer) -> None:
    body = {"model": "sim-echo", "input": "Hello there, bridge!", "stream": True}
    reply = await create(http, bridge_server, body, headers={"Accept": "text/event-stream"})
    assert "no-cache" in reply.headers.get("Cache-Control", "")
    events, final = ok_stream(reply)
    types = [event["type"] for event in events]
    assert types[:2] == ["response.created", "response.in_progress"]
    assert types[-1] == "response.completed"
    deltas = [e["delta"] for e in events if e["type"] == "response.output_text.delta"]
    assert len(deltas) > 1, "the text should arrive in several deltas"
    assert "".join(deltas) == "You said: Hello there, bridge!"
    assert output_text(final) == "You said: Hello there, bridge!"
    assert final["status"] == "completed" and final["usage"]["output_tokens"] > 0


async def test_message_list_input_with_instructions(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    body = {
        "model": "sim-echo",
        "instructions": "Be brief.",
        "input": [
            {"role": "user", "content": "first"},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "ok"}],
            },
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "second question"}],
            },
        ],
    }
    response = ok_response(await create(http, bridge_server, body))
    assert output_text(response) == "You said: second question"
    assert response["instructions"] == "Be brief."


async def test_reasoning_model_stream(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    body = {
        "model": "sim-reasoning",
        "input": "Think, then answer.",
        "reasoning": {"effort": "medium", "summary": "auto"},
        "stream": True,
    }
    events, final = ok_stream(await create(http, bridge_server, body))
    kinds = [item["type"] for item in final["output"]]
    assert kinds[0] == "reasoning" and kinds[-1] == "message", kinds
    assert output_text(final) == "You said: Think, then answer."
    assert final["usage"]["output_tokens_details"]["reasoning_tokens"] > 0
    assert any(e["type"].startswith("response.reasoning") for e in events)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_function_tool_round_trip(
    http: aiohttp.ClientSession, bridge_server: BridgeServer, stream: bool
) -> None:
    first = {
        "model": "sim-echo",
        "input": "Weather in Paris?",
        "tools": [WEATHER_TOOL],
        "stream": stream,
    }
    reply = await create(http, bridge_server, first)
    response = ok_stream(reply)[1] if stream else ok_response(reply)
    calls = items_of(response, "function_call")
    assert len(calls) == 1, response["output"]
    call = calls[0]
    assert call["name"] == "get_weather"
    assert call["call_id"]
    assert json.loads(call["arguments"]) == {"city": "placeholder"}
    assert response["tools"] and response["tools"][0]["name"] == "get_weather"

    second = {
        "model": "sim-echo",
        "tools": [WEATHER_TOOL],
        "stream": stream,
        "input": [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "type": "function_call",
                "call_id": call["call_id"],
                "name": "get_weather",
                "arguments": call["arguments"],
            },
            {"type": "function_call_output", "call_id": call["call_id"], "output": "Sunny, 21 C"},
        ],
    }
    reply = await create(http, bridge_server, second)
    response = ok_stream(reply)[1] if stream else ok_response(reply)
    assert not items_of(response, "function_call")
    assert output_text(response) == "The tool get_weather returned 11 characters."


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_json_schema_text_format_echo(
    http: aiohttp.ClientSession, bridge_server: BridgeServer, stream: bool
) -> None:
    """The client's minimal json_schema format comes back complete: the spec requires
    `description` (string or null) and `strict` on the Response's `text.format`."""
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    body = {
        "model": "sim-echo",
        "input": "Give me JSON.",
        "text": {"format": {"type": "json_schema", "name": "answer", "schema": schema}},
        "stream": stream,
    }
    reply = await create(http, bridge_server, body)
    response = ok_stream(reply)[1] if stream else ok_response(reply)
    echoed = response["text"]["format"]
    assert echoed["type"] == "json_schema" and echoed["name"] == "answer"
    assert echoed["schema"] == schema
    assert echoed["description"] is None
    assert isinstance(echoed["strict"], bool)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_max_output_tokens_cut_off_is_incomplete(
    http: aiohttp.ClientSession, bridge_server: BridgeServer, stream: bool
) -> None:
    """An answer cut short by `max_output_tokens` is `incomplete`, reason `max_output_tokens`
    (what the SDKs and Codex expect), not `completed`."""
    body = {
        "model": "sim-echo",
        "input": "one two three four five six seven eight nine ten eleven twelve",
        "max_output_tokens": 5,
        "stream": stream,
    }
    reply = await create(http, bridge_server, body)
    if stream:
        events, response = ok_stream(reply)
        assert events[-1]["type"] == "response.incomplete", [e["type"] for e in events]
    else:
        response = ok_response(reply)
    text = output_text(response)
    assert text and "twelve" not in text, text  # the model really was cut off
    assert response["usage"]["output_tokens"] <= 5
    assert response["status"] == "incomplete", (response["status"], text)
    assert response["incomplete_details"] == {"reason": "max_output_tokens"}


async def test_concurrent_streams(http: aiohttp.ClientSession, bridge_server: BridgeServer) -> None:
    async def one(n: int) -> str:
        body = {"model": "sim-echo", "input": f"request number {n}", "stream": n % 2 == 0}
        reply = await create(http, bridge_server, body)
        final = ok_stream(reply)[1] if n % 2 == 0 else ok_response(reply)
        return output_text(final)

    texts = await asyncio.gather(*(one(n) for n in range(8)))
    assert texts == [f"You said: request number {n}" for n in range(8)]


# --------------------------------------------------------------------------- errors


async def test_malformed_json(http: aiohttp.ClientSession, bridge_server: BridgeServer) -> None:
    reply = await request(
        http, "POST", f"{bridge_server.base_url}/responses", data='{"model": "sim-echo", "input": '
    )
    assert_error(reply, 400, code="invalid_json")


@pytest.mark.parametrize(
    "raw",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"model": "sim-echo", "input": ' + "[" * 5000 + "]" * 5000 + "}",
    ],
    ids=["body", "input"],
)
async def test_deeply_nested_json(
    http: aiohttp.ClientSession, bridge_server: BridgeServer, raw: str
) -> None:
    reply = await request(http, "POST", f"{bridge_server.base_url}/responses", data=raw)
    assert_error(reply, 400, code="invalid_json")


@pytest.mark.parametrize("item", [1, "text", None, [{"role": "user", "content": "x"}]])
async def test_input_item_that_is_not_an_object(
    http: aiohttp.ClientSession, bridge_server: BridgeServer, item: Any
) -> None:
    body = {"model": "sim-echo", "input": [{"role": "user", "content": "hi"}, item]}
    error = assert_error(await create(http, bridge_server, body), 400, param="input[1]")
    assert "must be an object" in error["message"]


@pytest.mark.parametrize("raw", ["[1, 2]", '"hello"', "42", "null"])
async def test_non_object_body(
    http: aiohttp.ClientSession, bridge_server: BridgeServer, raw: str
) -> None:
    reply = await request(http, "POST", f"{bridge_server.base_url}/responses", data=raw)
    assert_error(reply, 400)


@pytest.mark.parametrize(
    "body", [{"input": "hi"}, {"model": "", "input": "hi"}], ids=["absent", "empty"]
)
async def test_missing_model(
    http: aiohttp.ClientSession, bridge_server: BridgeServer, body: dict[str, Any]
) -> None:
    error = assert_error(await create(http, bridge_server, body), 400, param="model")
    assert "model" in error["message"]


async def test_missing_input(http: aiohttp.ClientSession, bridge_server: BridgeServer) -> None:
    assert_error(await create(http, bridge_server, {"model": "sim-echo"}), 400, param="input")


async def test_invalid_input_type(http: aiohttp.ClientSession, bridge_server: BridgeServer) -> None:
    reply = await create(http, bridge_server, {"model": "sim-echo", "input": 12})
    assert_error(reply, 400, param="input")


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"previous_response_id": "resp_123"}, "previous_response_id"),
        ({"conversation": "conv_123"}, "conversation"),
        ({"conversation": {"id": "conv_123"}}, "conversation"),
    ],
    ids=["previous_response_id", "conversation-string", "conversation-object"],
)
async def test_state_parameters_rejected(
    http: aiohttp.ClientSession,
    bridge_server: BridgeServer,
    extra: dict[str, Any],
    param: str,
) -> None:
    body = {"model": "sim-echo", "input": "hi", **extra}
    error = assert_error(
        await create(http, bridge_server, body), 400, code="unsupported_parameter", param=param
    )
    assert param in error["message"]
    assert "full conversation history" in error["message"]


async def test_item_reference_to_an_unknown_item_rejected(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    body = {
        "model": "sim-echo",
        "input": [{"role": "user", "content": "hi"}, {"type": "item_reference", "id": "msg_1"}],
    }
    error = assert_error(
        await create(http, bridge_server, body), 400, code="item_not_found", param="input[1].id"
    )
    assert "item_reference" in error["message"]
    assert "`providerOptions.openai.store` to `false`" in error["message"]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_unknown_model(
    http: aiohttp.ClientSession, bridge_server: BridgeServer, stream: bool
) -> None:
    body = {"model": "gpt-nonexistent", "input": "hi", "stream": stream}
    error = assert_error(
        await create(http, bridge_server, body), 404, code="model_not_found", param="model"
    )
    assert "gpt-nonexistent" in error["message"]
    assert "sim-echo" in error["message"] and "sim-reasoning" in error["message"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v1/nope"),
        ("POST", "/v1/completions"),  # the legacy text completions: not served
        ("GET", "/"),
    ],
)
async def test_unknown_path(
    http: aiohttp.ClientSession, bridge_server: BridgeServer, method: str, path: str
) -> None:
    reply = await request(http, method, f"{bridge_server.root_url}{path}")
    error = assert_error(reply, 404, code="not_found")
    assert path in error["message"]


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"tools": "get_weather"}, "tools"),
        ({"tools": [{"type": "function"}]}, "tools[0].name"),
        (
            {"tools": [WEATHER_TOOL], "tool_choice": {"type": "function", "name": "nope"}},
            "tool_choice",
        ),
        ({"input": [{"type": "message", "role": "robot", "content": "x"}]}, "input[0].role"),
        ({"input": []}, "input"),
    ],
    ids=["tools-not-list", "tool-without-name", "tool-choice-unknown", "bad-role", "empty-input"],
)
async def test_invalid_parameters(
    http: aiohttp.ClientSession,
    bridge_server: BridgeServer,
    extra: dict[str, Any],
    param: str,
) -> None:
    body = {"model": "sim-echo", "input": "hi", **extra}
    assert_error(await create(http, bridge_server, body), 400, param=param)


async def test_wrong_method(http: aiohttp.ClientSession, bridge_server: BridgeServer) -> None:
    # (GET is WebSocket mode: tests/test_websocket_e2e.py)
    reply = await request(http, "PUT", f"{bridge_server.base_url}/responses")
    assert_error(reply, 405, code="method_not_allowed")


async def test_api_key_required(
    http: aiohttp.ClientSession, bridge_server_factory: StartServer
) -> None:
    server = bridge_server_factory("--api-key", "s3cret")
    url = f"{server.base_url}/responses"
    body = {"model": "sim-echo", "input": "hi"}
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"x-api-key": "s3cre"}):
        reply = await request(http, "POST", url, body=body, headers=headers)
        assert_error(reply, 401, code="invalid_api_key", type_="authentication_error")
    assert_error(
        await request(http, "GET", f"{server.base_url}/models"),
        401,
        code="invalid_api_key",
        type_="authentication_error",
    )
    for headers in ({"Authorization": "Bearer s3cret"}, {"x-api-key": "s3cret"}):
        reply = await request(http, "POST", url, body=body, headers=headers)
        assert output_text(ok_response(reply)) == "You said: hi"
    assert (await request(http, "GET", f"{server.root_url}/health")).status == 200


# --------------------------------------------------------------------------- captured clients


CLIENT_FIXTURES = client_requests()


def test_client_fixtures_present() -> None:
    assert len(CLIENT_FIXTURES) >= 10
    for prefix in ("codex-", "py-", "node-", "agents-"):
        assert any(p.name.startswith(prefix) for p in CLIENT_FIXTURES), prefix
    assert all(client_headers(p) for p in CLIENT_FIXTURES), "every capture has its headers"


def _captured_headers(fixture: Path) -> dict[str, str]:
    headers = client_headers(fixture)
    return {k: str(v) for k, v in headers.items() if k.lower() not in _HOP_HEADERS}


@pytest.mark.parametrize("fixture", CLIENT_FIXTURES, ids=lambda p: p.stem)
async def test_captured_client_request(
    http: aiohttp.ClientSession, bridge_server: BridgeServer, fixture: Path
) -> None:
    body = json.loads(fixture.read_text(encoding="utf-8"))
    body["model"] = "sim-echo"
    reply = await create(http, bridge_server, body, headers=_captured_headers(fixture))
    if body.get("previous_response_id") is not None:
        error = assert_error(reply, 400, code="unsupported_parameter", param="previous_response_id")
        assert "full conversation history" in error["message"]
        return
    if body.get("stream"):
        _, final = ok_stream(reply)
    else:
        final = ok_response(reply)
    assert final["status"] == "completed", final
    assert final["model"] == "sim-echo"
    assert final["output"], "a completed response should have output"


# --------------------------------------------------------------------------- robustness


LONG_TEXT = "word " * 150_000  # streams for over a second: far more than the socket buffers hold
LONG_SCRIPT = {"rules": [{"match": "go long", "reply": [{"type": "text", "text": LONG_TEXT}]}]}


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, from /proc/<pid>/stat."""
    if sys.platform == "win32":
        raise NotImplementedError("reads /proc")
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def test_client_disconnect_mid_stream(
    http: aiohttp.ClientSession, bridge_server_factory: StartServer
) -> None:
    server = bridge_server_factory(script=LONG_SCRIPT)
    body = {"model": "sim-echo", "input": "go long", "stream": True}
    for _ in range(2):
        async with (
            aiohttp.ClientSession(timeout=TIMEOUT) as doomed,
            doomed.post(f"{server.base_url}/responses", json=body) as response,
        ):
            assert response.status == 200
            received = b""
            while b"response.output_text.delta" not in received:
                chunk = await response.content.readany()
                assert chunk, "the stream ended before any text delta"
                received += chunk
            assert b"response.completed" not in received
        # Leaving the block closes the connection mid-stream.

    # The editor's model request is cancelled: neither process keeps generating the answer.
    await asyncio.sleep(0.3)
    server.assert_alive()
    pids = [server.process.pid, *server.lsp_pids]
    before = sum(_cpu_seconds(pid) for pid in pids)
    await asyncio.sleep(0.7)
    busy = sum(_cpu_seconds(pid) for pid in pids) - before
    # Streaming this answer keeps them about one CPU busy for over a second.
    assert busy < 0.25, f"the server used {busy:.2f} s of CPU in the 0.7 s after the disconnects"

    started = time.monotonic()
    for stream in (False, True):
        reply = await create(
            http, server, {"model": "sim-echo", "input": "still there?", "stream": stream}
        )
        final = ok_stream(reply)[1] if stream else ok_response(reply)
        assert output_text(final) == "You said: still there?"
    assert time.monotonic() - started < 5, "the server is slow after the disconnects"
    assert (await request(http, "GET", f"{server.root_url}/health")).status == 200
    assert "Traceback" not in server.stderr_text(), server.stderr_text()


# --------------------------------------------------------------------------- the lsp alone


def _frame(message: dict[str, Any]) -> bytes:
    payload = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(payload), payload)


def _read_frame(stream: Any) -> dict[str, Any]:
    length = None
    while True:
        line = stream.readline()
        assert line, "the language server closed stdout"
        line = line.strip()
        if not line:
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    assert length is not None
    message: dict[str, Any] = json.loads(stream.read(length))
    return message


@contextlib.contextmanager
def _lsp() -> Iterator[subprocess.Popen[bytes]]:
    """`python -m bridge.cli lsp` with pipes, for the `with` block; killed if still running
    at its end."""
    process = subprocess.Popen(
        [sys.executable, "-m", "bridge.cli", "lsp"],
        cwd=REPO_ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    with process, reaped(process):
        yield process


def _wait_exit(process: subprocess.Popen[bytes], timeout: float) -> tuple[int, str]:
    """Wait for the process (stdin already closed); its exit code and stderr."""
    assert process.stderr is not None
    try:
        code = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the lsp process did not exit within {timeout} s of stdin closing")
    return code, process.stderr.read().decode(errors="replace")


def test_lsp_exits_when_stdin_closes() -> None:
    with _lsp() as process:
        time.sleep(0.5)  # let it reach its read loop
        assert process.stdin is not None
        process.stdin.close()
        code, err = _wait_exit(process, timeout=5)
    assert code == 0, err


def test_lsp_exits_and_frees_port_when_editor_vanishes() -> None:
    """After the handshake, the HTTP endpoint listens; closing stdin stops it."""
    with _lsp() as process:
        assert process.stdin is not None and process.stdout is not None
        init = {"protocolVersion": 1, "host": "127.0.0.1", "port": 0}
        process.stdin.write(
            _frame(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "processId": os.getpid(),
                        "capabilities": {},
                        "initializationOptions": init,
                    },
                }
            )
        )
        process.stdin.flush()
        reply = _read_frame(process.stdout)
        assert reply.get("id") == 1 and "result" in reply, reply
        caps = reply["result"]["capabilities"]
        assert caps["experimental"]["maestroBridge"] == {"protocolVersion": 1}
        process.stdin.write(_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        process.stdin.flush()
        ready = _read_frame(process.stdout)
        while ready.get("method") != "maestro/serverReady":
            assert ready.get("method") != "maestro/serverFailed", ready
            ready = _read_frame(process.stdout)
        url = ready["params"]["url"]
        port = ready["params"]["port"]
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/v1", url), url

        process.stdin.close()
        code, err = _wait_exit(process, timeout=5)
    assert code == 0, err
    with pytest.raises(OSError):  # nobody listens any more
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
