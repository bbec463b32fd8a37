"""Issue 14's "held already" list, kept as regression tests against real `maestro-bridge serve`
processes: DNS-rebinding Host names, browser origins on WebSocket handshakes, the key in a query
string, compression bombs, request smuggling headers, 200 concurrent streams against the cap,
an editor stopped or killed mid-stream, and schemathesis over the Responses API spec.

What tests/test_security.py, tests/test_load.py and tests/test_faults.py cover already is not
repeated here (foreign Host names, `Origin: null` over plain HTTP, the key in headers, 64
concurrent streams, an editor whose pipes close).
"""

from __future__ import annotations

import asyncio
import gzip
import http.client
import json
import socket
import time
import zlib
from collections import Counter
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import pytest
import requests
import schemathesis
from conftest import BridgeServer, StartServer, is_running, running_bridge_server
from fixture_files import OPENAPI_SPEC
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from processes import paused
from schemathesis.generation import GenerationMode
from spec_validation import parse_sse, validate_stream

from bridge.http.bind_policy import is_loopback_host

BODY = json.dumps({"model": "sim-echo", "input": "hi"}).encode()
CAP = 64  # the default maxConcurrentRequests
BOUND_SECONDS = 60.0  # against hangs only


def address(server: BridgeServer) -> tuple[str, int]:
    parts = urlsplit(server.root_url)
    return parts.hostname or "", parts.port or 0


def raw_request(server: BridgeServer, head: list[str], body: bytes = b"") -> tuple[int, bytes]:
    """Send `head` (request line and header lines, exactly as given) and `body` on a fresh
    socket; return the status and the body of the one answer (the server may close after)."""
    with socket.create_connection(address(server), timeout=30) as sock:
        sock.sendall("\r\n".join([*head, "", ""]).encode("latin-1") + body)
        resp = http.client.HTTPResponse(sock)
        resp.begin()
        return resp.status, resp.read()


def error_code(status: int, raw: bytes, expected: int) -> str | None:
    assert status == expected, raw[:500]
    error = json.loads(raw)["error"]
    assert set(error) == {"message", "type", "param", "code"}, error
    return error["code"]  # type: ignore[no-any-return]


def post_head(host: str | None, length: int = len(BODY)) -> list[str]:
    """`POST /v1/responses` with a JSON body of `length` bytes (`host` None: no Host)."""
    lines = ["POST /v1/responses HTTP/1.1"]
    if host is not None:
        lines.append(f"Host: {host}")
    return [*lines, "Content-Type: application/json", f"Content-Length: {length}"]


def still_serving(server: BridgeServer) -> None:
    server.assert_alive()
    host = f"127.0.0.1:{address(server)[1]}"
    status, raw = raw_request(server, [*post_head(host), "Connection: close"], BODY)
    assert status == 200, raw[:500]
    assert json.loads(raw)["status"] == "completed"


# --------------------------------------------------------------------------- Host (rebinding)


REBINDING_HOSTS = [
    "127.0.0.1.nip.io",  # public DNS that resolves to 127.0.0.1: the rebinding attack itself
    "127.0.0.1.nip.io:{port}",
    "localhost.evil.com",
    "localhost.evil.com:{port}",
    "::ffff:127.0.0.1",  # IPv4-mapped loopback: not a name a local client sends
    "[::ffff:127.0.0.1]:{port}",
    "0x7f000001",  # the numeric spellings browsers resolve to 127.0.0.1
    "0x7f000001:{port}",
    "2130706433",
    "2130706433:{port}",
    "127.1",
    "127.1:{port}",
]


@pytest.mark.parametrize("template", REBINDING_HOSTS)
def test_rebinding_host_names_are_refused(bridge_server: BridgeServer, template: str) -> None:
    host = template.format(port=address(bridge_server)[1])
    status, raw = raw_request(bridge_server, [*post_head(host), "Connection: close"], BODY)
    assert error_code(status, raw, 403) == "host_not_allowed", host


