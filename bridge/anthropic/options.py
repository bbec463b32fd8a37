"""Messages sampling and thinking options -> the editor's model options (pure functions).

`max_tokens` and `temperature` pass on (`top_p` has no way through Copilot). `stop_sequences`
are cut by the bridge, not sent: a model stopped natively ends as if it had finished, and the
answer could no longer say `stop_reason: "stop_sequence"` and which one (the bridge cancels
the model's request as soon as it cuts, so little is generated past it).
The editor's reasoning option is an effort, as in the Responses dialect (`reasoningEffort`).
So `output_config.effort` passes through (Anthropic's `max` is the top effort, `xhigh`), a
thinking budget becomes low/medium/high, adaptive thinking `medium`, and disabled thinking is
effort `none`. Keys that
have no meaning in the editor (`top_k`, `metadata`, `service_tier`, `context_management`,
`container`, `mcp_servers`) are accepted and logged at debug.
"""

from __future__ import annotations

import logging

from bridge.anthropic.wire import MessagesBody
from bridge.core.chat_request import RequestOptions
from bridge.core.reasoning import budget_effort

log = logging.getLogger(__name__)

IGNORED_KEYS = (
    "top_k",
    "metadata",
    "service_tier",
    "context_management",
    "container",
    "mcp_servers",
)
EFFORTS = {"low": "low", "medium": "medium", "high": "high", "max": "xhigh", "xhigh": "xhigh"}


def reasoning_effort(request: MessagesBody) -> str | None:
    """The editor's `reasoningEffort`, or None to leave the model its default."""
    thinking = request.thinking
    if thinking is not None and thinking.type == "disabled":
        return "none"
    effort = request.output_config.effort if request.output_config else None
    if effort is not None:
        mapped = EFFORTS.get(effort)
        if mapped is None:
            log.info("Ignoring unknown `output_config.effort` %r", effort)
        return mapped
    if thinking is not None and thinking.type == "enabled" and thinking.budget_tokens:
        return budget_effort(thinking.budget_tokens)
    if thinking is not None and thinking.type in ("enabled", "adaptive"):
        # Thinking asked for, its amount left to the model: Copilot's own default effort, so
        # that Claude thinks at all (Copilot switches its thinking on only with an effort).
        return "medium"
    return None


def thinking_shown(request: MessagesBody) -> bool:
    """Whether the editor's thinking parts become `thinking` blocks in the answer."""
    return request.thinking is not None and request.thinking.type in ("enabled", "adaptive")


def thinking_omitted(request: MessagesBody) -> bool:
    """Whether those blocks come without their text (`display: "omitted"`, as Claude Code asks)."""
    return (
        thinking_shown(request)
        and request.thinking is not None
        and (request.thinking.display == "omitted")
    )


def model_options(request: MessagesBody) -> RequestOptions:
    return RequestOptions(
        max_tokens=request.max_tokens,
        temperature=request.temperature,
        # stop_sequences: cut by the bridge only, to report which one ended the answer.
        reasoning_effort=reasoning_effort(request),
        not_passed=("top_p",) if request.top_p is not None else (),
    )


def log_ignored(request: MessagesBody) -> None:
    ignored = [key for key in IGNORED_KEYS if getattr(request, key) is not None]
    if request.tool_choice is not None and "disable_parallel_tool_use" in request.tool_choice:
        ignored.append("tool_choice.disable_parallel_tool_use")
    if ignored:
        log.debug("Accepted and ignored: %s", ", ".join(ignored))
