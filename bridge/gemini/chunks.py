"""The one place where editor parts become `GenerateContentResponse` chunks, and their fold.

A pure builder: feed it the editor's parts in order, it returns the chunks to send. Every chunk
shares one `responseId` and `modelVersion` and holds one candidate (`index: 0`) whose content
(`role: "model"`) has the batch's parts in the model's order: text as `{text}`, thinking as
`{text, thought: true}` (only when the client asked for thoughts; else dropped, its tokens still
counted), each tool call, which the editor gives whole, as `{functionCall: {id, name, args}}`.

The last chunk carries `finishReason` and `usageMetadata`. It is the last batch's chunk, held
back until the next batch shows it is not the last (or 20 ms of silence: stream.py): Google's
SDKs treat a chunk without parts as an invalid turn (the Python SDK's chats drop it from the
history). The non-streaming answer is the same chunks folded (`fold`), so both paths agree.

`KEEPALIVE` travels with the chunks for the stream writer only (a blank line; the fold skips it).
"""

from __future__ import annotations

import re
from typing import Any

from bridge.core import ids, strict_json
from bridge.core.backend import DataPart, ResponsePart, TextPart, ThinkingPart, ToolCallPart
from bridge.core.editor_usage import UsageCounts, usage_of_part
from bridge.core.errors import ApiError
from bridge.core.thinking_tokens import is_sealed, token_of
from bridge.gemini.errors import api_error_of, gemini_error_body
from bridge.gemini.web_search import Grounding
from bridge.web_search.events import search_of

Chunk = dict[str, Any]
Part = dict[str, Any]

KEEPALIVE: Chunk = {"sse": "keepalive"}  # not a chunk: a blank line while the model is silent

STOP = "STOP"
MAX_TOKENS = "MAX_TOKENS"
SAFETY = "SAFETY"  # a content filter ended the answer

# Clients send a call's id back in `functionResponse.id`: keep the editor's when it is a plain
# token, else make one (an empty, odd or repeated id would pair the wrong result).
_USABLE_CALL_ID = re.compile(r"[A-Za-z0-9_.:-]{1,128}")


def is_marker(chunk: Chunk) -> bool:
    return "sse" in chunk


def usage_metadata(counts: UsageCounts) -> dict[str, Any]:
    """Google's usage: candidates exclude the thoughts, the total adds both to the prompt."""
    thoughts = min(counts.reasoning_tokens, counts.output_tokens)
    usage: dict[str, Any] = {
        "promptTokenCount": counts.input_tokens,
        "candidatesTokenCount": counts.output_tokens - thoughts,
        "totalTokenCount": counts.input_tokens + counts.output_tokens,
    }
    if thoughts:
        usage["thoughtsTokenCount"] = thoughts
    if counts.cached_tokens:
        usage["cachedContentTokenCount"] = counts.cached_tokens
    return usage


def _same_kind(one: Part, other: Part) -> bool:
    """Two text parts that read as one: both thoughts or both answer text."""
    texts = "text" in one and "text" in other and len(one) == len(other)
    return texts and bool(one.get("thought")) == bool(other.get("thought"))


def merge_texts(parts: list[Part]) -> list[Part]:
    """Adjacent text parts of the same kind merged, in order (empty answer texts dropped)."""
    merged: list[Part] = []
    for part in parts:
        if "text" in part and not part["text"] and not part.get("thought"):
            continue
        if merged and _same_kind(merged[-1], part):
            merged[-1] = {**merged[-1], "text": merged[-1]["text"] + part["text"]}
        else:
            merged.append(dict(part))
    return merged