def test_ipv4_mapped_loopback_is_not_a_local_name() -> None:
    """Python 3.13's ipaddress calls ::ffff:127.0.0.1 loopback (3.10-3.12 do not): the Host
    check and the bind check give the same answer on every version."""
    for name in ("::ffff:127.0.0.1", "[::ffff:127.0.0.1]", "::FFFF:7f00:1"):
        assert not is_loopback_host(name), name
    assert is_loopback_host("::1") and is_loopback_host("127.0.0.1")


def test_empty_or_missing_host_is_refused(bridge_server: BridgeServer) -> None:
    # An empty Host passes aiohttp's parser and reaches the check: 403.
    status, raw = raw_request(bridge_server, [*post_head(""), "Connection: close"], BODY)
    assert error_code(status, raw, 403) == "host_not_allowed"
    # HTTP/1.0 may omit Host: the check refuses it too.
    head = ["POST /v1/responses HTTP/1.0", "Content-Type: application/json"]
    status, raw = raw_request(bridge_server, [*head, f"Content-Length: {len(BODY)}"], BODY)
    assert error_code(status, raw, 403) == "host_not_allowed"
    # HTTP/1.1 without Host: aiohttp's parser refuses it before any route (400), no answer.
    status, raw = raw_request(bridge_server, [*post_head(None), "Connection: close"], BODY)
    assert status in (400, 403), raw[:500]
    assert b'"output"' not in raw


# --------------------------------------------------------------------------- browsers


@pytest.mark.parametrize("origin", ["https://evil.example", "null"])
def test_browser_websocket_handshakes_are_refused(bridge_server: BridgeServer, origin: str) -> None:
    host = f"127.0.0.1:{address(bridge_server)[1]}"
    head = [
        "GET /v1/responses HTTP/1.1",
        f"Host: {host}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version: 13",
        f"Origin: {origin}",
    ]
    status, raw = raw_request(bridge_server, head)
    assert error_code(status, raw, 403) == "origin_not_allowed"
    # The same handshake without Origin (a program, not a page) is accepted: 101.
    with socket.create_connection(address(bridge_server), timeout=30) as sock:
        sock.sendall("\r\n".join([*head[:-1], "", ""]).encode())
        assert sock.recv(64).startswith(b"HTTP/1.1 101")


def test_origin_null_is_refused_on_every_route(bridge_server: BridgeServer) -> None:
    host = f"127.0.0.1:{address(bridge_server)[1]}"
    for path in ("/v1/responses", "/v1/responses/compact", "/v1/responses/input_tokens"):
        head = [*post_head(host), "Origin: null", "Connection: close"]
        head[0] = f"POST {path} HTTP/1.1"
        status, raw = raw_request(bridge_server, head, BODY)
        assert error_code(status, raw, 403) == "origin_not_allowed", path


# --------------------------------------------------------------------------- API key


def test_api_key_in_the_query_string_is_not_accepted(bridge_server_factory: StartServer) -> None:
    key = "query-string-k3y"
    server = bridge_server_factory(env={"MAESTRO_BRIDGE_API_KEY": key})
    host = f"127.0.0.1:{address(server)[1]}"
    for query in (
        f"api_key={key}",
        f"key={key}",
        f"x-api-key={key}",
        f"authorization=Bearer+{key}",
    ):
        head = [*post_head(host), "Connection: close"]
        head[0] = f"POST /v1/responses?{query} HTTP/1.1"
        status, raw = raw_request(server, head, BODY)
        assert error_code(status, raw, 401) == "invalid_api_key", query
        assert key.encode() not in raw
        get = [f"GET /v1/models?{query} HTTP/1.1", f"Host: {host}", "Connection: close"]
        status, raw = raw_request(server, get)
        assert error_code(status, raw, 401) == "invalid_api_key", query
    # The header still works on the same server.
    head = [*post_head(host), f"Authorization: Bearer {key}", "Connection: close"]
    status, raw = raw_request(server, head, BODY)
    assert status == 200, raw[:500]


# --------------------------------------------------------------------------- bodies


