"""The bridge's MCP server in Claude Code's own configuration file (`--tools`).

Claude Code 2.1.330 keeps its user-scope MCP servers (those of every project) in the
`mcpServers` object of `$CLAUDE_CONFIG_DIR/.claude.json` when that variable is set, else of
`~/.claude.json` (in the home folder itself, not in ~/.claude); except that an old install's
`.config.json` in Claude Code's folder (~/.claude), when it is there and not empty, is used
instead: read in its bundle, and where `claude mcp add --scope user` writes. That command's
entry for an HTTP server is the reference for ours:

    "maestro": {"type": "http", "url": "<bridge>/mcp",
                "headers": {"Authorization": "Bearer ${MAESTRO_BRIDGE_API_KEY}"}}

The header names the variable rather than the key (Claude Code expands `${VAR}` in an HTTP
server's headers when it connects: bridge/configure/mcp_server.py); without a key there is
no header. The file
holds much more (Claude Code's own state): every other key stays, in its order.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from bridge.configure.claude_settings import claude_config_dir
from bridge.configure.config_file import Change, json_object, json_text
from bridge.configure.mcp_server import MCP_SERVER_NAME, McpServer, merge_json_server
from bridge.user_home import user_home

AUTHORIZATION_KEY = f"mcpServers.{MCP_SERVER_NAME}.headers.Authorization"
# Keys of Claude Code's stdio servers: the entry is an HTTP server's.
_STDIO_KEYS = ("command", "args", "env")


def claude_global_file(environ: Mapping[str, str], platform: str | None = None) -> Path:
    """`$CLAUDE_CONFIG_DIR/.claude.json` when that is set and not empty, else `~/.claude.json`;
    but the old `.config.json` of Claude Code's folder when that is a file with content."""
    legacy = claude_config_dir(environ, platform) / ".config.json"
    try:
        if legacy.is_file() and legacy.stat().st_size > 0:
            return legacy
    except OSError:
        pass  # unreadable: Claude Code cannot use it either
    value = environ.get("CLAUDE_CONFIG_DIR", "")
    folder = Path(value).expanduser().absolute() if value else user_home(environ, platform)
    return folder / ".claude.json"


def merge_mcp(text: str, server: McpServer) -> tuple[str, list[Change]]:
    """`text` (a .claude.json, possibly empty) with our MCP server in it; and what changed."""
    document = json_object(text, ": fix it or move it away; nothing was written")
    ours = {"type": "http", "url": server.url, "headers.Authorization": server.authorization}
    changes = merge_json_server(document, ours, _STDIO_KEYS)
    if not changes:
        return text, []
    return json_text(document), changes
