"""The rules of a Gemini stream (`:streamGenerateContent`) that no single chunk shows, and the
fold (a test helper used by tests/gemini_validation.py, which checks each chunk against the
schema first).

The rules, each with its own failure message:
* every chunk has the first one's `responseId` and `modelVersion`;
* one candidate, index 0, in every chunk (the schema says so for one chunk);
* no empty chunk: each one brings at least one part or the finishReason, and no part is empty
  (a text part with `""` and no thoughtSignature says nothing), except a finish that comes
  alone as one empty text (the model fell silent after its last words went out);
* the finishReason comes once, on the last chunk, which also carries `usageMetadata`
  (earlier chunks may carry it too, as Google's do; the last one counts);
* a function call comes whole in one part, and no two calls share an id;
* an error body (`{"error": ...}`) ends the stream: nothing may follow it.

The fold is this helper's own, independent of the bridge's (bridge/gemini/chunks.py): the
chunks' parts in order, where a text part continues the previous one when both are text of the
same kind (thought or not) and the previous one has no thoughtSignature yet; the finishReason
and usageMetadata of the last chunk.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, NoReturn


def fail(message: str) -> NoReturn:
    raise AssertionError(message)


def is_text(part: dict[str, Any]) -> bool:
    return "text" in part


def is_empty_part(part: dict[str, Any]) -> bool:
    return is_text(part) and part["text"] == "" and not part.get("thoughtSignature")


def continues(previous: dict[str, Any], part: dict[str, Any]) -> bool:
    """Whether `part` is more of the text `previous` began (the same kind, no signature yet)."""
    return (
        is_text(previous)
        and is_text(part)
        and bool(previous.get("thought")) == bool(part.get("thought"))
        and "thoughtSignature" not in previous
    )


def merge_parts(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Parts with each run of text pieces of one kind joined into one part."""
    merged: list[dict[str, Any]] = []
    for part in parts:
        if merged and continues(merged[-1], part):
            merged[-1]["text"] += part["text"]
            if "thoughtSignature" in part:
                merged[-1]["thoughtSignature"] = part["thoughtSignature"]
        else:
            merged.append(copy.deepcopy(part))
    return merged


@dataclass
class StreamOutcome:
    answer: dict[str, Any] | None = None  # the folded GenerateContentResponse
    error: dict[str, Any] | None = None  # the error body that ended the stream


@dataclass
class StreamRules:
    """Takes the chunks one by one (each already valid against the schema)."""

    first: dict[str, Any] | None = None
    parts: list[dict[str, Any]] = field(default_factory=list)
    call_ids: set[str] = field(default_factory=set)
    grounding: dict[str, Any] | None = None  # the last groundingMetadata seen
    finish_reason: str | None = None
    last_usage: dict[str, Any] | None = None  # the usageMetadata of the latest chunk, if any
    error: dict[str, Any] | None = None
    number: int = 0

    def fail(self, message: str) -> NoReturn:
        fail(f"chunk #{self.number}: {message}")

    def take(self, number: int, chunk: dict[str, Any]) -> None:
        self.number = number
        if self.error is not None:
            self.fail(f"a chunk after the error that ended the stream: {chunk!r}")
        if "error" in chunk:
            self.error = chunk
            return
        if self.finish_reason is not None:
            self.fail(f"a chunk after the one with finishReason {self.finish_reason!r}")
        self.take_chunk(chunk)

    def take_chunk(self, chunk: dict[str, Any]) -> None:
        if self.first is None:
            self.first = chunk
        for key in ("responseId", "modelVersion"):
            if chunk[key] != self.first[key]:
                self.fail(
                    f"{key} {chunk[key]!r} differs from the first chunk's {self.first[key]!r}"
                )
        if len(chunk["candidates"]) != 1 or chunk["candidates"][0]["index"] != 0:
            self.fail("a chunk must have one candidate, index 0")
        candidate = chunk["candidates"][0]
        parts = (candidate.get("content") or {}).get("parts") or []
        self.grounding = candidate.get("groundingMetadata") or self.grounding
        finish = candidate.get("finishReason")
        if not parts and finish is None:
            self.fail("an empty chunk: no part and no finishReason")
        # The finish may come alone, as one empty text: the model fell silent after its last
        # words went out, and both Google SDKs drop a turn whose last chunk has no parts.
        alone = finish is not None and parts == [{"text": ""}]
        for part in [] if alone else parts:
            self.take_part(part)
        self.last_usage = chunk.get("usageMetadata")
        if finish is not None:
            self.finish_reason = finish
            if self.last_usage is None:
                self.fail("the chunk with the finishReason has no usageMetadata")

    def take_part(self, part: dict[str, Any]) -> None:
        if is_empty_part(part):
            self.fail(f"an empty part: {part!r}")
        call = part.get("functionCall")
        if call is not None:
            if call["id"] in self.call_ids:
                self.fail(f"two function calls share the id {call['id']!r}")
            self.call_ids.add(call["id"])
        self.parts.append(part)

    def finish(self) -> StreamOutcome:
        self.number += 1
        if self.error is not None:
            return StreamOutcome(error=self.error)
        if self.first is None:
            self.fail("the stream had no chunk")
        if self.finish_reason is None:
            self.fail("the stream ended without a finishReason")
        assert self.last_usage is not None
        return StreamOutcome(answer=self.folded(self.first, self.finish_reason, self.last_usage))

    def folded(self, first: dict[str, Any], finish: str, usage: dict[str, Any]) -> dict[str, Any]:
        candidate = {
            "content": {"role": "model", "parts": merge_parts(self.parts)},
            "finishReason": finish,
            "index": 0,
        }
        if self.grounding is not None:  # the bridge's web search (issue 44): on the last chunk
            candidate["groundingMetadata"] = copy.deepcopy(self.grounding)
        return {
            "candidates": [candidate],
            "usageMetadata": copy.deepcopy(usage),
            "modelVersion": first["modelVersion"],
            "responseId": first["responseId"],
        }
