"""Both eras of MCP on one endpoint (bridge/mcp/modern.py, bridge/mcp/server.py), against a
real `maestro-bridge serve --tools` and the official SDK's client: the stateless 2026-07-28
revision (per-request `_meta` and headers, `server/discover`, `subscriptions/listen` with a tool
list change from the editor) beside the `initialize` handshake (whose list changes
tests/test_mcp_sdk.py follows)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import aiohttp
import httpx2
import mcp_types as types
import pytest
from conftest import running_bridge_server
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client

from headless_editor.editor import HeadlessEditor
from headless_editor.sim_tools import SimTool

MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "eras-test", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}

KEY = "mcp-eras-key"
AUTH = {"Authorization": f"Bearer {KEY}"}


@pytest.fixture(scope="module")
def mcp_url() -> Iterator[str]:
    with running_bridge_server("--tools", "--api-key", KEY, "--usage-db", "none") as server:
        yield server.root_url + "/mcp"


def modern_body(msg_id: int, method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": {**params, "_meta": META}}


def modern_headers(method: str, name: str | None = None) -> dict[str, str]:
    headers = {
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": method,
        "Accept": "application/json, text/event-stream",
    }
    if name is not None:
        headers["Mcp-Name"] = name
    return headers


@contextlib.asynccontextmanager
async def keyed_client(url: str, mode: str) -> AsyncIterator[Client]:
    """The SDK's Client, its HTTP client sending the bridge's key (tools need one)."""
    async with (
        httpx2.AsyncClient(headers=AUTH, timeout=httpx2.Timeout(30, read=60)) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        yield client


async def post(url: str, body: Any, headers: dict[str, str]) -> tuple[int, Any, Any]:
    headers = {**AUTH, **headers}
    async with aiohttp.ClientSession() as http, http.post(url, json=body, headers=headers) as resp:
        return resp.status, await resp.json(), resp.headers


@pytest.mark.parametrize("mode", ["auto", MODERN])
async def test_a_modern_client_lists_and_calls_without_a_session(mcp_url: str, mode: str) -> None:
    async with keyed_client(mcp_url, mode) as client:
        discovered = client.session.discover_result
        assert discovered is not None  # modern: no fallback to initialize
        if mode == "auto":  # the probe's answer (a pinned version sends no probe)
            assert discovered.supported_versions[:2] == [MODERN, "2025-11-25"]
            assert discovered.instructions is not None and "editor" in discovered.instructions
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert names[:2] == ["editor_diagnostics", "editor_definition"]
        assert "sim_read_file" in names
        read = await client.call_tool("sim_read_file", {"path": "util/text.py"})
        assert not read.is_error
        assert isinstance(read.content[0], types.TextContent)
        assert "def shout" in read.content[0].text
        failed = await client.call_tool("sim_fail", {"message": "no luck"})
        assert failed.is_error
        assert isinstance(failed.content[0], types.TextContent)
        assert failed.content[0].text == "no luck"


async def test_a_legacy_client_still_initializes(mcp_url: str) -> None:
    async with keyed_client(mcp_url, "legacy") as client:
        assert client.session.discover_result is None
        found = await client.call_tool("editor_workspace_symbols", {"query": "shout"})
        assert isinstance(found.content[0], types.TextContent)
        assert found.content[0].text == "Function shout: util/text.py:4:1"


async def test_modern_results_carry_the_server_and_no_session(mcp_url: str) -> None:
    status, body, headers = await post(
        mcp_url, modern_body(1, "tools/list"), modern_headers("tools/list")
    )
    assert status == 200, body
    result = body["result"]
    assert result["resultType"] == "complete"
    assert (result["ttlMs"], result["cacheScope"]) == (0, "private")
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "maestro-bridge"
    assert "Mcp-Session-Id" not in headers


async def test_an_unsupported_version_names_the_supported_ones(mcp_url: str) -> None:
    body = modern_body(2, "tools/list")
    body["params"]["_meta"] = {**META, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}
    headers = {**modern_headers("tools/list"), "MCP-Protocol-Version": "2099-01-01"}
    status, answer, _ = await post(mcp_url, body, headers)
    assert status == 400
    assert answer["error"]["code"] == -32022
    assert answer["error"]["data"]["requested"] == "2099-01-01"
    assert MODERN in answer["error"]["data"]["supported"]
    assert "2025-11-25" in answer["error"]["data"]["supported"]


@pytest.mark.parametrize(
    ("headers", "why"),
    [
        (modern_headers("tools/list", "sim_list_files"), "Mcp-Method"),
        ({"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call"}, "Mcp-Name is missing"),
        (modern_headers("tools/call", "sim_read_file"), "Mcp-Name"),
        (
            {
                **modern_headers("tools/call", "sim_list_files"),
                "MCP-Protocol-Version": "2025-11-25",
            },
            "MCP-Protocol-Version",
        ),
    ],
)
async def test_headers_must_mirror_the_body(
    mcp_url: str, headers: dict[str, str], why: str
) -> None:
    status, answer, _ = await post(
        mcp_url, modern_body(3, "tools/call", name="sim_list_files"), headers
    )
    assert status == 400, answer
    assert answer["error"]["code"] == -32020
    assert why in answer["error"]["message"]


async def test_a_base64_tool_name_header_is_decoded(mcp_url: str) -> None:
    encoded = "=?base64?" + base64.b64encode(b"sim_list_files").decode() + "?="
    status, answer, _ = await post(
        mcp_url,
        modern_body(4, "tools/call", name="sim_list_files", arguments={}),
        modern_headers("tools/call", encoded),
    )
    assert status == 200, answer
    assert "shapes.py" in answer["result"]["content"][0]["text"]


@pytest.mark.parametrize("method", ["ping", "resources/list", "no/such"])
async def test_a_method_this_server_lacks_is_a_404(mcp_url: str, method: str) -> None:
    status, answer, _ = await post(mcp_url, modern_body(5, method), modern_headers(method))
    assert status == 404
    assert answer["error"]["code"] == -32601


# ----------------------------------------------------------------- list changes, both eras


@pytest.fixture
async def editor() -> AsyncIterator[HeadlessEditor]:
    """The headless editor in this process (with its real language server), so the test can
    change the editor's tools while MCP clients are connected."""
    headless = HeadlessEditor()
    await headless.start(
        {
            "port": 0,
            "apiKey": KEY,
            "tools": {"enable": True, "allow": ["@default", "sim_*"]},
            "usage": {"database": "none"},
        }
    )
    yield headless
    await headless.stop()


async def answer_42(tool_input: dict[str, Any]) -> str:
    return "42"


NEW_TOOL = SimTool("sim_answer", "The answer.", {"type": "object", "properties": {}}, answer_42)


async def test_a_new_editor_tool_reaches_a_listening_modern_client(editor: HeadlessEditor) -> None:
    assert editor.url is not None
    url = editor.url.removesuffix("/v1") + "/mcp"
    async with keyed_client(url, MODERN) as client:
        before = {tool.name for tool in (await client.list_tools()).tools}
        assert "sim_answer" not in before
        async with client.listen(tools_list_changed=True) as subscription:
            assert subscription.honored.tools_list_changed
            editor.add_tool(NEW_TOOL)
            event = await asyncio.wait_for(anext(aiter(subscription)), 10)
            assert type(event).__name__ == "ToolsListChanged"
        after = {tool.name for tool in (await client.list_tools()).tools}
        assert after == before | {"sim_answer"}
        called = await client.call_tool("sim_answer", {})
        assert isinstance(called.content[0], types.TextContent)
        assert called.content[0].text == "42"
