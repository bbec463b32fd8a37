"""What goes wrong between an MCP client and a real `maestro-bridge serve --tools`: an unknown
tool, bad arguments, a denied tool, a tool that throws, a client that goes away or cancels
mid-call, a call over the timeout, a result over the size bound, and the HTTP layer's own
refusals. Each leaves the server serving: the next tools/list still works."""

from __future__ import annotations

import concurrent.futures
import json
import socket
import time
import urllib.request
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from conftest import BridgeServer, StartServer, running_bridge_server
from mcp_wire import (
    ASKED_WAIT,
    DEBUG_LOG,
    EDITOR_CANCELLED_WAIT,
    LATEST,
    McpSession,
    initialize_body,
    log_count,
    mcp_url,
    request_body,
    text_of,
    through_the_editor,
    wait_for_log,
)
from plain_http import Reply
from plain_http import post as plain_post

INVALID_PARAMS = -32602
KEY = "mcp-errors-key"
AUTH = {"Authorization": f"Bearer {KEY}"}


def post(
    url: str, body: Any = None, raw: bytes | None = None, headers: dict[str, str] | None = None
) -> Reply:
    """plain_http's post with the server's key (the tools want one)."""
    return plain_post(url, body, raw=raw, headers={**AUTH, **(headers or {})})


@pytest.fixture(scope="module")
def server() -> Iterator[BridgeServer]:
    """One server for the module: sim_list_files denied, results cut at 1000 characters."""
    args = (
        "--tools",
        "--api-key",
        KEY,
        "--tools-deny",
        "sim_list_*",
        "--tools-max-result-chars",
        "1000",
    )
    with running_bridge_server(*args, env=DEBUG_LOG) as started:
        yield started


def still_serving(session: McpSession) -> None:
    names = session.tool_names()
    assert "sim_wait" in names and "editor_diagnostics" in names, names


def test_an_unknown_tool_is_invalid_params(server: BridgeServer) -> None:
    session = McpSession(server, "unknown-tool", dict(AUTH))
    answer = session.request("tools/call", {"name": "sim_nope", "arguments": {}})
    assert answer["error"] == {
        "code": INVALID_PARAMS,
        "message": "Unknown tool 'sim_nope': tools/list names the tools there are.",
    }
    still_serving(session)


def test_bad_arguments_are_a_tool_error_naming_the_problem(server: BridgeServer) -> None:
    session = McpSession(server, "bad-arguments", dict(AUTH))
    missing = session.call("sim_read_file", {})
    assert missing["isError"] is True
    assert text_of(missing) == "Invalid arguments for sim_read_file: 'path' is a required property"
    wrong = session.call("sim_read_file", {"path": 3})
    assert wrong["isError"] is True
    assert text_of(wrong) == (
        "Invalid arguments for sim_read_file: 3 is not of type 'string' (at path)"
    )
    line_zero = session.call("editor_definition", {"path": "main.py", "line": 0, "column": 1})
    assert line_zero["isError"] is True
    assert text_of(line_zero) == (
        "Invalid arguments for editor_definition: 0 is less than the minimum of 1 (at line)"
    )
    still_serving(session)


def test_a_denied_tool_is_not_listed_and_not_called(server: BridgeServer) -> None:
    session = McpSession(server, "denied-tool", dict(AUTH))
    names = session.tool_names()
    assert "sim_list_files" not in names and "sim_read_file" in names
    answer = session.request("tools/call", {"name": "sim_list_files", "arguments": {}})
    assert answer["error"]["code"] == INVALID_PARAMS
    assert "tools.deny" in answer["error"]["message"]
    assert "'sim_list_files'" in answer["error"]["message"]
    still_serving(session)


def test_a_tool_that_throws_is_a_tool_error_with_its_message(server: BridgeServer) -> None:
    session = McpSession(server, "throws", dict(AUTH))
    failed = session.call("sim_fail", {"message": "The disk is on fire."})
    assert failed == {
        "content": [{"type": "text", "text": "The disk is on fire."}],
        "isError": True,
    }
    # A language feature the editor refuses (no such file) is a tool error too.
    missing = session.call("editor_document_symbols", {"path": "nowhere.py"})
    assert missing["isError"] is True
    assert text_of(missing) == "No such file in the workspace: file:///sim-workspace/nowhere.py"
    still_serving(session)


