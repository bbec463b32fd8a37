"""The MCP server at /mcp of a real `maestro-bridge serve --tools`, over plain HTTP: JSON-RPC
messages as a client puts them on the wire (no SDK in between), and what the server's log says
(the bridge's `Tool NAME for CLIENT: OUTCOME` lines, the headless editor's `Tool NAME
cancelled` when `$/cancelRequest` reached the tool)."""

from __future__ import annotations

import itertools
import re
import time
from typing import Any

from conftest import BridgeServer
from plain_http import Reply, post

# The bridge logs each call as the editor is asked (at debug: DEBUG_LOG in serve's environment)
# and how it ended; the headless editor logs a tool its `$/cancelRequest` stopped.
ASKED_WAIT = r"DEBUG bridge\.mcp\.calls: Tool sim_wait: asking the editor"
EDITOR_CANCELLED_WAIT = r"INFO headless_editor\.sim_tools: Tool sim_wait cancelled$"
DEBUG_LOG = {"MAESTRO_BRIDGE_LOG_LEVEL": "DEBUG"}
LATEST = "2025-11-25"  # the newest version `initialize` negotiates (mcp_types.version)
LOG_TIMEOUT = 20.0

_ids = itertools.count(100)


# What `serve --tools` lists, in order: the bridge's language tools, then the headless
# editor's simulated ones.
LANGUAGE_TOOLS = [
    "editor_diagnostics",
    "editor_definition",
    "editor_references",
    "editor_hover",
    "editor_document_symbols",
    "editor_workspace_symbols",
]
SIM_TOOLS = [
    "sim_list_files",
    "sim_read_file",
    "sim_find_text",
    "sim_wait",
    "sim_echo",
    "sim_swatch",
    "sim_fail",
]


def mcp_url(server: BridgeServer) -> str:
    return server.root_url + "/mcp"


def initialize_body(client: str, version: str = LATEST) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": next(_ids),
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": client, "version": "1.0"},
        },
    }


def request_body(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": next(_ids), "method": method}
    if params is not None:
        body["params"] = params
    return body


class McpSession:
    """One session: initialize (and `notifications/initialized`), then requests with its
    `Mcp-Session-Id`."""

    def __init__(self, server: BridgeServer, client: str, headers: dict[str, str] | None = None):
        self.url = mcp_url(server)
        self.headers = dict(headers or {})
        reply = post(self.url, initialize_body(client), headers=self.headers)
        assert reply.status_code == 200, reply.text
        self.initialize_result: dict[str, Any] = reply.json()["result"]
        self.id = reply.headers["mcp-session-id"]
        self.headers["Mcp-Session-Id"] = self.id
        sent = self.notify("notifications/initialized")
        assert sent.status_code == 202, sent.text

    def post(self, body: Any, headers: dict[str, str] | None = None) -> Reply:
        return post(self.url, body, headers={**self.headers, **(headers or {})})

    def notify(self, method: str, params: dict[str, Any] | None = None) -> Reply:
        body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            body["params"] = params
        return self.post(body)

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """The JSON-RPC response (result or error) of a request answered with HTTP 200."""
        body = request_body(method, params)
        reply = self.post(body)
        assert reply.status_code == 200, reply.text
        answer: dict[str, Any] = reply.json()
        assert answer["id"] == body["id"], answer
        return answer

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A tools/call's result (a JSON-RPC error fails the test)."""
        answer = self.request("tools/call", {"name": tool, "arguments": arguments})
        assert "result" in answer, answer
        result: dict[str, Any] = answer["result"]
        return result

    def tool_names(self) -> list[str]:
        return [tool["name"] for tool in self.request("tools/list")["result"]["tools"]]


def through_the_editor(session: McpSession) -> None:
    """A round trip through the editor. It reads requests in order and starts their tasks in
    order, so a tool call the bridge sent before this one is running in the editor when this
    returns (a `$/cancelRequest` then finds the tool itself, not a task yet to start)."""
    assert text_of(session.call("sim_echo", {"text": "in order"})) == "in order"


def text_of(result: dict[str, Any]) -> str:
    return "".join(part["text"] for part in result["content"] if part["type"] == "text")


def log_count(server: BridgeServer, pattern: str) -> int:
    return len(re.findall(pattern, server.stderr_text(), flags=re.MULTILINE))


def wait_for_log(server: BridgeServer, pattern: str, count: int = 1) -> None:
    """Until the server's stderr has `count` lines matching `pattern` (a regex); the test
    fails with the log after LOG_TIMEOUT seconds."""
    deadline = time.monotonic() + LOG_TIMEOUT
    while log_count(server, pattern) < count:
        assert time.monotonic() < deadline, (
            f"the server never logged {pattern!r} ({count} times):\n{server.stderr_text()}"
        )
        server.assert_alive()
        time.sleep(0.02)
