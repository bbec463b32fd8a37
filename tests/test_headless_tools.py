"""The headless editor's tools (docs/protocol.md, "Editor tools"): `maestro/tools`,
`maestro/invokeTool` with cancellation and errors, `maestro/toolsChanged`; and the `serve`
flags that turn the tools on."""

from __future__ import annotations

import asyncio
import base64
import struct
import time
import zlib
from typing import Any

import pytest
from conftest import BridgeServer, StartServer
from editor_messages import Capture, connected, error, result, send
from mcp_wire import SIM_TOOLS

from bridge.cli import _parser, serve_options
from bridge.settings import BridgeSettings
from headless_editor.editor import HeadlessEditor
from headless_editor.sim_tools import SimTool
from headless_editor.sim_workspace import MAIN, SimWorkspace
from lsp import rpc
from lsp.rpc import INVOKE_TOOL as INVOKE
from lsp.rpc import TOOLS, TOOLS_CHANGED


@pytest.fixture
def editor() -> tuple[HeadlessEditor, Capture]:
    headless = HeadlessEditor()
    return headless, connected(headless)


async def invoke(editor: tuple[HeadlessEditor, Capture], name: str, tool_input: Any) -> Any:
    params = {"invocationId": "tool-1", "name": name, "input": tool_input}
    return await result(*editor, INVOKE, params)


async def invoke_error(
    editor: tuple[HeadlessEditor, Capture], name: Any, tool_input: Any
) -> dict[str, Any]:
    params = {"invocationId": "tool-1", "name": name, "input": tool_input}
    return await error(*editor, INVOKE, params)


def text(value: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "value": value}]}


async def test_the_tools_are_listed_with_schemas_and_tags(
    editor: tuple[HeadlessEditor, Capture],
) -> None:
    listing = await result(*editor, TOOLS, None)
    tools = {tool["name"]: tool for tool in listing["tools"]}
    assert list(tools) == SIM_TOOLS
    assert tools["sim_list_files"]["inputSchema"] is None  # a tool without input
    assert tools["sim_read_file"] == {
        "name": "sim_read_file",
        "description": "Returns the text of a file of the simulated workspace.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "a path relative to the workspace folder"}
            },
            "required": ["path"],
            "additionalProperties": False,
        },
        "tags": ["sim", "workspace"],
    }
    for tool in tools.values():
        assert isinstance(tool["description"], str) and tool["description"]
        assert "sim" in tool["tags"]
        schema = tool["inputSchema"]
        assert schema is None or (schema["type"] == "object" and schema["required"])


async def test_each_tool_does_its_work(editor: tuple[HeadlessEditor, Capture]) -> None:
    assert await invoke(editor, "sim_list_files", None) == text("main.py\nshapes.py\nutil/text.py")
    assert await invoke(editor, "sim_read_file", {"path": "main.py"}) == text(MAIN)
    by_uri = await invoke(editor, "sim_read_file", {"path": "file:///sim-workspace/main.py"})
    assert by_uri == text(MAIN)
    found = await invoke(editor, "sim_find_text", {"pattern": "total_area"})
    assert found == text(
        "main.py:6: from shapes import Circle, total_area\n"
        'main.py:12: print(shout("total: " + str(total_area(circles))))\n'
        "shapes.py:30: def total_area(shapes: list[Shape]) -> float:"
    )
    none = await invoke(editor, "sim_find_text", {"pattern": "no such text"})
    assert none == text("No line holds 'no such text'.")
    assert await invoke(editor, "sim_wait", {"seconds": 0.01}) == text("Waited 0.01 seconds.")
    assert await invoke(editor, "sim_echo", {"text": "ab", "times": 3}) == text("ababab")
    assert await invoke(editor, "sim_echo", {"text": "once"}) == text("once")


