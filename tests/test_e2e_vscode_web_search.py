"""Issue 44: web search on an editor tool, in a real VS Code extension host (code-server,
headless). With `maestroBridge.webSearch.backend: "tool"` and `webSearch.tool` naming the
scripted-model test extension's `maestro_test_web_search` (test-fixtures/scripted-model/
tools.js: fixed results as JSON text), a Messages request with Anthropic's web search tool is
answered by the scripted model, whose call of `web_search` the bridge runs on that tool:

    client -> bridge -> lsp -> extension -> vscode.lm (scripted model): a web_search call
    bridge -> lsp -> extension -> vscode.lm.invokeTool(maestro_test_web_search): the results
    bridge -> vscode.lm (the results) -> the same answer goes on

The extension answers the tool methods for this although `maestroBridge.tools.enable` is off
(the MCP server at /mcp stays off). Fails under $CI and is skipped elsewhere when code-server is
missing, as the harness is.
"""

from __future__ import annotations

import pytest
from anthropic_validation import check_stream, parse_sse
from copilot_host import copilot_fixtures
from plain_http import post
from vscode_host import VSCodeHost

pytestmark = pytest.mark.timeout(600)

TOOL = "maestro_test_web_search"
capi, vscode = copilot_fixtures(
    {"maestroBridge.webSearch.backend": "tool", "maestroBridge.webSearch.tool": TOOL}
)
PAGE_URL = "https://maestro-bridge.example/docs/web-search"  # tools.js's first result
OTHER_URL = "https://other.example/news"
QUERY = "maestro bridge"


def test_a_messages_web_search_runs_on_the_editors_search_tool(vscode: VSCodeHost) -> None:
    body = {
        "model": "scripted-model",
        "max_tokens": 1000,
        "stream": True,
        # The scripted model calls the tool the prompt names, then says what it returned.
        "messages": [{"role": "user", "content": f'[call web_search {{"query": "{QUERY}"}}]'}],
        "tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 2}],
    }
    reply = post(f"{vscode.base_url.removesuffix('/v1')}/v1/messages", body)
    assert reply.status_code == 200, reply.text
    result = check_stream(parse_sse(reply.text))
    message = result.message
    assert message is not None, result
    kinds = [block["type"] for block in message["content"]]
    assert kinds == ["text", "server_tool_use", "web_search_tool_result", "text"], message
    use, found, answer = message["content"][1:]
    assert use["input"] == {"query": QUERY}
    assert [r["url"] for r in found["content"]] == [PAGE_URL, OTHER_URL]
    # The model read the numbered results (its answer repeats them): both are cited.
    assert answer["text"].startswith(f"web_search returned: Web results for '{QUERY}'"), answer
    assert [c["url"] for c in answer["citations"]] == [PAGE_URL, OTHER_URL], answer
    assert message["usage"]["server_tool_use"]["web_search_requests"] == 1
    invoked = [r for r in vscode.records("tool-invoked") if r["name"] == TOOL]
    assert [r["input"] for r in invoked] == [{"query": QUERY}], vscode.diagnostics()