class ChunkBuilder:
    def __init__(self, model: str, *, include_thoughts: bool = False) -> None:
        self.response_id = ids.gemini_response_id()
        self.model = model
        self.include_thoughts = include_thoughts
        self._held: list[Part] | None = None  # the last batch's parts, not sent yet
        self._used_ids: set[str] = set()
        self._signature: str | None = None  # the provider's last thought (thinking_tokens)
        self.usage: UsageCounts | None = None  # from the editor's usage part, when it sends one
        self.output_text: list[str] = []  # text and tool calls, for token estimates
        self.answer_text: list[str] = []  # the answer's text, for the structured-output check
        self.reasoning_text: list[str] = []
        self.tool_calls = 0
        self.grounding = Grounding()  # the searches the bridge ran (web_search.py)

    def _chunk(self, parts: list[Part], **candidate: Any) -> Chunk:
        return {
            "candidates": [{"content": {"role": "model", "parts": parts}, **candidate, "index": 0}],
            "modelVersion": self.model,
            "responseId": self.response_id,
        }

    # -- parts -------------------------------------------------------------------------------

    def add(self, parts: list[ResponsePart]) -> list[Chunk]:
        """The chunk held so far, if this batch has anything to say (then this one is held)."""
        wire: list[Part] = []
        for part in parts:
            if isinstance(part, TextPart) and part.value:
                self.output_text.append(part.value)
                self.answer_text.append(part.value)
                text = self.grounding.text(part.value)  # without `[n]` marks (web_search.py)
                if text:
                    wire.append({"text": text})
                continue
            held_text = self.grounding.flush()  # a part after the text ends it
            if held_text:
                wire.append({"text": held_text})
            if isinstance(part, ThinkingPart):
                if part.value:
                    self.reasoning_text.append(part.value)
                    if self.include_thoughts:
                        wire.append({"text": part.value, "thought": True})
                if is_sealed(part):  # rides on the next call, as Gemini's signatures do
                    self._signature = token_of(part)
            elif isinstance(part, ToolCallPart):
                wire.append(self._function_call(part))
            elif (outcome := search_of(part)) is not None:
                self.grounding.add(outcome)
            elif isinstance(part, DataPart):
                counts = usage_of_part(part.mimeType, part.data)
                if counts is not None:  # else counted with the editor's tokenizer at the end
                    self.usage = counts
        wire = merge_texts(wire)
        if not wire:
            return []
        sent = self.release()
        self._held = wire
        return sent

    def release(self) -> list[Chunk]:
        """The held chunk now (the model is silent: no reason to keep the client waiting)."""
        held, self._held = self._held, None
        return [self._chunk(held)] if held else []

    def _call_id(self, call_id: str) -> str:
        if not _USABLE_CALL_ID.fullmatch(call_id or "") or call_id in self._used_ids:
            call_id = ids.gemini_call_id()
        self._used_ids.add(call_id)
        return call_id

    def _function_call(self, part: ToolCallPart) -> Part:
        self.output_text.append(f"{part.name} {strict_json.encode(part.input)}")
        self.tool_calls += 1
        call = {"id": self._call_id(part.callId), "name": part.name, "args": dict(part.input)}
        if self._signature is None:
            return {"functionCall": call}
        # The provider's thought before this call: Gemini CLI gives it back with the call.
        signature, self._signature = self._signature, None
        return {"functionCall": call, "thoughtSignature": signature}

    # -- end ---------------------------------------------------------------------------------

    def finish(self, finish_reason: str, usage: UsageCounts) -> list[Chunk]:
        """The last chunk: the held parts (or an empty text) with the reason and the usage."""
        held, self._held = self._held, None
        tail = self.grounding.flush()
        if tail:
            held = merge_texts([*(held or []), {"text": tail}])
        chunk = self._chunk(held or [{"text": ""}], finishReason=finish_reason)
        grounding = self.grounding.metadata()
        if grounding is not None:
            chunk["candidates"][0]["groundingMetadata"] = grounding
        chunk["usageMetadata"] = usage_metadata(usage)
        return [chunk]

    def fail(self, error: ApiError) -> list[Chunk]:
        """What was held, then one chunk in Google's error envelope: the SDKs raise on it."""
        return [*self.release(), gemini_error_body(error)]


# -- fold ---------------------------------------------------------------------------------


def fold(chunks: list[Chunk]) -> Chunk:
    """The `GenerateContentResponse` the chunks describe (the non-streaming answer).

    An error chunk raises: the non-streaming answer of a failure is an HTTP error."""
    first: Chunk | None = None
    parts: list[Part] = []
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None
    grounding: dict[str, Any] | None = None
    for chunk in chunks:
        if is_marker(chunk):
            continue
        if "error" in chunk:
            raise api_error_of(chunk)
        first = first or chunk
        usage = chunk.get("usageMetadata") or usage
        for candidate in chunk.get("candidates") or []:
            parts += (candidate.get("content") or {}).get("parts") or []
            finish_reason = candidate.get("finishReason") or finish_reason
            grounding = candidate.get("groundingMetadata") or grounding
    if first is None or finish_reason is None:
        raise ApiError(502, "The editor ended the answer without a result.", type="server_error")
    answer: Chunk = {
        "candidates": [
            {
                "content": {"role": "model", "parts": merge_texts(parts) or [{"text": ""}]},
                "finishReason": finish_reason,
                "index": 0,
            }
        ],
        "modelVersion": first["modelVersion"],
        "responseId": first["responseId"],
    }
    if grounding is not None:
        answer["candidates"][0]["groundingMetadata"] = grounding
    if usage is not None:
        answer["usageMetadata"] = usage
    return answer