def png_chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    """A PNG's chunks (kind, data), each checked against its CRC."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, at = [], 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, data = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", png[at + 8 + length : at + 12 + length])
        assert crc == zlib.crc32(kind + data)
        chunks.append((kind, data))
        at += 12 + length
    return chunks


async def test_a_tool_may_answer_with_an_image_part(editor: tuple[HeadlessEditor, Capture]) -> None:
    answer = await invoke(editor, "sim_swatch", {"color": "#FF8800"})
    text_part, image_part = answer["content"]
    assert text_part == {"type": "text", "value": "A 1x1 PNG of #ff8800."}
    assert (image_part["type"], image_part["mimeType"]) == ("data", "image/png")
    chunks = png_chunks(base64.b64decode(image_part["data"], validate=True))
    assert [kind for kind, _ in chunks] == [b"IHDR", b"IDAT", b"IEND"]
    assert struct.unpack(">IIBB", chunks[0][1][:10]) == (1, 1, 8, 2)  # 1x1 RGB, 8 bits
    assert zlib.decompress(chunks[1][1]) == b"\x00\xff\x88\x00"  # the one pixel


async def test_a_tool_that_throws_is_a_32000_error(editor: tuple[HeadlessEditor, Capture]) -> None:
    failed = await invoke_error(editor, "sim_fail", {"message": "the disk is on fire"})
    assert failed == {
        "code": -32000,
        "message": "the disk is on fire",
        "data": {"code": "Other", "name": "SimToolError"},
    }
    missing = await invoke_error(editor, "sim_read_file", {"path": "nope.py"})
    assert missing == {
        "code": -32000,
        "message": "No such file in the workspace: nope.py",
        "data": {"code": "Other", "name": "FileNotFound"},
    }


async def test_an_unknown_tool_is_not_found(editor: tuple[HeadlessEditor, Capture]) -> None:
    unknown = await invoke_error(editor, "sim_nothing", {})
    assert unknown["code"] == -32001
    assert unknown["data"]["code"] == "NotFound"
    assert "sim_nothing" in unknown["message"]


@pytest.mark.parametrize(
    ("name", "tool_input", "says"),
    [
        (None, {}, "tool name"),
        (7, {}, "tool name"),
        ("sim_read_file", [1], "must be an object"),
        ("sim_read_file", "main.py", "must be an object"),
        ("sim_read_file", {}, "path must be a non-empty string"),
        ("sim_find_text", {"pattern": 3}, "pattern must be a non-empty string"),
        ("sim_wait", {"seconds": 601}, "seconds must be a number from 0 to 600"),
        ("sim_wait", {"seconds": -1}, "seconds must be a number from 0 to 600"),
        ("sim_wait", {"seconds": True}, "seconds must be a number"),
        ("sim_echo", {"text": "x", "times": 2.5}, "times must be whole"),
        ("sim_echo", {"text": "xx", "times": 600_000}, "at most 1000000"),
        ("sim_swatch", {"color": "orange"}, "color must be #rrggbb"),
    ],
)
async def test_bad_input_is_invalid_params(
    editor: tuple[HeadlessEditor, Capture], name: Any, tool_input: Any, says: str
) -> None:
    failed = await invoke_error(editor, name, tool_input)
    assert failed["code"] == -32602
    assert says in failed["message"]


async def test_params_that_are_not_an_object_are_invalid(
    editor: tuple[HeadlessEditor, Capture],
) -> None:
    failed = await error(*editor, INVOKE, ["sim_wait"])
    assert failed["code"] == -32602


async def test_cancel_request_stops_sim_wait(editor: tuple[HeadlessEditor, Capture]) -> None:
    headless, out = editor
    tasks_before = len(asyncio.all_tasks())
    params = {"invocationId": "tool-5", "name": "sim_wait", "input": {"seconds": 600}}
    send(headless, INVOKE, params, msg_id="tool-5")
    await asyncio.sleep(0.05)
    assert "tool-5" in headless.protocol._running  # the tool is waiting
    started = asyncio.get_running_loop().time()
    headless.protocol.handle_message(
        {"jsonrpc": "2.0", "method": rpc.CANCEL_REQUEST, "params": {"id": "tool-5"}}
    )
    reply = await out.reply("tool-5", timeout=5)
    assert reply["error"]["code"] == rpc.REQUEST_CANCELLED
    assert asyncio.get_running_loop().time() - started < 5
    assert "tool-5" not in headless.protocol._running
    await asyncio.sleep(0)
    assert len(asyncio.all_tasks()) == tasks_before  # nothing of the tool waits on
    # The editor still answers the next call.
    assert await invoke(editor, "sim_echo", {"text": "still here"}) == text("still here")


async def test_changing_the_tools_notifies_the_server(
    editor: tuple[HeadlessEditor, Capture],
) -> None:
    headless, out = editor

    async def shout(tool_input: dict[str, Any]) -> str:
        return str(tool_input.get("text", "")).upper()

    assert out.notifications(TOOLS_CHANGED) == []
    headless.add_tool(SimTool("test_shout", "Shouts.", {"type": "object"}, shout, ["test"]))
    assert out.notifications(TOOLS_CHANGED) == [None]
    names = [tool["name"] for tool in (await result(*editor, TOOLS, None))["tools"]]
    assert names[-1] == "test_shout"
    assert await invoke(editor, "test_shout", {"text": "hi"}) == text("HI")

    headless.remove_tool("sim_fail")
    headless.set_tools([])
    assert out.notifications(TOOLS_CHANGED) == [None, None, None]
    assert await result(*editor, TOOLS, None) == {"tools": []}
    gone = await invoke_error(editor, "test_shout", {})
    assert gone["code"] == -32001


async def test_tools_read_the_editor_s_own_workspace() -> None:
    headless = HeadlessEditor(workspace=SimWorkspace({"a/b.py": "x = 1\n"}, "mine", "file:///w"))
    out = connected(headless)
    listed = await result(headless, out, INVOKE, {"name": "sim_list_files", "input": {}})
    assert listed == text("a/b.py")
    found = await result(
        headless, out, INVOKE, {"name": "sim_find_text", "input": {"pattern": "x"}}
    )
    assert found == text("a/b.py:1: x = 1")


# -- serve's flags -----------------------------------------------------------------------------


def settings_of(*flags: str) -> BridgeSettings:
    options = serve_options(_parser().parse_args(["serve", *flags]))
    return BridgeSettings.from_options(options)


def test_without_flags_the_tools_are_off_with_the_defaults() -> None:
    tools = settings_of().tools
    # serve's own default: the default set and the headless editor's simulated tools.
    assert (tools.enable, tools.allow, tools.deny) == (False, ["@default", "sim_*"], [])
    assert tools.requireKey is True
    assert (tools.timeoutSeconds, tools.maxResultChars) == (120.0, 100_000)


def test_the_tool_flags_reach_the_settings() -> None:
    tools = settings_of(
        "--tools",
        "--tools-allow",
        "sim_*",
        "--tools-allow",
        "editor_[dh]*",
        "--tools-deny",
        "sim_fail",
        "--tools-timeout",
        "2.5",
        "--tools-max-result-chars",
        "5000",
    ).tools
    assert tools.enable is True
    assert tools.allow == ["sim_*", "editor_[dh]*"]
    assert tools.deny == ["sim_fail"]
    assert tools.timeoutSeconds == 2.5
    assert tools.maxResultChars == 5000


@pytest.mark.parametrize(
    "flags",
    [
        ["--tools-timeout", "0"],
        ["--tools-timeout", "-3"],
        ["--tools-timeout", "nan"],
        ["--tools-timeout", "soon"],
        ["--tools-max-result-chars", "999"],
        ["--tools-max-result-chars", "lots"],
    ],
)
def test_bad_tool_flags_are_refused_by_the_parser(
    flags: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        _parser().parse_args(["serve", *flags])
    assert stopped.value.code == 2
    assert flags[0] in capsys.readouterr().err


def test_the_help_says_what_each_tool_flag_does(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _parser().parse_args(["serve", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    for flag, says in [
        ("--tools ", "MCP server at /mcp"),
        ("--tools-allow GLOB", "offer only the tools whose name matches GLOB"),
        ("--tools-deny GLOB", "never offer nor call the tools"),
        ("--tools-timeout SECONDS", "cancel a tool call that runs longer"),
        ("--tools-max-result-chars N", "cut a tool result's text beyond N characters"),
    ]:
        assert flag in help_text
        assert says in help_text


def test_serve_with_the_tool_flags_starts_and_names_the_mcp_url(
    bridge_server_factory: StartServer,
) -> None:
    # The language server takes the `tools` options (a wrong one would fail `initialize`).
    server = bridge_server_factory(
        "--tools",
        "--api-key",
        "k",
        "--tools-deny",
        "sim_fail",
        "--tools-timeout",
        "5",
        "--tools-max-result-chars",
        "2000",
    )
    wanted = f"Editor tools (MCP, Streamable HTTP): {server.root_url}/mcp"
    deadline = time.monotonic() + 10
    while not any(line.strip() == wanted for line in server.stdout_lines):
        assert time.monotonic() < deadline, server.stdout_lines
        time.sleep(0.05)
    server.assert_alive()


def test_serve_without_tools_does_not_name_an_mcp_url(bridge_server: BridgeServer) -> None:
    assert not any("/mcp" in line for line in bridge_server.stdout_lines)
