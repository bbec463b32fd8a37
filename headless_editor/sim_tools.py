"""The headless editor's tools: what `maestro/tools` lists and `maestro/invokeTool` calls
(docs/protocol.md, "Editor tools"), standing in for `vscode.lm.tools`. Each does real work
over the in-memory workspace; `sim_wait` runs until cancelled, `sim_fail` throws."""

from __future__ import annotations

import asyncio
import base64
import logging
import re
import struct
import zlib
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from headless_editor.jsonrpc import INVALID_PARAMS, RpcError
from headless_editor.sim_workspace import SimWorkspace

log = logging.getLogger(__name__)

MAX_WAIT_SECONDS = 600.0
MAX_ECHO_CHARS = 1_000_000  # bounds what one call may make the editor hold

Part = dict[str, Any]  # {"type": "text", "value"} or {"type": "data", "mimeType", "data"}
Run = Callable[[dict[str, Any]], Awaitable[str | list[Part]]]


class ToolFailure(Exception):
    """What a tool throws: answered `-32000` with `data` `{"code": "Other", "name"}`, as the
    editor answers an `Error` a VS Code tool throws."""

    def __init__(self, message: str, name: str = "SimToolError") -> None:
        super().__init__(message)
        self.name = name


@dataclass
class SimTool:
    name: str
    description: str
    input_schema: dict[str, Any] | None  # None: the tool takes no input
    run: Run
    tags: list[str] = field(default_factory=lambda: ["sim"])

    def info(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
            "tags": list(self.tags),
        }


class ToolBox:
    """The tools the editor offers now, by name."""

    def __init__(self, tools: Iterable[SimTool]) -> None:
        self.tools = {tool.name: tool for tool in tools}

    def listing(self) -> dict[str, Any]:
        return {"tools": [tool.info() for tool in self.tools.values()]}

    async def invoke(self, params: Any) -> dict[str, Any]:
        if not isinstance(params, dict) or not isinstance(params.get("name"), str):
            raise RpcError(INVALID_PARAMS, "maestro/invokeTool needs a tool name")
        tool = self.tools.get(params["name"])
        if tool is None:
            message = f"No tool named {params['name']!r}"
            raise RpcError(-32001, message, {"code": "NotFound", "name": "Error"})
        tool_input = params.get("input")
        if tool_input is None:
            tool_input = {}
        if not isinstance(tool_input, dict):
            raise RpcError(INVALID_PARAMS, f"The input of {tool.name} must be an object")
        try:
            output = await tool.run(tool_input)
        except ToolFailure as exc:
            raise RpcError(-32000, str(exc), {"code": "Other", "name": exc.name}) from None
        except asyncio.CancelledError:
            log.info("Tool %s cancelled", tool.name)
            raise
        parts = [{"type": "text", "value": output}] if isinstance(output, str) else output
        return {"content": parts}


# -- arguments ---------------------------------------------------------------------------------


def _string(tool_input: dict[str, Any], name: str) -> str:
    value = tool_input.get(name)
    if not isinstance(value, str) or not value:
        raise RpcError(INVALID_PARAMS, f"{name} must be a non-empty string")
    return value


