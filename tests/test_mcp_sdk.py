"""The official MCP Python SDK's client (`mcp.client.streamable_http` and `ClientSession`)
against a real `maestro-bridge serve --tools --api-key KEY`: it initializes, lists the editor's
language tools and the headless editor's simulated tools with their schemas, calls both, and
is refused without the key. `notifications/tools/list_changed` is tested with the headless
editor in this process (serve offers no way to change its tools while it runs), its language
server and HTTP endpoint real."""

from __future__ import annotations

import asyncio
import base64
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx2
import mcp_types as types
import pytest
from conftest import BridgeServer, running_bridge_server
from mcp.client.session import ClientSession, IncomingMessage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_wire import (
    ASKED_WAIT,
    DEBUG_LOG,
    EDITOR_CANCELLED_WAIT,
    LANGUAGE_TOOLS,
    SIM_TOOLS,
    initialize_body,
    log_count,
    mcp_url,
    wait_for_log,
)
from plain_http import post
from processes import kill_tree

from headless_editor.editor import HeadlessEditor
from headless_editor.sim_tools import SimTool, png_pixel

KEY = "mcp-test-key"
CLIENT_CANCELLED = r"INFO bridge\.mcp\.dispatch: The client cancelled a tool call"
AUTH = {"Authorization": f"Bearer {KEY}"}
WORKSPACE_PROBLEMS = (
    'main.py:3:8: warning: "os" is imported but never used [sim-python unused-import]\n'
    'main.py:13:11: error: "radius_of" is not defined [sim-python undefined-name]'
)


@pytest.fixture(scope="module")
def server() -> Iterator[BridgeServer]:
    with running_bridge_server("--tools", "--api-key", KEY, env=DEBUG_LOG) as started:
        yield started


@contextlib.asynccontextmanager
async def sdk_client(
    url: str,
    headers: dict[str, str],
    on_message: Callable[[IncomingMessage], None] | None = None,
    on_stream: Callable[[], None] | None = None,
) -> AsyncIterator[ClientSession]:
    """An initialized ClientSession over the SDK's Streamable HTTP transport. `on_stream` runs
    when the server has answered the session's GET stream (it then holds the stream)."""

    async def response_seen(response: httpx2.Response) -> None:
        if on_stream and response.request.method == "GET" and response.status_code == 200:
            on_stream()

    async def handle(message: IncomingMessage) -> None:
        if on_message is not None:
            on_message(message)

    async with (
        httpx2.AsyncClient(
            headers=headers,
            timeout=httpx2.Timeout(30, read=60),
            event_hooks={"response": [response_seen]},
        ) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(
            read,
            write,
            message_handler=handle,
            client_info=types.Implementation(name="mcp-sdk-test", version="1.0"),
        ) as session,
    ):
        await session.initialize()
        yield session


def text_of(result: types.CallToolResult) -> str:
    assert not result.is_error, result
    return "".join(part.text for part in result.content if isinstance(part, types.TextContent))


async def test_initialize_and_list_tools_with_their_schemas(server: BridgeServer) -> None:
    async with sdk_client(mcp_url(server), AUTH) as session:
        init = session.initialize_result
        assert init is not None
        assert init.protocol_version == "2025-11-25"
        assert init.server_info.name == "maestro-bridge"
        assert init.capabilities.tools is not None and init.capabilities.tools.list_changed
        assert init.instructions and "1-based" in init.instructions

        listed = await session.list_tools()
        tools = {tool.name: tool for tool in listed.tools}
        assert [tool.name for tool in listed.tools] == LANGUAGE_TOOLS + SIM_TOOLS
        assert tools["sim_read_file"].description == (
            "Returns the text of a file of the simulated workspace."
        )
        assert tools["sim_read_file"].input_schema == {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "a path relative to the workspace folder"}
            },
            "required": ["path"],
            "additionalProperties": False,
        }
        # The editor lists it without an input schema: MCP's is always an object's.
        assert tools["sim_list_files"].input_schema == {"type": "object", "properties": {}}
        definition = tools["editor_definition"].input_schema
        assert definition["required"] == ["path", "line"]
        assert set(definition["properties"]) == {"path", "line", "column", "symbol"}


