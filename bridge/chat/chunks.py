"""The one place where editor parts become `chat.completion.chunk` objects, and their fold.

A pure builder, like the Anthropic and Responses ones: feed it the editor's parts in order, it
returns the chunks to send. Every chunk shares one id, `created` and `model`. The first chunk
says who speaks (`role: "assistant"`), then text becomes `content` deltas, thinking becomes
`reasoning_content` deltas (the field DeepSeek, vLLM and LiteLLM use, which OpenAI clients
carry through), and each tool call, which the editor gives whole, becomes one `tool_calls` delta
with its `index`. The last choice chunk has an empty delta and the `finish_reason`; with
`stream_options.include_usage`, every chunk carries `"usage": null` and a final chunk with
`choices: []` carries the usage. The non-streaming answer is the same chunks folded
(`fold_completion`), so both paths always agree.

Two markers travel with the chunks for the SSE writer only (the fold skips them): `KEEPALIVE`
(an SSE comment while the model is silent) and `DONE` (the terminal `data: [DONE]`).
"""

from __future__ import annotations

import re
import time
from typing import Any

from bridge.chat.web_search import url_annotations
from bridge.core import ids, strict_json
from bridge.core.backend import DataPart, ResponsePart, TextPart, ThinkingPart, ToolCallPart
from bridge.core.editor_usage import UsageCounts, usage_of_part
from bridge.core.errors import ApiError
from bridge.web_search.events import search_of
from bridge.web_search.results import SearchResult

Chunk = dict[str, Any]

# Not chunks: what the SSE writer turns into a comment line and into `data: [DONE]`.
KEEPALIVE: Chunk = {"sse": "keepalive"}
DONE: Chunk = {"sse": "done"}

# Clients send a call's id back as the tool message's `tool_call_id`: keep the editor's when it
# is a plain token, else make one (an empty, odd or repeated id would pair the wrong result).
_USABLE_CALL_ID = re.compile(r"[A-Za-z0-9_.:-]{1,128}")


def is_marker(chunk: Chunk) -> bool:
    return "sse" in chunk


def usage_fields(counts: UsageCounts) -> dict[str, Any]:
    """The usage object in OpenAI's chat shape (output includes the reasoning tokens)."""
    return {
        "prompt_tokens": counts.input_tokens,
        "completion_tokens": counts.output_tokens,
        "total_tokens": counts.input_tokens + counts.output_tokens,
        "prompt_tokens_details": {"cached_tokens": counts.cached_tokens, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": counts.reasoning_tokens,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


class ChunkBuilder:
    def __init__(self, model: str, *, include_usage: bool = False) -> None:
        self.id = ids.chat_completion_id()
        self.created = int(time.time())
        self.model = model
        self.include_usage = include_usage
        self.started = False  # the role chunk went out
        self._used_ids: set[str] = set()
        self.usage: UsageCounts | None = None  # from the editor's usage part, when it sends one
        self.output_text: list[str] = []  # text and tool calls, for token estimates
        self.answer_text: list[str] = []  # the content's, for the structured-output check
        self.reasoning_text: list[str] = []
        self.tool_calls = 0
        self.search_results: list[SearchResult] = []  # the bridge's searches (web_search.py)

    # -- chunks ------------------------------------------------------------------------------

    def _chunk(self, choices: list[dict[str, Any]]) -> Chunk:
        chunk: Chunk = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": choices,
        }
        if self.include_usage:
            chunk["usage"] = None
        return chunk

    def _content(self, text: str) -> Chunk:
        """`_delta({"content": text})` built in one go: this runs once per streamed delta."""
        chunk: Chunk = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [
                {"index": 0, "delta": {"content": text}, "logprobs": None, "finish_reason": None}
            ],
        }
        if self.include_usage:
            chunk["usage"] = None
        return chunk

    def _delta(self, delta: dict[str, Any], finish_reason: str | None = None) -> Chunk:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        return self._chunk([choice])

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self, content: str | None = "") -> list[Chunk]:
        """The role chunk the first time, then nothing. Its `content` is "" unless the answer
        opens with thinking or a tool call: then null, as OpenAI's tool-call streams open, so
        that an answer of tool calls only folds (here and in any client) to `content: null`."""
        if self.started:
            return []
        self.started = True
        return [self._delta({"role": "assistant", "content": content})]

    def finish(self, finish_reason: str, usage: UsageCounts) -> list[Chunk]:
        """The finish_reason chunk, the usage chunk when asked for, then `[DONE]`."""
        chunks = self.start()
        notes = url_annotations("".join(self.answer_text), self.search_results)
        if notes:
            chunks.append(self._delta({"annotations": notes}))
        chunks.append(self._delta({}, finish_reason))
        if self.include_usage:
            chunks.append(dict(self._chunk([]), usage=usage_fields(usage)))
        return [*chunks, DONE]

    def fail(self, error: ApiError) -> list[Chunk]:
        """One chunk in OpenAI's error envelope: the openai SDKs raise on it; the stream ends."""
        return [error.body()]

    # -- parts -------------------------------------------------------------------------------

    def add(self, parts: list[ResponsePart]) -> list[Chunk]:
        chunks: list[Chunk] = []
        for part in parts:
            if isinstance(part, TextPart) and part.value:
                value = part.value
                self.output_text.append(value)
                self.answer_text.append(value)
                if not self.started:
                    chunks += self.start()
                chunks.append(self._content(value))
            elif isinstance(part, ThinkingPart) and part.value:
                self.reasoning_text.append(part.value)
                chunks += [*self.start(None), self._delta({"reasoning_content": part.value})]
            elif isinstance(part, ToolCallPart):
                chunks += [*self.start(None), self._tool_call(part)]
            elif (outcome := search_of(part)) is not None:
                self.search_results.extend(outcome.results)
            elif isinstance(part, DataPart):
                counts = usage_of_part(part.mimeType, part.data)
                if counts is not None:  # else counted with the editor's tokenizer at the end
                    self.usage = counts
        return chunks

    def _call_id(self, call_id: str) -> str:
        if not _USABLE_CALL_ID.fullmatch(call_id or "") or call_id in self._used_ids:
            call_id = ids.call_id()
        self._used_ids.add(call_id)
        return call_id

    def _tool_call(self, part: ToolCallPart) -> Chunk:
        arguments = strict_json.encode(part.input)
        self.output_text.append(f"{part.name} {arguments}")
        call = {
            "index": self.tool_calls,
            "id": self._call_id(part.callId),
            "type": "function",
            "function": {"name": part.name, "arguments": arguments},
        }
        self.tool_calls += 1
        return self._delta({"tool_calls": [call]})


