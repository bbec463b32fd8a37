"""Check Chat Completions answers against tests/schemas/chat_completions.json (a test helper).

The schema (JSON Schema 2020-12, one file with `$defs`) was written from the openai SDK's types
and OpenAI's OpenAPI document; see its `description`. Public functions, all raising
AssertionError with the JSON path and the reason:

* `validate_completion(obj)`: the non-streaming answer (`chat.completion`), plus what the schema
  cannot say: `total_tokens` is the sum, choices are numbered 0, 1, ..., `tool_calls` as the
  finish_reason comes with tool calls.
* `validate_chunk(obj)`: one `chat.completion.chunk`.
* `validate_error(obj)`: the error envelope `{"error": {"message", "type", "param", "code"}}`.
* `parse_sse(body)`: the `data:` frames of an SSE body (JSON, or `DONE` for `data: [DONE]`) and
  the number of `:` comment lines (the keepalives).
* `check_stream(chunks, include_usage=...)`: every chunk, and the rules across chunks (in
  `tests/chat_stream_rules.py`); returns the stream folded into a `chat.completion`, folded
  here, independently of the bridge, so a test can compare it with the non-streaming answer.
  `check_failed_stream(chunks)` is the same for a stream that ends with an error; it returns
  the error body.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chat_stream_rules import DONE, StreamOutcome, StreamRules, fail
from schema_defs import SchemaDefs

__all__ = [
    "DONE",
    "SseBody",
    "check_failed_stream",
    "check_stream",
    "comparable",
    "parse_sse",
    "schema",
    "validate_chunk",
    "validate_completion",
    "validate_error",
]
SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "chat_completions.json"
DEFS = SchemaDefs(SCHEMA_PATH)
check = DEFS.check


def schema() -> dict[str, Any]:
    return DEFS.schema


def check_usage(usage: dict[str, Any], label: str) -> None:
    """The sums a schema cannot check: the total, and the details inside their counts."""
    prompt, completion = usage["prompt_tokens"], usage["completion_tokens"]
    if usage["total_tokens"] != prompt + completion:
        fail(f"{label}: total_tokens {usage['total_tokens']} is not {prompt} + {completion}")
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
    if cached > prompt:
        fail(f"{label}: cached_tokens {cached} > prompt_tokens {prompt}")
    reasoning = (usage.get("completion_tokens_details") or {}).get("reasoning_tokens") or 0
    if reasoning > completion:
        fail(f"{label}: reasoning_tokens {reasoning} > completion_tokens {completion}")


def validate_completion(obj: Any) -> None:
    check(obj, "ChatCompletion", "chat.completion")
    if obj.get("usage") is not None:
        check_usage(obj["usage"], "chat.completion usage")
    indexes = [choice["index"] for choice in obj["choices"]]
    if indexes != list(range(len(indexes))):
        fail(f"chat.completion: the choices' indexes are {indexes}, not 0, 1, ...")
    for choice in obj["choices"]:
        calls = choice["message"].get("tool_calls") or []
        if choice["finish_reason"] == "tool_calls" and not calls:
            fail(f"choice {choice['index']}: finish_reason tool_calls without tool_calls")
        ids = [call["id"] for call in calls]
        if len(set(ids)) != len(ids):
            fail(f"choice {choice['index']}: two tool calls share an id: {ids}")


def validate_chunk(obj: Any) -> None:
    check(obj, "ChatCompletionChunk", "chat.completion.chunk")


def validate_error(obj: Any) -> None:
    check(obj, "Error", "error body")


@dataclass
class SseBody:
    """An SSE body of the Chat Completions stream: what its `data:` frames carried."""

    chunks: list[Any]  # each frame's JSON, or DONE for `data: [DONE]`, in order
    keepalives: int  # `:` comment lines (what a server writes while the model is silent)


def parse_sse(body: bytes | str) -> SseBody:
    """Frames end with a blank line; every line is a `data:` line or a `:` comment. A frame's
    data lines joined by newlines is JSON or `[DONE]` (the API sends no `event:` fields)."""
    text = body.decode("utf-8") if isinstance(body, bytes) else body
    chunks: list[Any] = []
    keepalives = 0
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n\n"):
        data: list[str] = []
        for line in filter(None, raw.split("\n")):
            if line.startswith(":"):
                keepalives += 1
            elif line.startswith("data:"):
                data.append(line.removeprefix("data:").removeprefix(" "))
            else:
                fail(f"an SSE line that is neither data: nor a comment: {line!r}")
        if not data:
            continue
        joined = "\n".join(data)
        if joined == DONE:
            chunks.append(DONE)
            continue
        try:
            chunks.append(json.loads(joined))
        except json.JSONDecodeError as exc:
            fail(f"an SSE frame whose data is not JSON ({exc}): {raw!r}")
    return SseBody(chunks, keepalives)


def _walk(chunks: Iterable[Any], include_usage: bool, wire: bool) -> StreamOutcome:
    rules = StreamRules(include_usage=include_usage, wire=wire)
    for number, chunk in enumerate(chunks):
        try:
            if isinstance(chunk, dict) and "error" in chunk:
                validate_error(chunk)
            elif chunk != DONE:
                validate_chunk(chunk)
        except AssertionError as exc:
            fail(f"chunk #{number}: {exc}")
        rules.take(number, chunk)
    return rules.finish()


def check_stream(
    chunks: Iterable[Any], *, include_usage: bool = False, wire: bool = True
) -> dict[str, Any]:
    """Every chunk against the schema and the rules across chunks; the folded completion.
    `wire`: the chunks of an SSE body (parse_sse), which must end with DONE; without it, the
    chunks an SDK handed over (it swallows `[DONE]`)."""
    outcome = _walk(chunks, include_usage, wire)
    if outcome.error is not None:
        fail(f"the stream ended with an error: {outcome.error}")
    assert outcome.completion is not None
    try:
        validate_completion(outcome.completion)
    except AssertionError as exc:
        fail(f"the folded stream: {exc}")
    return outcome.completion


def check_failed_stream(chunks: Iterable[Any], *, wire: bool = True) -> dict[str, Any]:
    """A stream that began and then failed: its chunks, then one error body; returns it."""
    outcome = _walk(chunks, False, wire)
    if outcome.error is None:
        fail("the stream ended without an error")
    return outcome.error


def without_cached(usage: dict[str, Any]) -> dict[str, Any]:
    """A chat usage without its cached tokens (they differ between repeats of a request)."""
    copied = copy.deepcopy(usage)
    (copied.get("prompt_tokens_details") or {}).pop("cached_tokens", None)
    return copied


def comparable(completion: dict[str, Any]) -> dict[str, Any]:
    """A completion without what differs between two answers to the same request (the id,
    the time, the fingerprint, the tool calls' ids, the input read from the prompt cache: a
    repeat finds the first answer's prompt there) or says nothing (no annotations, an empty
    content beside tool calls: a stream's role chunk often carries `content: ""`)."""
    copied = copy.deepcopy(completion)
    for key in ("id", "created", "system_fingerprint"):
        copied.pop(key, None)
    if isinstance(copied.get("usage"), dict):
        copied["usage"] = without_cached(copied["usage"])
    for choice in copied["choices"]:
        message = choice["message"]
        if not message.get("annotations"):
            message.pop("annotations", None)
        for call in message.get("tool_calls") or []:
            call.pop("id", None)
        if message.get("tool_calls") and message["content"] == "":
            message["content"] = None
    return copied