async def test_calls_a_simulated_tool(server: BridgeServer) -> None:
    async with sdk_client(mcp_url(server), AUTH) as session:
        found = await session.call_tool("sim_find_text", {"pattern": "total_area"})
        assert text_of(found) == (
            "main.py:6: from shapes import Circle, total_area\n"
            'main.py:12: print(shout("total: " + str(total_area(circles))))\n'
            "shapes.py:30: def total_area(shapes: list[Shape]) -> float:"
        )
        listed = await session.call_tool("sim_list_files", {})
        assert text_of(listed) == "main.py\nshapes.py\nutil/text.py"
        read = await session.call_tool("sim_read_file", {"path": "util/text.py"})
        assert text_of(read).splitlines()[3:5] == [
            "def shout(text: str) -> str:",
            '    """The text in capitals, with an exclamation mark."""',
        ]
        # A result with an image: the editor's data part becomes MCP image content.
        swatch = await session.call_tool("sim_swatch", {"color": "#FF8000"})
        assert not swatch.is_error
        text, image = swatch.content
        assert text == types.TextContent(type="text", text="A 1x1 PNG of #ff8000.")
        assert isinstance(image, types.ImageContent) and image.mime_type == "image/png"
        assert base64.b64decode(image.data) == png_pixel(0xFF, 0x80, 0x00)


async def test_language_tools_answer_with_workspace_paths_and_1_based_lines(
    server: BridgeServer,
) -> None:
    async with sdk_client(mcp_url(server), AUTH) as session:
        everywhere = await session.call_tool("editor_diagnostics", {})
        assert text_of(everywhere) == "1 error, 1 warning in the workspace:\n" + WORKSPACE_PROBLEMS
        one_file = await session.call_tool("editor_diagnostics", {"path": "main.py"})
        assert text_of(one_file) == "1 error, 1 warning in main.py:\n" + WORKSPACE_PROBLEMS
        clean = await session.call_tool("editor_diagnostics", {"path": "util/text.py"})
        assert text_of(clean) == "No problems in util/text.py."

        # `total_area` in `print(shout("total: " + str(total_area(circles))))`, line 12.
        at = {"path": "main.py", "line": 12, "column": 33}
        assert text_of(await session.call_tool("editor_definition", at)) == "shapes.py:30:5"
        references = await session.call_tool(
            "editor_references", {"path": "shapes.py", "line": 30, "column": 5}
        )
        assert text_of(references) == "main.py:6:28\nmain.py:12:33\nshapes.py:30:5"
        hover = await session.call_tool("editor_hover", at)
        assert text_of(hover) == (
            "```python\n(function) def total_area(shapes: list[Shape]) -> float\n```\n\n"
            "The sum of the shapes' areas."
        )
        outline = await session.call_tool("editor_document_symbols", {"path": "util/text.py"})
        assert text_of(outline) == "Function shout (text: str) -> str (lines 4-6)"
        symbols = await session.call_tool("editor_workspace_symbols", {"query": "area"})
        assert text_of(symbols) == (
            "Method area in Shape: shapes.py:13:5\n"
            "Method area in Circle: shapes.py:26:5\n"
            "Function total_area: shapes.py:30:1"
        )


async def test_a_position_named_by_its_symbol(server: BridgeServer) -> None:
    """Agents know lines and names better than columns (docs/protocol.md, `symbol`)."""
    async with sdk_client(mcp_url(server), AUTH) as session:
        at = {"path": "main.py", "line": 12, "symbol": "total_area"}
        assert text_of(await session.call_tool("editor_definition", at)) == "shapes.py:30:5"