# -- fold ---------------------------------------------------------------------------------


def _add_tool_call(calls: list[dict[str, Any]], delta: dict[str, Any]) -> None:
    """A tool-call delta: a new call at its index, or more of its arguments (OpenAI's way)."""
    index = delta["index"]
    function = delta.get("function") or {}
    if index == len(calls):
        calls.append(
            {
                "id": delta.get("id", ""),
                "type": delta.get("type", "function"),
                "function": {"name": function.get("name", ""), "arguments": ""},
            }
        )
    calls[index]["function"]["arguments"] += function.get("arguments") or ""


def fold_completion(chunks: list[Chunk]) -> Chunk:
    """The `chat.completion` object the chunks describe (the non-streaming answer).

    An error chunk raises: the non-streaming answer of a failure is an HTTP error."""
    first: Chunk | None = None
    content: list[str] | None = None  # None: no delta had content (a null in the answer)
    reasoning: list[str] | None = None
    calls: list[dict[str, Any]] = []
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None
    notes: list[dict[str, Any]] = []
    for chunk in chunks:
        if is_marker(chunk):
            continue
        if "error" in chunk:
            error = chunk["error"]
            raise ApiError(
                502,
                str(error.get("message", "")),
                type=str(error.get("type") or "server_error"),
                code=error.get("code"),
            )
        first = first or chunk
        if chunk.get("usage"):
            usage = chunk["usage"]
        for choice in chunk["choices"]:
            delta = choice["delta"]
            if delta.get("content") is not None:
                content = content if content is not None else []
                content.append(delta["content"])
            if delta.get("reasoning_content") is not None:
                reasoning = reasoning if reasoning is not None else []
                reasoning.append(delta["reasoning_content"])
            notes += delta.get("annotations") or []
            for call in delta.get("tool_calls") or []:
                _add_tool_call(calls, call)
            finish_reason = choice.get("finish_reason") or finish_reason
    if first is None or finish_reason is None:
        raise ApiError(502, "The editor ended the answer without a result.", type="server_error")
    message: dict[str, Any] = {
        "role": "assistant",
        "content": None if content is None else "".join(content),
        "refusal": None,
        "annotations": notes,
    }
    if calls:
        message["tool_calls"] = calls
    if reasoning is not None:
        message["reasoning_content"] = "".join(reasoning)
    completion: Chunk = {
        "id": first["id"],
        "object": "chat.completion",
        "created": first["created"],
        "model": first["model"],
        "choices": [
            {"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}
        ],
    }
    if usage is not None:
        completion["usage"] = usage
    return completion
