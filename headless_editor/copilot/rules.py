"""A faithful stand-in for GitHub Copilot's language model provider: what it does with a
request before its model answers, and every way it refuses one.

The steps and messages follow src/extension/conversation/vscode-node/languageModelAccess.ts
(the order it checks in), languageModelAccessPrompt.tsx (rendering), toolSchemaNormalizer.ts
(what CAPI refuses per family) and chatMLFetcher.ts (how refusals surface), in
microsoft/vscode-copilot-chat, brought up to Copilot Chat 0.67 (microsoft/vscode,
extensions/copilot/). `copilot_view` returns what the model sees; the simulated model answers
that.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from msgspec.structs import replace

from bridge.core.parts import ChatMessage, DataPart, ToolResultPart
from headless_editor.chat_types import ChatRequest, ModelInfo
from headless_editor.copilot import errors
from headless_editor.copilot.conversation import Rendered, render, seen_messages
from headless_editor.copilot.endpoint import supports_tool_search
from headless_editor.copilot.images import refusal as image_refusal
from headless_editor.copilot.prompt import SYSTEM_PROMPT
from headless_editor.copilot.request_body import request_body
from headless_editor.copilot.schemas import tool_refusal
from headless_editor.prompt_cache import Rendering, rendering

# LanguageModelOptions: the only modelOptions keys that reach the model, each with the
# values it accepts. Copilot keeps numbers, booleans and strings only: a list of stop
# sequences passes the check and is then dropped.
OPTION_KEYS = ("stop", "temperature", "max_tokens", "frequency_penalty", "presence_penalty")
_TOOL_NAME = re.compile(r"^[\w-]+$", re.ASCII)  # JavaScript's \w is ASCII


@dataclass(frozen=True)
class Seen:
    """The request as the model receives it."""

    request: ChatRequest  # rendered messages, Copilot's options only
    reasoning_effort: str | None
    output_limit: int | None  # max_tokens, else the model's maxOutputTokens
    system: str = ""  # Copilot's system prompt, read before the messages
    body: dict[str, Any] = field(default_factory=dict)  # the options CAPI gets, defaults filled
    prompt: Rendering | None = None  # the rendered input (tools, system, messages), if made


def copilot_view(request: ChatRequest, model: ModelInfo) -> Seen:
    """What Copilot sends the model for `request`; EditorError where Copilot throws."""
    if not request.messages:
        raise errors.provider_error(errors.NO_MESSAGES)
    for tool in request.tools:
        if not _TOOL_NAME.match(tool.name):
            raise errors.provider_error(errors.invalid_tool_name(tool.name))
    rendered, prompt = _within_budget(render(request.messages), request, model)
    if len(request.tools) > errors.MAX_TOOLS and not supports_tool_search(model):
        raise errors.provider_error(errors.TOO_MANY_TOOLS)
    options = model_options(request.modelOptions)
    if request.toolMode == "required" and len(request.tools) > 1:
        raise errors.provider_error(errors.REQUIRED_WITH_MANY)
    _upstream_checks(rendered, request, model)
    seen = replace(request, messages=prompt.messages, modelOptions=options)
    found = request.modelConfiguration.get("reasoningEffort")
    effort = found if isinstance(found, str) else None
    limit = _output_limit(options, model)
    # Copilot reads the raw option `_enableThinking` (languageModelAccess.ts), which its option
    # check would otherwise drop.
    enable_thinking = request.modelOptions.get("_enableThinking") is True
    body = request_body(options, model, effort, enable_thinking)
    return Seen(seen, effort, limit, SYSTEM_PROMPT, body, prompt.rendering)


def model_options(options: dict[str, Any]) -> dict[str, Any]:
    """Copilot's LanguageModelOptions.convert: its five keys, scalar values only."""
    kept: dict[str, Any] = {}
    for key in OPTION_KEYS:
        value = options.get(key)
        if isinstance(value, str) if key == "stop" else _is_number(value):
            kept[key] = value
    return kept


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


@dataclass(frozen=True)
class _Prompt:
    messages: list[ChatMessage]  # the rendered conversation, as the model answers it
    rendering: Rendering  # and as the provider reads it, tools and system prompt first


def _within_budget(
    rendered: list[Rendered], request: ChatRequest, model: ModelInfo
) -> tuple[list[Rendered], _Prompt]:
    """The rendered prompt within the model's window, less the tools' definitions.

    Images have the lowest priority: over budget, they go first; still over, or nothing
    left, Copilot throws. The listed window already leaves out Copilot's system prompt, and the
    rendered count takes it in again: Copilot counts it twice (languageModelAccess.ts).
    """
    prompt = _prompt(rendered, request)
    if prompt.rendering.tokens > model.maxInputTokens:
        rendered = [item for item in rendered if not _is_image_message(item)]
        prompt = _prompt(rendered, request)
    if not rendered or prompt.rendering.tokens > model.maxInputTokens:
        raise errors.provider_error(errors.TOKEN_LIMIT)
    return rendered, prompt


def _prompt(rendered: list[Rendered], request: ChatRequest) -> _Prompt:
    messages = seen_messages(rendered)
    return _Prompt(messages, rendering(messages, request.tools, SYSTEM_PROMPT))


def _is_image_message(item: Rendered) -> bool:
    return item.role == "user" and isinstance(item.parts[0], DataPart)


def _upstream_checks(rendered: list[Rendered], request: ChatRequest, model: ModelInfo) -> None:
    """What CAPI refuses: tool schemas and images. Copilot's own check of tool calls and their
    results never fires (validateRequest filters the wrong part type); whether the cloud refuses
    unpaired ones is the fake cloud's business, not the provider's."""
    for tool in request.tools:
        problem = tool_refusal(tool, model.family)
        if problem is not None:
            raise errors.upstream_error(f"Invalid schema for function '{tool.name}': {problem}")
    images = [part for item in rendered for part in _images(item)]
    if images and not model.capabilities.imageInput:
        raise errors.upstream_error(f'model "{model.id}" not supported for vision', code="")
    for image in images:
        problem = image_refusal(image.mimeType, image.data)
        if problem is not None:
            raise errors.upstream_error(problem)


def _images(item: Rendered) -> list[DataPart]:
    found: list[DataPart] = []
    for part in item.parts:
        if isinstance(part, DataPart):
            found.append(part)
        elif isinstance(part, ToolResultPart):
            found.extend(p for p in part.content if isinstance(p, DataPart))
    return found


def _output_limit(options: dict[str, Any], model: ModelInfo) -> int | None:
    limits = [model.maxOutputTokens] if model.maxOutputTokens > 0 else []
    asked = options.get("max_tokens")
    if asked is not None:
        limits.append(max(0, int(asked)))
    return min(limits) if limits else None
