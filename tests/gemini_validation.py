"""Check Gemini answers against tests/schemas/gemini.json (a test helper).

The schema (JSON Schema 2020-12, one file with `$defs`) was written from the google-genai SDK's
types and Google's REST reference; see its `$comment`. Public functions, all raising
AssertionError with the JSON path and the reason:

* `validate_answer(obj)`: a full GenerateContentResponse (`:generateContent`), plus what the
  schema cannot say: the token sums, no empty part, unique function-call ids, thinking counted.
* `validate_chunk(obj)`: one chunk of `:streamGenerateContent`.
* `validate_error(obj, http_status=None)`: the envelope `{"error": {code, message, status}}`,
  its status the one Google pairs with its code (and the HTTP status, when given).
* `validate_models(obj)` / `validate_model(obj)`: `GET /v1beta/models` and one model.
* `validate_count(obj)`: `:countTokens`.
* `parse_sse(body)`: the chunks of an `?alt=sse` body and the keepalive blank lines between
  them; `parse_json_array(body)` the same for a stream without `alt=sse` (one JSON array).
* `check_stream(chunks)`: every chunk, the rules across chunks (tests/gemini_stream_rules.py),
  and the fold, validated as a full answer; `check_failed_stream(chunks)` for a stream that
  ends with an error (returns it). `fold_stream(chunks)` folds without the checks.
* `comparable(answer)`: an answer without what differs between two runs, to compare a folded
  stream with the non-streaming answer.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gemini_stream_rules import StreamOutcome, StreamRules, fail, is_empty_part, merge_parts
from schema_defs import SchemaDefs

__all__ = [
    "SseBody",
    "check_failed_stream",
    "check_stream",
    "comparable",
    "fold_stream",
    "parse_json_array",
    "parse_sse",
    "schema",
    "validate_answer",
    "validate_chunk",
    "validate_count",
    "validate_error",
    "validate_model",
    "validate_models",
]
SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "gemini.json"
DEFS = SchemaDefs(SCHEMA_PATH)
check = DEFS.check

# The HTTP status of each google.rpc.Code (google/rpc/code.proto). The bridge also answers 413
# (a body too large: INVALID_ARGUMENT, or RESOURCE_EXHAUSTED as a quota) and 502 (the editor is
# gone: UNAVAILABLE, which clients retry like 503).
HTTP_STATUSES: dict[str, set[int]] = {
    "INVALID_ARGUMENT": {400, 413},
    "FAILED_PRECONDITION": {400},
    "OUT_OF_RANGE": {400},
    "UNAUTHENTICATED": {401},
    "PERMISSION_DENIED": {403},
    "NOT_FOUND": {404},
    "ALREADY_EXISTS": {409},
    "ABORTED": {409},
    "RESOURCE_EXHAUSTED": {429, 413},
    "CANCELLED": {499},
    "UNKNOWN": {500},
    "INTERNAL": {500},
    "DATA_LOSS": {500},
    "UNIMPLEMENTED": {501},
    "UNAVAILABLE": {502, 503},
    "DEADLINE_EXCEEDED": {504},
}


def schema() -> dict[str, Any]:
    return DEFS.schema


def check_usage(usage: dict[str, Any], label: str) -> None:
    """The total is the sum of its counts (the SDK's docs); the cache is part of the prompt."""
    counts = ("promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount")
    parts = [usage.get(key, 0) for key in (*counts, "toolUsePromptTokenCount")]
    if usage["totalTokenCount"] != sum(parts):
        fail(f"{label}: totalTokenCount {usage['totalTokenCount']} is not the sum of {parts}")
    cached = usage.get("cachedContentTokenCount", 0)
    if cached > usage["promptTokenCount"]:
        fail(f"{label}: cachedContentTokenCount {cached} > promptTokenCount")


def check_parts(parts: list[dict[str, Any]], label: str) -> None:
    empty = [index for index, part in enumerate(parts) if is_empty_part(part)]
    if empty:
        fail(f"{label}: parts {empty} are empty text parts")
    ids = [part["functionCall"]["id"] for part in parts if "functionCall" in part]
    if len(set(ids)) != len(ids):
        fail(f"{label}: two function calls share an id: {ids}")


def validate_answer(obj: Any) -> None:
    check(obj, "GenerateContentResponse", "GenerateContentResponse")
    usage = obj["usageMetadata"]
    check_usage(usage, "usageMetadata")
    parts = obj["candidates"][0]["content"]["parts"]
    # Only an answer cut before its first word says nothing (Google's own answers then carry
    # no part: google-gemini/generative-ai-python issue 280; the bridge's fold sends one empty
    # text instead, bridge/gemini/chunks.py).
    cut = obj["candidates"][0].get("finishReason") in ("MAX_TOKENS", "SAFETY")
    if cut and parts in ([], [{"text": ""}]):
        return
    if not parts:
        fail("GenerateContentResponse: the candidate's content has no part")
    check_parts(parts, "candidate 0")
    if any(part.get("thought") for part in parts) and not usage.get("thoughtsTokenCount"):
        fail("GenerateContentResponse: thought parts but no thoughtsTokenCount")


def validate_chunk(obj: Any) -> None:
    check(obj, "GenerateContentResponseChunk", "stream chunk")
    if obj.get("usageMetadata") is not None:
        check_usage(obj["usageMetadata"], "chunk usageMetadata")


def validate_error(obj: Any, http_status: int | None = None) -> None:
    check(obj, "Error", "error body")
    code, status = obj["error"]["code"], obj["error"]["status"]
    if code not in HTTP_STATUSES[status]:
        fail(f"error: status {status} goes with {sorted(HTTP_STATUSES[status])}, not code {code}")
    if http_status is not None and code != http_status:
        fail(f"error: code {code} but the HTTP status was {http_status}")


def validate_model(obj: Any) -> None:
    check(obj, "Model", "Model")


def validate_models(obj: Any) -> None:
    check(obj, "ListModelsResponse", "ListModelsResponse")
    names = [model["name"] for model in obj["models"]]
    if len(set(names)) != len(names):
        fail(f"ListModelsResponse: a model is listed twice: {names}")


def validate_count(obj: Any) -> None:
    check(obj, "CountTokensResponse", "CountTokensResponse")


@dataclass
class SseBody:
    """An `?alt=sse` body of streamGenerateContent: what its `data:` frames carried."""

    chunks: list[Any]  # each frame's JSON, in order
    keepalives: int  # blank lines outside a frame (what a server writes while the model is silent)


def parse_sse(body: bytes | str) -> SseBody:
    """Every line is a `data:` line or blank: a blank line ends the frame before it, or, with no
    frame pending, is a keepalive. No comments (`:`; Google's SDK stalls on them), no `event:`."""
    text = body.decode("utf-8") if isinstance(body, bytes) else body
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the body's last line
    chunks: list[Any] = []
    pending: list[str] = []
    keepalives = 0
    for line in lines:
        if line.startswith("data:"):
            pending.append(line.removeprefix("data:").removeprefix(" "))
        elif line:
            fail(f"an SSE line that is neither data: nor blank: {line!r}")
        elif pending:
            chunks.append(_frame_json("\n".join(pending)))
            pending = []
        else:
            keepalives += 1
    if pending:
        fail(f"the body ended inside a frame: {pending!r}")
    return SseBody(chunks, keepalives)


def _frame_json(data: str) -> Any:
    try:
        return json.loads(data)
    except json.JSONDecodeError as exc:
        fail(f"an SSE frame whose data is not JSON ({exc}): {data!r}")


def parse_json_array(body: bytes | str) -> list[Any]:
    """A stream without `alt=sse`: one JSON array of the same objects (whitespace allowed
    between them: keepalives)."""
    try:
        loaded = json.loads(body)
    except json.JSONDecodeError as exc:
        fail(f"a stream body that is not one JSON array ({exc})")
    if not isinstance(loaded, list) or not all(isinstance(item, dict) for item in loaded):
        fail(f"a stream body that is not an array of objects: {str(loaded)[:200]}")
    return loaded


def _walk(chunks: Iterable[Any]) -> StreamOutcome:
    rules = StreamRules()
    for number, chunk in enumerate(chunks):
        try:
            if isinstance(chunk, dict) and "error" in chunk:
                validate_error(chunk)
            else:
                validate_chunk(chunk)
        except AssertionError as exc:
            fail(f"chunk #{number}: {exc}")
        rules.take(number, chunk)
    return rules.finish()


def check_stream(chunks: Iterable[Any]) -> dict[str, Any]:
    """Every chunk against the schema and the rules across chunks; the folded answer."""
    outcome = _walk(chunks)
    if outcome.error is not None:
        fail(f"the stream ended with an error: {outcome.error}")
    assert outcome.answer is not None
    try:
        validate_answer(outcome.answer)
    except AssertionError as exc:
        fail(f"the folded stream: {exc}")
    return outcome.answer


def check_failed_stream(chunks: Iterable[Any]) -> dict[str, Any]:
    """A stream that began and then failed: its chunks, then one error body; returns it."""
    outcome = _walk(chunks)
    if outcome.error is None:
        fail("the stream ended without an error")
    return outcome.error


def fold_stream(chunks: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The chunks folded into one answer, without the checks (check_stream does both)."""
    rules = StreamRules()
    for number, chunk in enumerate(chunks):
        rules.take(number, chunk)
    outcome = rules.finish()
    if outcome.answer is None:
        fail(f"the stream ended with an error: {outcome.error}")
    return outcome.answer


def comparable(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer without what differs between two runs of the same request (the responseId,
    function-call ids, thought signatures, the input read from the prompt cache: a repeat
    finds the first run's prompt there), its text runs joined as a fold joins them."""
    copied = copy.deepcopy(answer)
    copied.pop("responseId", None)
    (copied.get("usageMetadata") or {}).pop("cachedContentTokenCount", None)
    for candidate in copied["candidates"]:
        parts = (candidate.get("content") or {}).get("parts") or []
        for part in parts:
            part.pop("thoughtSignature", None)
            if "functionCall" in part:
                part["functionCall"].pop("id", None)
        if "content" in candidate:
            candidate["content"]["parts"] = merge_parts(parts)
    return copied