def test_a_result_over_the_bound_is_cut_with_a_note(server: BridgeServer) -> None:
    session = McpSession(server, "big-result", dict(AUTH))
    result = session.call("sim_echo", {"text": "ab", "times": 700})
    assert result["isError"] is False
    assert result["content"] == [
        {"type": "text", "text": "ab" * 500},
        {
            "type": "text",
            "text": "[Maestro Bridge cut this result: it was 1400 characters, over the limit "
            "of 1000 (tools.maxResultChars).]",
        },
    ]
    whole = session.call("sim_echo", {"text": "ab", "times": 500})
    assert whole["content"] == [{"type": "text", "text": "ab" * 500}]
    still_serving(session)


def _raw_post(url: str, body: dict[str, Any], headers: dict[str, str]) -> socket.socket:
    """A POST written to a socket of its own, its answer never read."""
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    sock = socket.create_connection((parts.hostname, parts.port), timeout=10)
    data = json.dumps(body).encode()
    head = {
        "Host": parts.netloc,
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "Content-Length": str(len(data)),
        **headers,
    }
    lines = [f"POST {parts.path} HTTP/1.1", *(f"{k}: {v}" for k, v in head.items()), "", ""]
    sock.sendall("\r\n".join(lines).encode() + data)
    return sock


def test_a_client_that_goes_away_mid_call_cancels_it_in_the_editor(
    server: BridgeServer,
) -> None:
    session = McpSession(server, "goes-away", dict(AUTH))
    asked = log_count(server, ASKED_WAIT)
    stopped = log_count(server, EDITOR_CANCELLED_WAIT)
    call = request_body("tools/call", {"name": "sim_wait", "arguments": {"seconds": 30}})
    with _raw_post(session.url, call, {**AUTH, "Mcp-Session-Id": session.id}):
        wait_for_log(server, ASKED_WAIT, asked + 1)  # the bridge asked the editor
        through_the_editor(session)  # the editor runs it
    # The socket is closed: the bridge cancels the call, and the editor's tool with it.
    wait_for_log(server, r"INFO bridge\.mcp\.calls: Tool sim_wait for goes-away: cancelled")
    wait_for_log(server, EDITOR_CANCELLED_WAIT, stopped + 1)
    assert text_of(session.call("sim_wait", {"seconds": 0})) == "Waited 0 seconds."
    still_serving(session)


def test_notifications_cancelled_stops_a_running_call(server: BridgeServer) -> None:
    session = McpSession(server, "cancels", dict(AUTH))
    asked = log_count(server, ASKED_WAIT)
    stopped = log_count(server, EDITOR_CANCELLED_WAIT)
    call = request_body("tools/call", {"name": "sim_wait", "arguments": {"seconds": 30}})
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pending = pool.submit(session.post, call)
        wait_for_log(server, ASKED_WAIT, asked + 1)
        through_the_editor(session)
        sent = session.notify(
            "notifications/cancelled", {"requestId": call["id"], "reason": "changed my mind"}
        )
        assert sent.status_code == 202, sent.text
        reply = pending.result(timeout=20)
    assert time.monotonic() - started < 20  # sim_wait would have run 30 s
    assert reply.status_code == 200, reply.text
    assert reply.json()["id"] == call["id"]
    assert "cancelled" in reply.json()["error"]["message"]
    wait_for_log(server, r"INFO bridge\.mcp\.calls: Tool sim_wait for cancels: cancelled")
    wait_for_log(server, EDITOR_CANCELLED_WAIT, stopped + 1)
    # A cancel for a request that is not running changes nothing.
    assert session.notify("notifications/cancelled", {"requestId": 12345}).status_code == 202
    still_serving(session)


def test_a_call_over_the_timeout_is_cancelled_as_a_tool_error(
    bridge_server_factory: StartServer,
) -> None:
    server = bridge_server_factory("--tools", "--api-key", KEY, "--tools-timeout", "1")
    session = McpSession(server, "slow", dict(AUTH))
    started = time.monotonic()
    result = session.call("sim_wait", {"seconds": 30})
    elapsed = time.monotonic() - started
    assert result == {
        "content": [
            {
                "type": "text",
                "text": "The tool sim_wait did not finish within 1 s (tools.timeoutSeconds) and "
                "was cancelled.",
            }
        ],
        "isError": True,
    }
    assert 1 <= elapsed < 20, elapsed  # not the 30 s the tool would have waited
    wait_for_log(server, r"INFO bridge\.mcp\.calls: Tool sim_wait for slow: timeout")
    wait_for_log(server, EDITOR_CANCELLED_WAIT)
    assert text_of(session.call("sim_echo", {"text": "after"})) == "after"
    still_serving(session)


# --------------------------------------------------------------------------- the HTTP layer


def _error(reply: Reply) -> dict[str, Any]:
    error: dict[str, Any] = reply.json()["error"]
    return error