async def test_a_call_the_client_gives_up_is_cancelled_in_the_editor(
    server: BridgeServer,
) -> None:
    asked = log_count(server, ASKED_WAIT)
    stopped = log_count(server, EDITOR_CANCELLED_WAIT)
    told = log_count(server, CLIENT_CANCELLED)
    async with sdk_client(mcp_url(server), AUTH) as session:
        call = asyncio.ensure_future(session.call_tool("sim_wait", {"seconds": 30}))
        await asyncio.to_thread(wait_for_log, server, ASKED_WAIT, asked + 1)
        # sim_wait runs in the editor once this is answered (mcp_wire.through_the_editor).
        assert text_of(await session.call_tool("sim_echo", {"text": "in order"})) == "in order"
        call.cancel()  # the SDK tells the server: `notifications/cancelled`
        with pytest.raises(asyncio.CancelledError):
            await call
        await asyncio.to_thread(wait_for_log, server, CLIENT_CANCELLED, told + 1)
        await asyncio.to_thread(wait_for_log, server, EDITOR_CANCELLED_WAIT, stopped + 1)
        cancelled = r"Tool sim_wait for mcp-sdk-test: cancelled"
        await asyncio.to_thread(wait_for_log, server, cancelled)
        done = await session.call_tool("sim_wait", {"seconds": 0})
        assert text_of(done) == "Waited 0 seconds."


def _leaves(error: BaseException) -> list[BaseException]:
    inner = getattr(error, "exceptions", None)  # an ExceptionGroup of anyio's task groups
    if inner is None:
        return [error]
    return [leaf for exc in inner for leaf in _leaves(exc)]


async def test_the_api_key_is_required(server: BridgeServer) -> None:
    url = mcp_url(server)
    for headers in ({}, {"Authorization": "Bearer wrong-key"}):
        with pytest.raises(Exception) as raised:  # an ExceptionGroup: its leaves are looked into
            async with sdk_client(url, headers):
                pass
        refusals = [leaf for leaf in _leaves(raised.value) if isinstance(leaf, MCPError)]
        assert refusals, raised.value
        assert refusals[0].error.data == {"status": 401, "code": "invalid_api_key"}
    plain = post(url, initialize_body("no-key"))
    assert plain.status_code == 401
    assert post(url, initialize_body("x-api-key"), headers={"x-api-key": KEY}).status_code == 200
    async with sdk_client(url, AUTH) as session:
        assert len((await session.list_tools()).tools) == len(LANGUAGE_TOOLS + SIM_TOOLS)


async def test_list_changed_reaches_the_client() -> None:
    editor = HeadlessEditor()
    try:
        api = await editor.start(
            {
                "host": "127.0.0.1",
                "port": 0,
                "apiKey": KEY,
                "tools": {"enable": True, "allow": ["@default", "shout"]},
            }
        )
        url = api.removesuffix("/v1") + "/mcp"
        streaming = asyncio.Event()
        changed = asyncio.Event()

        def seen(message: IncomingMessage) -> None:
            if isinstance(message, types.ToolListChangedNotification):
                changed.set()

        async with sdk_client(url, AUTH, on_message=seen, on_stream=streaming.set) as session:
            assert "shout" not in [tool.name for tool in (await session.list_tools()).tools]
            await asyncio.wait_for(streaming.wait(), 20)

            async def shout(tool_input: dict[str, Any]) -> str:
                return str(tool_input.get("text", "")).upper() + "!"

            schema = {"type": "object", "properties": {"text": {"type": "string"}}}
            editor.add_tool(SimTool("shout", "Shouts the text.", schema, shout, ["test"]))
            await asyncio.wait_for(changed.wait(), 20)
            listed = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert listed["shout"].description == "Shouts the text."
            assert listed["shout"].input_schema == schema
            assert text_of(await session.call_tool("shout", {"text": "hi"})) == "HI!"

            changed.clear()
            editor.remove_tool("shout")
            await asyncio.wait_for(changed.wait(), 20)
            assert "shout" not in [tool.name for tool in (await session.list_tools()).tools]
    finally:
        try:
            await editor.stop()
        finally:
            if editor.process is not None and editor.process.returncode is None:
                kill_tree(editor.process.pid)
