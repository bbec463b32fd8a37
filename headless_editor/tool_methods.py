"""Method names of docs/protocol.md, "Tools and language features", on the editor's side.
(lsp/rpc.py names the rest; these are the editor's until the server names them too.)"""

TOOLS = "maestro/tools"
TOOLS_CHANGED = "maestro/toolsChanged"
INVOKE_TOOL = "maestro/invokeTool"
LANGUAGE = "maestro/language"
