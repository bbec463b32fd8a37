"""How many tools one request may offer the editor's model at once.

GitHub Copilot, the provider behind the editor's models, throws `Cannot have more than 128
tools per request.` above 128 and the whole request fails. The bridge says so first, as a 400
the client can act on, instead of cutting tools silently (a cut tool would look like one the
model chose not to call). Tools a client defers (`defer_loading`) are offered only once a tool
search loads them, so a client with a tool search stays under the limit on its own.
`limits.maxTools` (512) is a different bound: how many tools a request body may hold at all.
"""

from __future__ import annotations

from collections.abc import Sequence

from bridge.core.backend import ChatTool
from bridge.core.errors import ApiError, invalid_request

MAX_OFFERED_TOOLS = 128  # Copilot's `validateTools` in languageModelAccess.ts


def too_many_tools(count: int) -> ApiError:
    """The 400 for a request that would offer `count` (> 128) tools at once."""
    return invalid_request(
        f"This request offers {count} tools at once; the editor's models (GitHub Copilot) take "
        f"at most {MAX_OFFERED_TOOLS} tools per request. Send fewer tools, or defer them "
        "(`defer_loading: true`) behind a tool search so that only the tools it finds are "
        "offered (Claude Code does this unless ENABLE_TOOL_SEARCH turns it off).",
        param="tools",
        code="too_many_tools",
    )


def check_tool_count(tools: Sequence[ChatTool]) -> None:
    """Raise the 400 when more tools would be offered than the editor's model takes."""
    if len(tools) > MAX_OFFERED_TOOLS:
        raise too_many_tools(len(tools))
