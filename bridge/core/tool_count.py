"""How many tools one request may offer the editor's model at once.

GitHub Copilot, the provider behind the editor's models, throws `Cannot have more than 128
tools per request.` above 128 for a model whose endpoint does not support tool search (Claude
4.5 and newer but Haiku, GPT-5.4/5.5: copilot/tool_search.py), and the whole request fails.
For the other models the bridge says so first, as a 400 the client can act on, instead of
cutting tools silently (a cut tool would look like one the model chose not to call). Tools a
client defers (`defer_loading`) are offered only once a tool search loads them, so a client
with a tool search stays under the limit on its own.
`limits.maxTools` (512) is a different bound: how many tools a request body may hold at all.
"""

from __future__ import annotations

from collections.abc import Sequence

from bridge.core.backend import ChatTool, ModelInfo
from bridge.core.copilot.tool_search import supports_tool_search
from bridge.core.errors import ApiError, invalid_request

MAX_OFFERED_TOOLS = 128  # languageModelAccess.ts, `_provideLanguageModelResponse`


def too_many_tools(count: int, model: str = "") -> ApiError:
    """The 400 for a request that would offer `count` (> 128) tools at once."""
    named = f"the model {model!r}" if model else "the editor's model"
    return invalid_request(
        f"This request offers {count} tools at once; {named} (GitHub Copilot) takes at most "
        f"{MAX_OFFERED_TOOLS} tools per request (only models with tool search, such as Claude "
        "Sonnet/Opus 4.5 and newer, take more). Send fewer tools, or defer them "
        "(`defer_loading: true`) behind a tool search so that only the tools it finds are "
        "offered (Claude Code does this unless ENABLE_TOOL_SEARCH turns it off).",
        param="tools",
        code="too_many_tools",
    )


def check_tool_count(tools: Sequence[ChatTool], model: ModelInfo | None = None) -> None:
    """Raise the 400 when more tools would be offered than the editor's model takes."""
    if len(tools) <= MAX_OFFERED_TOOLS:
        return
    if model is not None and supports_tool_search(model):
        return  # Copilot sends them all (languageModelAccess.ts)
    raise too_many_tools(len(tools), model.id if model is not None else "")