def test_session_header_missing_or_unknown(server: BridgeServer) -> None:
    url = mcp_url(server)
    missing = post(url, request_body("tools/list"))
    assert missing.status_code == 400
    assert _error(missing)["message"] == "Missing Mcp-Session-Id header: send initialize first."
    unknown = post(url, request_body("tools/list"), headers={"Mcp-Session-Id": "no-such"})
    assert unknown.status_code == 404
    assert _error(unknown)["message"] == "Unknown or ended session: initialize again."
    still_serving(McpSession(server, "after-sessions", dict(AUTH)))


def test_batches_and_bad_json_are_refused(server: BridgeServer) -> None:
    session = McpSession(server, "bad-bodies", dict(AUTH))
    batch = session.post([request_body("tools/list"), request_body("ping")])
    assert batch.status_code == 400
    assert _error(batch)["code"] == -32600
    broken = post(session.url, raw=b'{"jsonrpc": "2.0", "id": 1,', headers=session.headers)
    assert broken.status_code == 400
    assert broken.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "The body is not valid JSON."},
    }
    not_rpc = session.post({"id": 5, "method": "tools/list"})  # no "jsonrpc": "2.0"
    assert not_rpc.status_code == 400 and not_rpc.json()["id"] == 5
    still_serving(session)


def test_protocol_version_header_and_negotiation(server: BridgeServer) -> None:
    session = McpSession(server, "versions", dict(AUTH))
    assert session.initialize_result["protocolVersion"] == LATEST
    refused = session.post(request_body("tools/list"), {"MCP-Protocol-Version": "1999-01-01"})
    assert refused.status_code == 400
    assert "Unsupported MCP-Protocol-Version '1999-01-01'" in _error(refused)["message"]
    known = session.post(request_body("tools/list"), {"MCP-Protocol-Version": LATEST})
    assert known.status_code == 200 and "tools" in known.json()["result"]

    old = post(session.url, initialize_body("old-client", "2025-03-26"))
    assert old.status_code == 200
    assert old.json()["result"]["protocolVersion"] == "2025-03-26"
    future = post(session.url, initialize_body("new-client", "2099-01-01"))
    assert future.status_code == 200
    assert future.json()["result"]["protocolVersion"] == LATEST
    still_serving(session)


def _delete(url: str, session_id: str) -> int:
    request = urllib.request.Request(
        url, method="DELETE", headers={**AUTH, "Mcp-Session-Id": session_id}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


def test_delete_ends_the_session(server: BridgeServer) -> None:
    session = McpSession(server, "ends", dict(AUTH))
    assert "sim_wait" in session.tool_names()
    assert _delete(session.url, session.id) == 200
    gone = session.post(request_body("tools/list"))
    assert gone.status_code == 404
    assert _delete(session.url, session.id) == 404
    still_serving(McpSession(server, "after-delete", dict(AUTH)))


def test_foreign_origin_and_host_are_refused_like_the_api(server: BridgeServer) -> None:
    url = mcp_url(server)
    for headers in ({"Origin": "https://evil.example"}, {"Host": "evil.example"}):
        refused = post(url, initialize_body("web-page"), headers=headers)
        assert refused.status_code == 403, (headers, refused.text)
        body = refused.json()
        assert body["jsonrpc"] == "2.0" and body["id"] is None
        assert body["error"]["data"]["status"] == 403
    session = McpSession(server, "same-machine", dict(AUTH))
    foreign = session.post(request_body("tools/list"), {"Origin": "https://evil.example"})
    assert foreign.status_code == 403
    still_serving(session)


def test_mcp_is_off_without_tools(bridge_server: BridgeServer) -> None:
    reply = post(mcp_url(bridge_server), initialize_body("too-early"))
    assert reply.status_code == 404
    body = reply.json()
    assert body["error"]["data"] == {"status": 404, "code": "tools_off"}
    assert "maestro-bridge serve --tools" in body["error"]["message"]


def _get(url: str, headers: dict[str, str]) -> Any:
    """The open response of a GET (its headers read), or the HTTPError it got."""
    request = urllib.request.Request(url, method="GET", headers={**AUTH, **headers})
    try:
        return urllib.request.urlopen(request, timeout=30)
    except urllib.error.HTTPError as error:
        return error


def test_the_notification_stream_and_its_refusals(server: BridgeServer) -> None:
    session = McpSession(server, "streams", dict(AUTH))
    events = {"Accept": "text/event-stream"}
    no_session = _get(session.url, events)
    assert no_session.status == 400
    no_session.close()
    no_accept = _get(session.url, {"Mcp-Session-Id": session.id, "Accept": "application/json"})
    assert no_accept.status == 406
    no_accept.close()
    with _get(session.url, {**events, "Mcp-Session-Id": session.id}) as stream:
        assert stream.status == 200
        assert stream.headers["Content-Type"] == "text/event-stream"
        second = _get(session.url, {**events, "Mcp-Session-Id": session.id})
        assert second.status == 409
        second.close()
        # Ending the session ends its stream: the response is complete, nothing was sent.
        assert _delete(session.url, session.id) == 200
        assert stream.read() == b""
    still_serving(McpSession(server, "after-stream", dict(AUTH)))


def test_a_method_the_server_does_not_have(server: BridgeServer) -> None:
    session = McpSession(server, "no-resources", dict(AUTH))
    answer = session.request("resources/list")
    assert answer["error"]["code"] == -32601
    assert session.request("ping")["result"] == {}
    still_serving(session)


def test_a_request_whose_id_is_not_a_string_or_integer_is_refused(server: BridgeServer) -> None:
    session = McpSession(server, "odd-ids", dict(AUTH))
    for odd in (None, {"n": 1}, 1.5, True):
        reply = session.post({"jsonrpc": "2.0", "id": odd, "method": "tools/list"})
        assert reply.status_code == 400, (odd, reply.text)
        assert reply.json() == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": -32600,
                "message": "A request's id must be a string or an integer (never null).",
            },
        }
    still_serving(session)


