"""The model the headless editor serves: deterministic answers, real token counts of its own.

Every request first goes through a faithful stand-in for GitHub Copilot's provider
(headless_editor/copilot/): what Copilot refuses fails here with Copilot's message, and the
model answers what Copilot would have sent it. A test that needs the old permissive model
sets MAESTRO_SIM_PERMISSIVE=1 (or passes `copilot_rules=False`).

Without a script it answers as sim_replies.py describes; `sim-reasoning` thinks aloud first.
Every answer ends with a `usage` part (a Responses-API model's with a `stateful_marker` part
before it, as Copilot 0.67 reports them); its `prompt_tokens` take in Copilot's system prompt,
its `cached_tokens` are what the provider's prompt cache would bill: from the longest common
prefix with a recent request to the model (prompt_cache.py, cache_billing.py). An answer cut at
the output limit ends normally, with its text so far and no usage part, as 0.67 ends it.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from bridge.core.parts import (
    ChatMessage,
    DataPart,
    EditorError,
    ResponsePart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from bridge.core.turn_notes import without_turn_note
from headless_editor.bench_model import BENCH_MODEL, bench_reply
from headless_editor.cache_billing import EXACT, exact_by_env, policy_for
from headless_editor.chat_types import ChatRequest, ChatTool, ModelInfo, request_json
from headless_editor.copilot import Seen, copilot_view, rules_on_by_env
from headless_editor.copilot.endpoint import uses_responses_api
from headless_editor.input_count import input_tokens
from headless_editor.placeholders import placeholder_input
from headless_editor.prompt_cache import PromptCache, rendering
from headless_editor.reply_steps import EchoRequest, Fail, Pause, Reply
from headless_editor.seen_record import record_seen
from headless_editor.sim_models import MODELS, THINKING_MODELS, answering_model
from headless_editor.sim_replies import default_reply, thinking
from headless_editor.tokens import (
    count_tokens,
    count_tool_call_tokens,
    split_tokens,
)

if TYPE_CHECKING:  # scripts are read with pydantic: imported only for `serve --script`
    from headless_editor.script import Script

__all__ = ["MODELS", "SimulatedModel", "placeholder_input"]
_CHUNK_TOKENS = 2  # tokens per streamed text part: a word or two


class SimulatedModel:
    """Answers chat requests from the request alone (and an optional script)."""

    def __init__(self, copilot_rules: bool | None = None) -> None:
        # None: on, unless the test-only MAESTRO_SIM_PERMISSIVE=1 is set.
        self.copilot_rules = rules_on_by_env() if copilot_rules is None else copilot_rules
        self.prompt_cache = PromptCache()
        self.exact_cache = exact_by_env()  # test-only: bill the exact prefix (cache_billing.py)
        self._responses = 0  # Responses-API answers so far: their ids (resp_...) count up

    def models(self) -> list[ModelInfo]:
        return [copy.deepcopy(model) for model in MODELS]

    def count_tokens(self, text: str) -> int:
        return count_tokens(text)

    def count_input(self, messages: list[ChatMessage], tools: list[ChatTool]) -> int:
        """The tokens of `countInput`'s counted text (docs/protocol.md)."""
        return input_tokens(messages, tools)

    async def respond(
        self, request: ChatRequest, rules: Script | None = None
    ) -> AsyncIterator[ResponsePart]:
        """Stream the answer part by part, ending with a `usage` data part.

        Being a generator, it raises EditorError for an unknown model, or where Copilot
        refuses the request, on the first iteration, not when called.
        """
        listed = next((m for m in MODELS if m.id == request.model), None)
        if listed is None:
            known = ", ".join(model.id for model in MODELS)
            raise EditorError("NotFound", f"no model {request.model!r}; the models are {known}")
        model = answering_model(listed)
        if model.id == BENCH_MODEL.id:
            async for bench_part in bench_reply(request):
                yield bench_part
            return
        sent = request  # what reached the editor, for a script's `request` reply
        seen = copilot_view(request, model) if self.copilot_rules else _permissive(request)
        record_seen(model.id, seen)
        request = seen.request
        # A script matches what reached the editor (its author wrote the client's turns).
        # (The client's turns: not the bridge's closing note about this answer.)
        matched = rules.match(without_turn_note(sent.messages)) if rules is not None else None
        reply: Reply = list(default_reply(request)) if matched is None else matched.reply
        if self.copilot_rules:
            reply = _stopped(reply, request.modelOptions.get("stop"))
        limit = seen.output_limit
        if matched is not None and matched.rule.ignore_max_output_tokens:
            limit = None
        # Copilot 0.67 asks a Claude model to think only when the caller's raw options say
        # `_enableThinking` (the bridge does for a client's reasoning effort): Seen.body.
        thinks = (
            bool(seen.body.get("thinking"))
            if self.copilot_rules
            else seen.reasoning_effort != "none"
        )
        if model.id in THINKING_MODELS and thinks:
            reply = thinking(without_turn_note(request.messages), reply) + reply
        # Its chat and Messages processors do it; its Responses processor does not.
        spaced = self.copilot_rules and not uses_responses_api(model)
        output = _Output(limit, space_before_calls=spaced)
        for part in reply:
            if isinstance(part, Pause):
                await asyncio.sleep(part.seconds)
                continue
            if isinstance(part, Fail):
                raise EditorError(part.code, part.message, part.name)
            if isinstance(part, EchoRequest):
                part = TextPart(value=request_json(sent))
            for piece in output.emit(part):
                await asyncio.sleep(0)  # a point where a cancelled request stops
                yield piece
        await asyncio.sleep(0)
        rendered = seen.prompt or rendering(request.messages, request.tools, seen.system)
        prompt = rendered.tokens  # tools, system prompt and messages, as tokens.py counts them
        billing = self.copilot_rules and not self.exact_cache
        policy = policy_for(model.family) if billing else EXACT
        cached = self.prompt_cache.cached(model.id, rendered, policy)
        if self.copilot_rules and uses_responses_api(model):
            self._responses += 1
            yield _stateful_marker(model.id, self._responses)
        if self.copilot_rules and output.full:
            # Copilot 0.67 returns a length-limited answer early, without its usage part.
            return
        yield _usage_part(prompt, min(cached, prompt), output.tokens, output.reasoning_tokens)