def bomb(encoding: str) -> bytes:
    """A few dozen KB that expand to 64 MiB, twice the default 32 MiB body limit. (A JSON
    prefix, so a server that inflated the whole of it would be reading a real request.)"""
    payload = b'{"model": "sim-echo", "input": "' + b" " * (64 * 1024 * 1024) + b'"}'
    if encoding == "gzip":
        return gzip.compress(payload, compresslevel=9)
    return zlib.compress(payload, 9)


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_compression_bombs_get_413(bridge_server: BridgeServer, encoding: str) -> None:
    data = bomb(encoding)
    assert len(data) < 128 * 1024
    host = f"127.0.0.1:{address(bridge_server)[1]}"
    for path in ("/v1/responses", "/v1/responses/input_tokens", "/v1/responses/compact"):
        head = [*post_head(host, length=len(data)), f"Content-Encoding: {encoding}"]
        head[0] = f"POST {path} HTTP/1.1"
        status, raw = raw_request(bridge_server, [*head, "Connection: close"], data)
        assert error_code(status, raw, 413) == "request_too_large", path
    still_serving(bridge_server)


SMUGGLING = {
    "duplicate Content-Length": [f"Content-Length: {len(BODY)}"],
    "conflicting Content-Length": ["Content-Length: 3"],
    "Content-Length with chunked": ["Transfer-Encoding: chunked"],
    "chunked with Content-Length first": ["Transfer-Encoding: chunked", "Content-Length: 0"],
    "Content-Length list": [],  # the header itself is replaced below
}


@pytest.mark.parametrize("case", list(SMUGGLING))
def test_ambiguous_body_length_is_refused(bridge_server: BridgeServer, case: str) -> None:
    host = f"127.0.0.1:{address(bridge_server)[1]}"
    head = [*post_head(host), *SMUGGLING[case]]
    if case == "Content-Length list":
        head = [line for line in head if not line.startswith("Content-Length")]
        head.append(f"Content-Length: {len(BODY)}, {len(BODY)}")
    body = BODY
    if "chunked" in case:
        body = b"%x\r\n%s\r\n0\r\n\r\n" % (len(BODY), BODY)
    status, _ = raw_request(bridge_server, head, body)
    assert status == 400, case
    still_serving(bridge_server)


# --------------------------------------------------------------------------- load


async def held_stream(
    session: aiohttp.ClientSession, url: str, n: int, opened: asyncio.Queue[int]
) -> list[dict[str, Any]]:
    """A stream whose model pauses after its first part: reported on `opened` once that part
    arrived (its model slot is taken), then read to its end."""
    body = {"model": "sim-echo", "input": f"hold {n}", "stream": True}
    async with session.post(f"{url}/responses", json=body) as resp:
        assert resp.status == 200, await resp.text()
        seen = b""
        while b"response.output_text.delta" not in seen:
            chunk = await resp.content.readany()
            assert chunk, seen
            seen += chunk
        await opened.put(n)
        seen += await resp.read()
    return parse_sse(seen.decode())


async def refused_stream(session: aiohttp.ClientSession, url: str, n: int) -> tuple[int, str]:
    body = {"model": "sim-echo", "input": f"more {n}", "stream": True}
    async with session.post(f"{url}/responses", json=body) as resp:
        await resp.read()
        return resp.status, resp.headers.get("Retry-After", "")


async def test_200_concurrent_streams_64_complete_the_rest_429(
    bridge_server_factory: StartServer,
) -> None:
    # The held streams pause 15 s mid-answer: ample for 136 quick refusals on a loaded machine.
    hold = [
        {"type": "text", "text": "first part "},
        {"type": "pause", "seconds": 15},
        {"type": "text", "text": "last part"},
    ]
    server = bridge_server_factory(script={"rules": [{"match": "^hold", "reply": hold}]})
    url = server.base_url
    total = 200
    opened: asyncio.Queue[int] = asyncio.Queue()
    connector = aiohttp.TCPConnector(limit=total + 1)
    timeout = aiohttp.ClientTimeout(total=BOUND_SECONDS * 2)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        held = [asyncio.create_task(held_stream(session, url, n, opened)) for n in range(CAP)]
        for _ in range(CAP):  # every held stream has its slot
            await asyncio.wait_for(opened.get(), BOUND_SECONDS)
        refusals = await asyncio.wait_for(
            asyncio.gather(*(refused_stream(session, url, n) for n in range(total - CAP))),
            BOUND_SECONDS,
        )
        assert not any(task.done() for task in held), "a held stream ended before the refusals"
        streams = await asyncio.wait_for(asyncio.gather(*held), BOUND_SECONDS)
    statuses = Counter(status for status, _ in refusals)
    assert statuses == {429: total - CAP}, statuses
    assert all(int(retry) >= 1 for _, retry in refusals)
    for events in streams:
        final = validate_stream(events)
        assert final["status"] == "completed"
        assert final["output"][-1]["content"][0]["text"] == "first part last part"
    still_serving(server)


