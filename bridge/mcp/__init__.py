"""The MCP server at /mcp: the editor's tools and language features for agents (README
"Editor tools"), over Streamable HTTP, answered by the editor (docs/protocol.md)."""