def _permissive(request: ChatRequest) -> Seen:
    """The old permissive model: every option read, under either spelling."""
    options = request.modelOptions
    effort = options.get("reasoningEffort", request.modelConfiguration.get("reasoningEffort"))
    limit = options.get("maxOutputTokens", options.get("max_tokens"))
    if not (isinstance(limit, int) and not isinstance(limit, bool) and limit >= 0):
        limit = None
    return Seen(request, effort if isinstance(effort, str) else None, limit)


def _stopped(reply: Reply, stop: Any) -> Reply:
    """The reply up to the stop sequence, as a model ends there (the sequence not sent)."""
    if not isinstance(stop, str) or not stop:
        return reply
    kept: Reply = []
    for part in reply:
        if isinstance(part, TextPart) and stop in part.value:
            cut = part.value[: part.value.index(stop)]
            return [*kept, TextPart(value=cut)] if cut else kept
        kept.append(part)
    return kept


class _Output:
    """Cuts the reply into streamed parts and counts them, stopping at the output limit."""

    def __init__(self, limit: int | None, space_before_calls: bool = False) -> None:
        self.limit = limit
        self.tokens = 0
        self.reasoning_tokens = 0
        self.full = False  # the limit was hit: nothing more goes out
        # Copilot 0.67 reports a " " text part when a tool call starts after text (its chat
        # and Messages stream processors: `textAccumulator.length && report({text: " "})`).
        self.space_before_calls = space_before_calls
        self._texted = False

    def emit(self, part: ResponsePart) -> list[ResponsePart]:
        if self.full:
            return []
        if isinstance(part, ToolCallPart):
            cost = count_tool_call_tokens(part.name, part.input)
            if self.limit is not None and self.tokens + cost > self.limit:
                self.full = True  # a real model would have cut the call's JSON short
                return []
            self.tokens += cost
            return (
                [TextPart(value=" "), part] if self._texted and self.space_before_calls else [part]
            )
        if isinstance(part, ThinkingPart):
            pieces = self._take(split_tokens(part.value))
            self.reasoning_tokens += count_tokens("".join(pieces))
            return [ThinkingPart(value="".join(pieces), id=part.id)] if pieces else []
        if isinstance(part, TextPart):
            pieces = self._take(split_tokens(part.value))
            self._texted = self._texted or bool(pieces)
            return [
                TextPart(value="".join(pieces[i : i + _CHUNK_TOKENS]))
                for i in range(0, len(pieces), _CHUNK_TOKENS)
            ]
        return [part]  # data parts are not generated text

    def _take(self, pieces: list[str]) -> list[str]:
        taken: list[str] = []
        for piece in pieces:
            cost = count_tokens(piece)
            if self.limit is not None and self.tokens + cost > self.limit:
                self.full = True
                break
            self.tokens += cost
            taken.append(piece)
        return taken


def _usage_part(prompt: int, cached_tokens: int, completion: int, reasoning: int) -> DataPart:
    usage = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached_tokens},
        "completion_tokens_details": {"reasoning_tokens": reasoning},
    }
    data = base64.b64encode(json.dumps(usage).encode("utf-8")).decode("ascii")
    return DataPart(mimeType="usage", data=data)


def _stateful_marker(model_id: str, number: int) -> DataPart:
    """Copilot's marker of a Responses-API answer: the model id, a backslash, the response id
    (encodeStatefulMarker); Copilot reads it back from an assistant turn to continue there."""
    marker = f"{model_id}\\resp_sim{number:020d}"
    return DataPart(mimeType="stateful_marker", data=base64.b64encode(marker.encode()).decode())
