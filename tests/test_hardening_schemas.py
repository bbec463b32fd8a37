"""Issue 14, structured output: no client schema can freeze the bridge or break a response.

- A catastrophic `pattern` (`^(a|a)+$` against 40 "a" and a "!": hours of backtracking in
  Python's `re`, holding the GIL) is checked with a timeout off the event loop: the answer
  comes back unchanged ("not checked") and other clients are served meanwhile.
- A schema that can never be checked (`{"$ref": "#"}`, a 5000-deep `$ref` chain) is a 400
  naming `text.format.schema`, in JSON, SSE and WebSocket mode alike; a schema that recurses
  only for some answers, an answer nested too deeply to parse, a remote `$ref`: the answer is
  returned "not checked" (and nothing is fetched).
- Any unexpected error mid-response ends it with `response.failed` (SSE, WebSocket) or a 500
  envelope (JSON), with no internals in the message and the traceback logged once.

Against a real `maestro-bridge serve` with scripted answers, except the last group, which
needs a backend that raises: the bridge's aiohttp app with that backend, on a real socket.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from conftest import BridgeServer, running_bridge_server
from samples import output_text
from spec_validation import parse_sse, validate_response, validate_stream

from bridge.app import create_app
from bridge.core.backend import ChatRequest, ModelInfo, ResponsePart, TextPart
from bridge.core.schema_check import SafeSchema, Unchecked
from bridge.settings import BridgeSettings

TIMEOUT = aiohttp.ClientTimeout(total=60)
TERMINAL = ("response.completed", "response.failed", "response.incomplete")
CHECK_SECONDS = 10  # the server's answer-check budget: the window in which others are served

CATASTROPHIC_PATTERN = "^(a|a)+$"  # 2^40 paths for Python's `re`, and for `regex` too
CATASTROPHIC_ANSWER = json.dumps("a" * 40 + "!")
DEEP_ANSWER = "[" * 5_000 + "]" * 5_000  # json.loads: RecursionError

SCRIPT = {
    "rules": [
        {"match": "^catastrophic$", "reply": [{"type": "text", "text": CATASTROPHIC_ANSWER}]},
        {"match": "^an object$", "reply": [{"type": "text", "text": '{"a": 1}'}]},
        {"match": "^deep$", "reply": [{"type": "text", "text": DEEP_ANSWER}]},
    ]
}


def structured(schema: dict[str, Any]) -> dict[str, Any]:
    return {"format": {"type": "json_schema", "name": "answer", "schema": schema}}


def ref_chain(length: int) -> dict[str, Any]:
    """`$defs` a0 -> a1 -> ... -> a{length}: every value recurses `length` levels deep."""
    defs: dict[str, Any] = {f"a{i}": {"$ref": f"#/$defs/a{i + 1}"} for i in range(length)}
    defs[f"a{length}"] = {"type": "object"}
    return {"$ref": "#/$defs/a0", "$defs": defs}


# Schemas no answer can ever be checked against: refused before the model is asked.
NEVER_CHECKABLE = {
    "self": {"$ref": "#"},
    "self-in-anyOf": {"anyOf": [{"$ref": "#"}, {"type": "string"}]},
    "loop-of-two": {
        "$ref": "#/$defs/a",
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
    },
    "chain-5000": ref_chain(5000),
}

# A loop reached only through property `a`: a valid schema, but `{"a": 1}` cannot be checked.
LOOP_UNDER_A = {
    "type": "object",
    "properties": {"a": {"$ref": "#/$defs/loop"}},
    "$defs": {"loop": {"$ref": "#/$defs/loop"}},
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BridgeServer]:
    script = tmp_path_factory.mktemp("schemas") / "script.json"
    script.write_text(json.dumps(SCRIPT), encoding="utf-8")
    with running_bridge_server(
        "--script", str(script), "--answer-check-seconds", str(CHECK_SECONDS)
    ) as running:
        yield running


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(timeout=TIMEOUT) as session:
        yield session


def body(text: str, schema: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "sim-echo", "input": text, "text": structured(schema), **extra}


def ws_url(server: BridgeServer) -> str:
    return server.root_url.replace("http://", "ws://", 1) + "/v1/responses"


async def sse_events(resp: aiohttp.ClientResponse) -> list[dict[str, Any]]:
    assert resp.status == 200, await resp.text()
    return parse_sse((await resp.read()).decode())


async def ws_turn(
    http: aiohttp.ClientSession, url: str, create: dict[str, Any]
) -> list[dict[str, Any]]:
    """One `response.create` on a new connection: its events up to the terminal or error."""
    events: list[dict[str, Any]] = []
    async with http.ws_connect(url) as ws:
        await ws.send_str(json.dumps({"type": "response.create", **create}))
        while True:
            message = await ws.receive(timeout=30)
            assert message.type == aiohttp.WSMsgType.TEXT, f"no terminal event: {message}"
            events.append(json.loads(message.data))
            if events[-1]["type"] == "error" or events[-1]["type"] in TERMINAL:
                return events


# --------------------------------------------------------------------------- catastrophic pattern


@pytest.mark.timeout(120)  # without the fix, the server is frozen for hours: killed here
async def test_catastrophic_pattern_neither_freezes_the_server_nor_changes_the_answer(
    server: BridgeServer, http: aiohttp.ClientSession
) -> None:
    schema = {"type": "string", "pattern": CATASTROPHIC_PATTERN}
    resp = await http.post(
        f"{server.base_url}/responses", json=body("catastrophic", schema, stream=True)
    )
    assert resp.status == 200, await resp.text()
    seen = b""
    while b"response.output_text.delta" not in seen:  # the whole answer: the check is next
        chunk = await asyncio.wait_for(resp.content.readany(), 30)
        assert chunk, f"the stream ended early: {seen!r}"
        seen += chunk
    rest = asyncio.create_task(resp.read())

    # Meanwhile, other clients are served: the check does not hold the event loop.
    async with http.get(f"{server.root_url}/health") as health:
        assert health.status == 200
    other = await http.post(
        f"{server.base_url}/responses", json={"model": "sim-echo", "input": "hi"}
    )
    assert other.status == 200, await other.text()
    validate_response(await other.json())
    assert not rest.done(), "the checked answer ended before the other client was served"

    events = parse_sse((seen + await asyncio.wait_for(rest, 60)).decode())
    final = validate_stream(events)
    assert final["status"] == "completed"
    assert output_text(final) == CATASTROPHIC_ANSWER  # returned as the model wrote it
    assert "not checked" in server.stderr_text()


# --------------------------------------------------------------------------- never checkable


def assert_schema_400(status: int, error: dict[str, Any]) -> None:
    assert status == 400, error
    assert error["param"] == "text.format.schema"
    assert error["type"] == "invalid_request_error"
    assert "$ref" in error["message"]


@pytest.mark.parametrize("schema", NEVER_CHECKABLE.values(), ids=NEVER_CHECKABLE.keys())
@pytest.mark.parametrize("mode", ["json", "sse", "websocket"])
async def test_a_schema_that_can_never_be_checked_is_a_400(
    server: BridgeServer, http: aiohttp.ClientSession, mode: str, schema: dict[str, Any]
) -> None:
    request = body("an object", schema)
    if mode == "websocket":
        (event,) = await ws_turn(http, ws_url(server), request)
        assert event["type"] == "error", event
        assert_schema_400(event["status"], event["error"])
        return
    async with http.post(
        f"{server.base_url}/responses", json={**request, "stream": mode == "sse"}
    ) as resp:
        assert resp.content_type == "application/json"  # before any event: a plain 400
        assert_schema_400(resp.status, (await resp.json())["error"])


UNREADABLE = {
    "$schema-not-a-string": {"$schema": 5},
    "$schema-a-list": {"$schema": []},
    "$id-not-a-string": {"$id": 5},
}


@pytest.mark.parametrize("schema", UNREADABLE.values(), ids=UNREADABLE.keys())
async def test_a_schema_jsonschema_cannot_read_is_a_400(
    server: BridgeServer, http: aiohttp.ClientSession, schema: dict[str, Any]
) -> None:
    async with http.post(f"{server.base_url}/responses", json=body("an object", schema)) as resp:
        assert resp.status == 400, await resp.text()
        error = (await resp.json())["error"]
    assert error["param"] == "text.format.schema"


@pytest.mark.timeout(120)
async def test_validating_a_big_schema_does_not_hold_the_server(
    server: BridgeServer, http: aiohttp.ClientSession
) -> None:
    """6000 small objects in `$defs`: about 5 s of metaschema validation, once on the loop."""
    node = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}
    schema = {"type": "object", "$defs": {f"d{i}": node for i in range(6000)}}
    big = asyncio.create_task(
        http.post(f"{server.base_url}/responses", json=body("an object", schema))
    )
    await asyncio.sleep(0.5)  # the body is read: the schema is being validated
    for _ in range(3):
        started = time.monotonic()
        async with http.get(f"{server.root_url}/health") as health:
            assert health.status == 200
        assert time.monotonic() - started < 2.5, "the server stalled while validating"
    async with await asyncio.wait_for(big, 60) as resp:
        # Valid, and then too long for the model's context (the schema is in the prompt).
        assert resp.status == 400, await resp.text()
        assert (await resp.json())["error"]["code"] == "context_length_exceeded"


# --------------------------------------------------------------------------- not checked


NOT_CHECKABLE_ANSWERS = {
    "loop-under-a-property": ("an object", LOOP_UNDER_A, '{"a": 1}'),
    "answer-nested-5000-deep": ("deep", {"type": "array"}, DEEP_ANSWER),
}


@pytest.mark.parametrize(
    ("prompt", "schema", "answer"), NOT_CHECKABLE_ANSWERS.values(), ids=NOT_CHECKABLE_ANSWERS.keys()
)
@pytest.mark.parametrize("mode", ["json", "sse", "websocket"])
async def test_an_answer_that_cannot_be_checked_is_returned_unchecked(
    server: BridgeServer,
    http: aiohttp.ClientSession,
    mode: str,
    prompt: str,
    schema: dict[str, Any],
    answer: str,
) -> None:
    request = body(prompt, schema)
    if mode == "websocket":
        events = await ws_turn(http, ws_url(server), request)
        final = validate_stream(events)
    elif mode == "sse":
        async with http.post(
            f"{server.base_url}/responses", json={**request, "stream": True}
        ) as resp:
            final = validate_stream(await sse_events(resp))
    else:
        async with http.post(f"{server.base_url}/responses", json=request) as resp:
            assert resp.status == 200, await resp.text()
            final = await resp.json()
            validate_response(final)
    assert final["status"] == "completed"
    assert output_text(final) == answer


async def test_a_remote_ref_is_never_fetched(
    server: BridgeServer, http: aiohttp.ClientSession
) -> None:
    fetched: list[str] = []

    async def schema_host(request: web.Request) -> web.Response:
        fetched.append(request.path)
        return web.json_response({"type": "string"})

    app = web.Application()
    app.router.add_get("/{name}", schema_host)
    async with TestServer(app, host="127.0.0.1") as host:
        remote = {"type": "object", "properties": {"a": {"$ref": str(host.make_url("/a"))}}}
        async with http.post(
            f"{server.base_url}/responses", json=body("an object", remote)
        ) as resp:
            assert resp.status == 200, await resp.text()
            assert output_text(await resp.json()) == '{"a": 1}'
    assert fetched == []


# --------------------------------------------------------------------------- unexpected errors


class FailingBackend:
    """Sends one part, then fails the way a bug would (not as an editor failure)."""

    def __init__(self, parts_first: int) -> None:
        self.parts_first = parts_first

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo(id="sim-echo", name="Echo")]

    async def chat(self, request: ChatRequest) -> AsyncGenerator[list[ResponsePart], None]:
        for _ in range(self.parts_first):
            yield [TextPart(value="half an answer")]
        raise RuntimeError("secret internal detail")

    async def count_tokens(self, model: str, text: str) -> int:
        return len(text)


@pytest.fixture
async def failing_client() -> AsyncIterator[TestClient[web.Request, web.Application]]:
    async with TestClient(TestServer(create_app(FailingBackend(1), BridgeSettings()))) as client:
        yield client


def tracebacks(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.exc_info is not None]


@pytest.mark.parametrize("mode", ["json", "sse", "websocket"])
async def test_an_unexpected_error_mid_response_fails_it_cleanly(
    failing_client: TestClient[web.Request, web.Application],
    caplog: pytest.LogCaptureFixture,
    mode: str,
) -> None:
    request = {"model": "sim-echo", "input": "hi"}
    if mode == "json":
        async with failing_client.post("/v1/responses", json=request) as resp:
            assert resp.status == 500
            error = (await resp.json())["error"]
        assert (error["type"], error["code"]) == ("server_error", "internal_error")
        assert "secret" not in error["message"]
    else:
        if mode == "sse":
            async with failing_client.post(
                "/v1/responses", json={**request, "stream": True}
            ) as resp:
                events = await sse_events(resp)
        else:
            events = []
            async with failing_client.ws_connect("/v1/responses") as ws:
                await ws.send_str(json.dumps({"type": "response.create", **request}))
                while not events or events[-1]["type"] not in (*TERMINAL, "error"):
                    events.append(json.loads((await ws.receive(timeout=10)).data))
        final = validate_stream(events)
        assert events[-1]["type"] == "response.failed"
        assert final["error"]["code"] == "internal_error"
        assert "secret" not in final["error"]["message"]
        assert any(e["type"] == "response.output_text.delta" for e in events)  # mid-stream
    (logged,) = tracebacks(caplog)  # once, with its traceback
    assert logged.levelno == logging.ERROR


@pytest.mark.parametrize("mode", ["json", "sse", "websocket"])
async def test_an_unexpected_error_before_any_part_is_a_500(
    caplog: pytest.LogCaptureFixture, mode: str
) -> None:
    app = create_app(FailingBackend(0), BridgeSettings())
    request = {"model": "sim-echo", "input": "hi"}
    async with TestClient(TestServer(app)) as client:
        if mode == "websocket":
            async with client.ws_connect("/v1/responses") as ws:
                await ws.send_str(json.dumps({"type": "response.create", **request}))
                event = json.loads((await ws.receive(timeout=10)).data)
            assert (event["type"], event["status"]) == ("error", 500)
            error = event["error"]
        else:
            stream = mode == "sse"
            async with client.post("/v1/responses", json={**request, "stream": stream}) as resp:
                assert resp.status == 500
                error = (await resp.json())["error"]
    assert error["code"] == "internal_error" and "secret" not in error["message"]
    assert len(tracebacks(caplog)) == 1


# --------------------------------------------------------------------------- every regex bounded

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
KEY = "a" * 40 + "!"

# Every place jsonschema runs a regular expression, each with the catastrophic pattern.
REGEX_PLACES = {
    "pattern": ({"type": "string", "pattern": CATASTROPHIC_PATTERN}, KEY),
    "patternProperties": ({"patternProperties": {CATASTROPHIC_PATTERN: {}}}, {KEY: 1}),
    # Before `patternProperties` (keywords run in the schema's order): each place on its own.
    "additionalProperties": (
        {"additionalProperties": False, "patternProperties": {CATASTROPHIC_PATTERN: {}}},
        {KEY: 1},
    ),
    "propertyNames": ({"propertyNames": {"pattern": CATASTROPHIC_PATTERN}}, {KEY: 1}),
    "unevaluatedProperties": (
        {"unevaluatedProperties": False, "patternProperties": {CATASTROPHIC_PATTERN: {}}},
        {KEY: 1},
    ),
    # A subschema naming its own draft: jsonschema switches validator class there.
    "pattern-under-own-$schema": (
        {"properties": {"k": {"$schema": DRAFT_07, "pattern": CATASTROPHIC_PATTERN}}},
        {"k": KEY},
    ),
    "draft-07": ({"$schema": DRAFT_07, "pattern": CATASTROPHIC_PATTERN}, KEY),
}


@pytest.mark.timeout(60)  # Python's `re` would take hours on each
@pytest.mark.parametrize(("schema", "value"), REGEX_PLACES.values(), ids=REGEX_PLACES.keys())
def test_every_regular_expression_of_a_schema_is_bounded(
    schema: dict[str, Any], value: Any
) -> None:
    checker = SafeSchema(schema)
    started = time.monotonic()
    with pytest.raises(Unchecked):
        checker.first_error(value, deadline=started + 0.5)
    assert time.monotonic() - started < 10  # the budget plus slack, not hours


def test_a_bounded_check_still_finds_errors() -> None:
    """The bounds change no verdict: same keyword and place as jsonschema itself."""
    schema = {
        "type": "object",
        "properties": {"id": {"type": "string", "pattern": "^[a-z]+-[0-9]+$"}},
        "patternProperties": {"^x-": {"type": "integer"}},
        "additionalProperties": False,
        "$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}},
    }
    checker = SafeSchema(schema)
    deadline = time.monotonic() + 30
    assert checker.first_error({"id": "ab-12", "x-n": 3}, deadline) is None
    for value, keyword, path in (
        ({"id": "AB-12"}, "pattern", ["id"]),
        ({"x-n": "3"}, "type", ["x-n"]),
        ({"other": 1}, "additionalProperties", []),
    ):
        error = checker.first_error(value, deadline)
        assert error is not None and (error.validator, list(error.absolute_path)) == (keyword, path)