# --------------------------------------------------------------------------- MCP 2026-07-28

MODERN = "2026-07-28"


def _modern(method: str, name: str, **params: Any) -> tuple[dict[str, Any], dict[str, str]]:
    """A request of the stateless revision: its body and its mirrored headers."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "stateless", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = request_body(method, {"name": name, **params, "_meta": meta})
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method, "Mcp-Name": name}
    return body, headers


def test_stateless_calls_fail_and_cancel_as_the_handshake_s_do(server: BridgeServer) -> None:
    url = mcp_url(server)
    body, headers = _modern("tools/call", "sim_fail", arguments={"message": "Nope."})
    failed = post(url, body, headers=headers)
    assert failed.status_code == 200, failed.text
    assert failed.json()["result"]["isError"] is True
    assert failed.json()["result"]["content"] == [{"type": "text", "text": "Nope."}]
    body, headers = _modern("tools/call", "sim_nope", arguments={})
    unknown = post(url, body, headers=headers)
    assert unknown.json()["error"]["code"] == INVALID_PARAMS, unknown.text

    # No session to cancel in: closing the request's connection is the cancel.
    session = McpSession(server, "stateless-neighbour", dict(AUTH))
    asked = log_count(server, ASKED_WAIT)
    stopped = log_count(server, EDITOR_CANCELLED_WAIT)
    body, headers = _modern("tools/call", "sim_wait", arguments={"seconds": 30})
    with _raw_post(url, body, {**AUTH, **headers}):
        wait_for_log(server, ASKED_WAIT, asked + 1)
        through_the_editor(session)
    wait_for_log(server, r"INFO bridge\.mcp\.calls: Tool sim_wait for stateless: cancelled")
    wait_for_log(server, EDITOR_CANCELLED_WAIT, stopped + 1)
    still_serving(session)


def test_a_second_call_with_the_id_of_a_running_one_is_refused(server: BridgeServer) -> None:
    """`notifications/cancelled` names a call by its id: two running under one id could not
    be told apart, so the second is refused and the first runs on (until cancelled)."""
    session = McpSession(server, "same-id", dict(AUTH))
    asked = log_count(server, ASKED_WAIT)
    call = request_body("tools/call", {"name": "sim_wait", "arguments": {"seconds": 30}})
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pending = pool.submit(session.post, call)
        wait_for_log(server, ASKED_WAIT, asked + 1)
        again = session.post(call)
        assert again.status_code == 200, again.text
        assert again.json()["error"]["code"] == -32600, again.text
        assert "still running" in again.json()["error"]["message"]
        assert not pending.done()
        session.notify("notifications/cancelled", {"requestId": call["id"]})
        assert "cancelled" in pending.result(timeout=20).json()["error"]["message"]
    still_serving(session)


def test_a_cursor_tools_list_never_gave_is_invalid_params(server: BridgeServer) -> None:
    session = McpSession(server, "cursor", dict(AUTH))
    answer = session.request("tools/list", {"cursor": "page-2"})
    assert answer["error"]["code"] == INVALID_PARAMS, answer
    still_serving(session)