def _number(tool_input: dict[str, Any], name: str, low: float, high: float) -> float:
    value = tool_input.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise RpcError(INVALID_PARAMS, f"{name} must be a number from {low:g} to {high:g}")
    return float(value)


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def png_pixel(red: int, green: int, blue: int) -> bytes:
    """A PNG image of one pixel of that colour."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        checksum = zlib.crc32(kind + data)
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", checksum)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # 1x1, 8 bits per channel, RGB
    scanline = bytes([0, red, green, blue])  # filter type 0, then the pixel
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(scanline))
        + chunk(b"IEND", b"")
    )


# -- the tools ---------------------------------------------------------------------------------


def sample_tools(workspace: SimWorkspace) -> list[SimTool]:
    async def list_files(tool_input: dict[str, Any]) -> str:
        return "\n".join(sorted(workspace.files))

    async def read_file(tool_input: dict[str, Any]) -> str:
        name = _string(tool_input, "path")
        path = workspace.find_path(name)
        if path is None:
            raise ToolFailure(f"No such file in the workspace: {name}", "FileNotFound")
        return workspace.files[path]

    async def find_text(tool_input: dict[str, Any]) -> str:
        pattern = _string(tool_input, "pattern")
        found = [
            f"{path}:{number}: {line.strip()}"
            for path, text in sorted(workspace.files.items())
            for number, line in enumerate(text.splitlines(), start=1)
            if pattern in line
        ]
        return "\n".join(found) if found else f"No line holds {pattern!r}."

    async def wait(tool_input: dict[str, Any]) -> str:
        seconds = _number(tool_input, "seconds", 0, MAX_WAIT_SECONDS)
        await asyncio.sleep(seconds)  # cancelled by `$/cancelRequest` (headless_editor/jsonrpc.py)
        return f"Waited {seconds:g} seconds."

    async def echo(tool_input: dict[str, Any]) -> str:
        text = tool_input.get("text")
        if not isinstance(text, str):
            raise RpcError(INVALID_PARAMS, "text must be a string")
        times = _number(tool_input, "times", 1, MAX_ECHO_CHARS) if "times" in tool_input else 1
        if int(times) != times or len(text) * times > MAX_ECHO_CHARS:
            raise RpcError(
                INVALID_PARAMS, f"times must be whole, the echo at most {MAX_ECHO_CHARS}"
            )
        return text * int(times)

    async def swatch(tool_input: dict[str, Any]) -> list[Part]:
        color = _string(tool_input, "color")
        if not re.fullmatch(r"#[0-9a-fA-F]{6}", color):
            raise RpcError(INVALID_PARAMS, "color must be #rrggbb")
        rgb = bytes.fromhex(color[1:])
        image = base64.b64encode(png_pixel(*rgb)).decode()
        return [
            {"type": "text", "value": f"A 1x1 PNG of {color.lower()}."},
            {"type": "data", "mimeType": "image/png", "data": image},
        ]

    async def fail(tool_input: dict[str, Any]) -> str:
        raise ToolFailure(_string(tool_input, "message"))

    path = {"type": "string", "description": "a path relative to the workspace folder"}
    return [
        SimTool(
            "sim_list_files",
            "Lists the files of the simulated workspace, one path a line.",
            None,
            list_files,
            ["sim", "workspace"],
        ),
        SimTool(
            "sim_read_file",
            "Returns the text of a file of the simulated workspace.",
            _object({"path": path}, ["path"]),
            read_file,
            ["sim", "workspace"],
        ),
        SimTool(
            "sim_find_text",
            "Finds the lines of the simulated workspace that contain a text (case-sensitive), "
            "as path:line: text.",
            _object(
                {"pattern": {"type": "string", "description": "the text to find"}}, ["pattern"]
            ),
            find_text,
            ["sim", "workspace", "search"],
        ),
        SimTool(
            "sim_wait",
            "Waits a number of seconds, then says so; stops early when cancelled.",
            _object(
                {"seconds": {"type": "number", "minimum": 0, "maximum": MAX_WAIT_SECONDS}},
                ["seconds"],
            ),
            wait,
        ),
        SimTool(
            "sim_echo",
            "Returns the text, repeated `times` times (for results of any size).",
            _object(
                {"text": {"type": "string"}, "times": {"type": "integer", "minimum": 1}}, ["text"]
            ),
            echo,
        ),
        SimTool(
            "sim_swatch",
            "Returns a one-pixel PNG image of a colour (a result with an image part).",
            _object({"color": {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$"}}, ["color"]),
            swatch,
        ),
        SimTool(
            "sim_fail",
            "Always fails with the message given (a tool that throws).",
            _object({"message": {"type": "string"}}, ["message"]),
            fail,
        ),
    ]
