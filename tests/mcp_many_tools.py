"""A minimal stdio MCP server offering many tools (a test helper, run as a script).

`python mcp_many_tools.py COUNT LOG` serves COUNT tools named `probe_NNN` (each takes a
`text` string) over the Model Context Protocol's stdio transport: one JSON-RPC message per
line. A call of a tool answers `probe_NNN got <text>` and appends the tool's name and
arguments to LOG as one JSON line, so a test can see which tools really ran.

Hand-written rather than built on the `mcp` SDK: it needs only `initialize`, `tools/list`,
`tools/call` and `ping`, and keeps the test free of another dependency.
"""

from __future__ import annotations

import json
import sys
from typing import Any

PROTOCOL_VERSION = "2025-06-18"


def tool_name(index: int) -> str:
    return f"probe_{index:03d}"


def tool_list(count: int) -> list[dict[str, Any]]:
    return [
        {
            "name": tool_name(index),
            "description": f"Probe number {index}: echoes the text it is given.",
            "inputSchema": {
                "type": "object",
                "properties": {"text": {"type": "string", "description": "What to echo."}},
                "required": ["text"],
            },
        }
        for index in range(count)
    ]


def answer(message: dict[str, Any], count: int, log_path: str) -> dict[str, Any] | None:
    """The reply to one request (None for a notification)."""
    if "id" not in message:
        return None
    method, params = message.get("method"), message.get("params") or {}
    result: dict[str, Any]
    if method == "initialize":
        result = {
            "protocolVersion": params.get("protocolVersion", PROTOCOL_VERSION),
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "many-tools", "version": "1.0.0"},
        }
    elif method == "tools/list":
        result = {"tools": tool_list(count)}
    elif method == "tools/call":
        name, arguments = params.get("name"), params.get("arguments") or {}
        with open(log_path, "a", encoding="utf-8") as log:
            log.write(json.dumps({"name": name, "arguments": arguments}) + "\n")
        text = f"{name} got {arguments.get('text', '')}"
        result = {"content": [{"type": "text", "text": text}], "isError": False}
    elif method == "ping":
        result = {}
    else:
        error = {"code": -32601, "message": f"Method not found: {method}"}
        return {"jsonrpc": "2.0", "id": message["id"], "error": error}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def main() -> None:
    count, log_path = int(sys.argv[1]), sys.argv[2]
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(json.loads(line), count, log_path)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
