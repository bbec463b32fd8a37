"""The MCP server at /mcp: the editor's tools and language features for agents
(docs/editor-tools.md), over Streamable HTTP, answered by the editor (docs/protocol.md)."""
