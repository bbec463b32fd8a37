"""The rules of a Chat Completions stream that no single chunk shows, and the fold (a test helper
used by tests/chat_validation.py, which checks each chunk against the schema first).

The rules, each with its own failure message:
* every chunk has the first one's `id`, `created` and `model`;
* a choice's first delta has `role: "assistant"`, its later deltas no role (SDKs concatenate
  every string they get twice: the openai Python SDK would make it "assistantassistant");
* tool calls: the indexes of a choice start at 0 and grow by one; the first delta of an index
  carries `id`, `type: "function"` and `function.name`, the later ones only more
  `function.arguments`;
* each choice gets exactly one non-null `finish_reason`, and no delta after it;
* with `include_usage`, one last chunk with `choices: []` and the usage; the other chunks have
  no usage, and without `include_usage` none has;
* an error body (`{"error": ...}`) ends the stream (`data: [DONE]` may follow it or not);
* on the wire, `data: [DONE]` comes last, once; from an SDK (which swallows it) never.

The fold is this helper's own, independent of the bridge's: content, refusal and
`reasoning_content` are the joined pieces (null when none came), tool calls are assembled by
index, `logprobs` is null.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NoReturn

DONE = "[DONE]"  # what `data: [DONE]` becomes in parse_sse's chunks
STRING_PIECES = ("content", "refusal", "reasoning_content")


def fail(message: str) -> NoReturn:
    raise AssertionError(message)


@dataclass
class ToolCallPieces:
    id: str
    name: str
    arguments: list[str] = field(default_factory=list)

    def folded(self) -> dict[str, Any]:
        function = {"name": self.name, "arguments": "".join(self.arguments)}
        return {"id": self.id, "type": "function", "function": function}


@dataclass
class ChoicePieces:
    """What the deltas of one choice delivered so far."""

    index: int
    pieces: dict[str, list[str]] = field(default_factory=dict)  # content, refusal, reasoning
    calls: list[ToolCallPieces] = field(default_factory=list)
    finish_reason: str | None = None

    def folded(self) -> dict[str, Any]:
        joined = {key: "".join(parts) for key, parts in self.pieces.items()}
        message: dict[str, Any] = {
            "role": "assistant",
            "content": joined.get("content"),
            "refusal": joined.get("refusal"),
        }
        if "reasoning_content" in joined:  # the extension: only when the model thought
            message["reasoning_content"] = joined["reasoning_content"]
        if self.calls:
            message["tool_calls"] = [call.folded() for call in self.calls]
        return {
            "index": self.index,
            "message": message,
            "finish_reason": self.finish_reason,
            "logprobs": None,
        }


@dataclass
class StreamOutcome:
    completion: dict[str, Any] | None = None  # the folded chat.completion
    error: dict[str, Any] | None = None  # the error body that ended the stream


class StreamRules:
    """Takes the chunks one by one (each already valid against the schema)."""

    def __init__(self, *, include_usage: bool, wire: bool) -> None:
        self.include_usage = include_usage
        self.wire = wire
        self.first: dict[str, Any] | None = None
        self.choices: dict[int, ChoicePieces] = {}
        self.usage: dict[str, Any] | None = None
        self.extras: dict[str, Any] = {}  # service_tier, system_fingerprint
        self.error: dict[str, Any] | None = None
        self.done = False
        self.number = 0

    def fail(self, message: str) -> NoReturn:
        fail(f"chunk #{self.number}: {message}")

    def take(self, number: int, chunk: Any) -> None:
        self.number = number
        if self.done:
            self.fail(f"{chunk!r} after data: [DONE]")
        if chunk == DONE:
            if not self.wire:
                self.fail("[DONE] among the chunks an SDK handed over")
            self.done = True
        elif self.error is not None:
            self.fail(f"a chunk after the error that ended the stream: {chunk!r}")
        elif "error" in chunk:
            self.error = chunk
        else:
            self.take_chunk(chunk)

    def take_chunk(self, chunk: dict[str, Any]) -> None:
        if self.first is None:
            self.first = chunk
        for key in ("id", "created", "model"):
            if chunk[key] != self.first[key]:
                self.fail(
                    f"{key} {chunk[key]!r} differs from the first chunk's {self.first[key]!r}"
                )
        for key in ("service_tier", "system_fingerprint"):
            if chunk.get(key) is not None:
                self.extras[key] = chunk[key]
        if self.usage is not None:
            self.fail("a chunk after the usage chunk, which must be the last")
        if not chunk["choices"]:
            self.take_usage(chunk)
            return
        if chunk.get("usage") is not None:
            self.fail("usage on a chunk with choices: only the last chunk (choices []) has it")
        for choice in chunk["choices"]:
            self.take_choice(choice)

    def take_usage(self, chunk: dict[str, Any]) -> None:
        if not self.include_usage:
            self.fail("a chunk without choices (a usage chunk) though include_usage was not asked")
        if chunk.get("usage") is None:
            self.fail("a chunk with choices [] but no usage")
        self.usage = chunk["usage"]

    def take_choice(self, choice: dict[str, Any]) -> None:
        index, delta = choice["index"], choice["delta"]
        state = self.choices.get(index)
        if state is None:
            if delta.get("role") != "assistant":
                self.fail(f"the first delta of choice {index} has role {delta.get('role')!r}")
            state = self.choices[index] = ChoicePieces(index)
        elif delta.get("role") is not None:
            self.fail(f"a later delta of choice {index} repeats the role {delta['role']!r}")
        if state.finish_reason is not None:
            self.fail(f"a delta of choice {index} after its finish_reason {state.finish_reason!r}")
        for key in STRING_PIECES:
            if delta.get(key) is not None:
                state.pieces.setdefault(key, []).append(delta[key])
        for call in delta.get("tool_calls") or []:
            self.take_tool_call(state, call)
        state.finish_reason = choice["finish_reason"]

    def take_tool_call(self, state: ChoicePieces, call: dict[str, Any]) -> None:
        index, function = call["index"], call.get("function") or {}
        if index == len(state.calls):
            missing = [
                what
                for what, present in (
                    ("id", bool(call.get("id"))),
                    ("type function", call.get("type") == "function"),
                    ("function.name", bool(function.get("name"))),
                )
                if not present
            ]
            if missing:
                self.fail(f"tool call {index} begins without {', '.join(missing)}: {call}")
            state.calls.append(ToolCallPieces(call["id"], function["name"]))
        elif index == len(state.calls) - 1:
            if call.get("id") is not None or function.get("name") is not None:
                self.fail(f"a later delta of tool call {index} repeats its id or name: {call}")
        else:
            self.fail(f"tool call index {index}; expected {len(state.calls)} (or the current one)")
        if function.get("arguments") is not None:
            state.calls[index].arguments.append(function["arguments"])

    def finish(self) -> StreamOutcome:
        self.number += 1
        if self.error is not None:  # [DONE] may follow or not: the SDKs raise on the error
            return StreamOutcome(error=self.error)
        if self.wire and not self.done:
            self.fail("the stream ended without data: [DONE]")
        if self.first is None:
            self.fail("the stream had no chunk")
        unfinished = [index for index, state in self.choices.items() if state.finish_reason is None]
        if unfinished:
            self.fail(f"choices {unfinished} never got a finish_reason")
        if self.include_usage and self.usage is None:
            self.fail("include_usage was asked but no usage chunk came")
        completion: dict[str, Any] = {
            "id": self.first["id"],
            "object": "chat.completion",
            "created": self.first["created"],
            "model": self.first["model"],
            "choices": [self.choices[index].folded() for index in sorted(self.choices)],
            **self.extras,
        }
        if self.usage is not None:
            completion["usage"] = self.usage
        return StreamOutcome(completion=completion)