# --------------------------------------------------------------------------- the editor stops
#
# `serve` is the headless editor (the simulated model runs in it); the language server that
# serves HTTP is its child. Stopping or killing the `serve` process is "the editor froze or
# crashed": the language server must notice on its own. (Stopping the child would freeze the
# HTTP server itself, which no response.failed could report.)


FIRST_PART = "before the stop "
STOP_SCRIPT = {
    "rules": [
        {
            "match": "^stop me",
            "reply": [
                {"type": "text", "text": FIRST_PART},
                {"type": "pause", "seconds": 3},
                {"type": "text", "text": "after the stop"},
            ],
        }
    ]
}
IDLE_TIMEOUT = 5  # longer than the script's pause: a running editor always finishes


async def open_until_first_delta(
    session: aiohttp.ClientSession, url: str
) -> tuple[aiohttp.ClientResponse, bytes]:
    body = {"model": "sim-echo", "input": "stop me", "stream": True}
    resp = await session.post(f"{url}/responses", json=body)
    assert resp.status == 200, await resp.text()
    # The model may stream its first part in several deltas: wait for all of it, so the
    # stop lands in the script's pause and the text before it is known exactly.
    seen = b""
    while streamed_text(seen) != FIRST_PART:
        chunk = await asyncio.wait_for(resp.content.readany(), BOUND_SECONDS)
        assert chunk, seen
        seen += chunk
    return resp, seen


def streamed_text(seen: bytes) -> str:
    """The text deltas among the complete SSE frames received so far."""
    complete, ends, _ = seen.rpartition(b"\n\n")
    events = parse_sse((complete + ends).decode()) if ends else []
    return "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")


def check_failed_stream(events: list[dict[str, Any]], code: str) -> None:
    """Ends with response.failed; the text streamed before is there once, nothing after it."""
    validate_stream(events)
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert events[-1]["type"] == "response.failed", events[-1]
    assert events[-1]["response"]["error"]["code"] == code, events[-1]
    deltas = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")
    assert deltas == FIRST_PART, deltas


async def test_editor_stopped_mid_stream_fails_it_and_recovers(
    bridge_server_factory: StartServer,
) -> None:
    server = bridge_server_factory("--idle-timeout", str(IDLE_TIMEOUT), script=STOP_SCRIPT)
    url = server.base_url
    async with aiohttp.ClientSession() as session:
        # Not stopped, the same request completes: the failure below is the stop's doing.
        async with session.post(
            f"{url}/responses", json={"model": "sim-echo", "input": "stop me"}
        ) as r:
            assert r.status == 200
            assert (await r.json())["output"][-1]["content"][0]["text"] == (
                "before the stop after the stop"
            )
        resp, seen = await open_until_first_delta(session, url)
        with paused(server.process.pid):
            rest = await asyncio.wait_for(resp.read(), BOUND_SECONDS)
        resp.release()
        check_failed_stream(parse_sse((seen + rest).decode()), "editor_timeout")
        # The editor, running again, sends the rest of the cancelled answer: it goes nowhere,
        # and the next requests are answered.
        await asyncio.sleep(1)
        for stream in (False, True):
            body = {"model": "sim-echo", "input": "after SIGCONT", "stream": stream}
            async with session.post(f"{url}/responses", json=body) as r:
                assert r.status == 200
                text = await r.text()
            final = validate_stream(parse_sse(text)) if stream else json.loads(text)
            assert final["status"] == "completed"
            assert final["output"][-1]["content"][0]["text"] == "You said: after SIGCONT"
    server.assert_alive()


async def test_editor_killed_mid_stream_fails_it(bridge_server_factory: StartServer) -> None:
    server = bridge_server_factory(script=STOP_SCRIPT)
    server.release()  # this test kills it
    (lsp_pid,) = server.lsp_pids
    async with aiohttp.ClientSession() as session:
        resp, seen = await open_until_first_delta(session, server.base_url)
        server.process.kill()
        rest = await asyncio.wait_for(resp.read(), BOUND_SECONDS)
        resp.release()
    check_failed_stream(parse_sse((seen + rest).decode()), "editor_unavailable")
    # Its editor gone, the language server exits by itself (conftest kills what is left).
    server.process.wait(timeout=10)
    deadline = time.monotonic() + 10
    while is_running(lsp_pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert not is_running(lsp_pid), "the language server outlived its killed editor by 10 s"


# --------------------------------------------------------------------------- schemathesis
#
# Requests generated from the Responses API spec (valid ones, and ones that break it on
# purpose), sent to a real `serve`: whatever they hold, never a 5xx.

SCHEMA = schemathesis.openapi.from_path(str(OPENAPI_SPEC))
SPEC_CASES = {"/responses": 2000, "/responses/compact": 500}
SPEC_STATUSES: Counter[int] = Counter()


def generated_cases(path: str) -> st.SearchStrategy[Any]:
    operation = SCHEMA[path]["POST"]
    positive = operation.as_strategy(GenerationMode.POSITIVE)
    return positive | operation.as_strategy(GenerationMode.NEGATIVE)


def steer_to_the_model(case: Any) -> None:
    """Most spec-valid bodies stop at a 400 (a model name the bridge does not know, no
    `input`, `previous_response_id` over HTTP): these edits let them reach the model."""
    if case.media_type != "application/json" or not isinstance(case.body, dict):
        return
    case.body["model"] = "sim-echo"
    if not isinstance(case.body.get("input"), (str, list)) or not case.body["input"]:
        case.body["input"] = "hello"
    for name in ("previous_response_id", "conversation", "background"):
        case.body.pop(name, None)


@pytest.fixture(scope="module")
def spec_server() -> Iterator[BridgeServer]:
    with running_bridge_server() as server:
        yield server
    print(f"\nschemathesis: statuses {dict(sorted(SPEC_STATUSES.items()))}")


@pytest.fixture(scope="module")
def spec_session() -> Iterator[requests.Session]:
    with requests.Session() as session:
        yield session


@pytest.mark.timeout(600)
@pytest.mark.parametrize("path", list(SPEC_CASES))
def test_schemathesis_finds_no_server_error(
    spec_server: BridgeServer, spec_session: requests.Session, path: str
) -> None:
    started = time.monotonic()
    seen: Counter[int] = Counter()

    @settings(
        max_examples=SPEC_CASES[path],
        deadline=None,
        database=None,
        derandomize=True,  # the same cases every run: a failure reproduces
        suppress_health_check=list(HealthCheck),
    )
    @given(case=generated_cases(path), steer=st.booleans())
    def send(case: Any, steer: bool) -> None:
        if steer:
            steer_to_the_model(case)
        response = case.call(base_url=spec_server.base_url, session=spec_session, timeout=30)
        seen[response.status_code] += 1
        assert response.status_code < 500, (response.status_code, response.text[:1000])

    send()
    SPEC_STATUSES.update(seen)
    took = time.monotonic() - started
    print(f"\nschemathesis {path}: {sum(seen.values())} cases in {took:.0f} s, {dict(seen)}")
    assert sum(seen.values()) >= SPEC_CASES[path] * 0.9  # generation did not give up early
    assert seen[200] >= SPEC_CASES[path] * 0.05, seen  # many cases reached the model
    spec_server.assert_alive()
