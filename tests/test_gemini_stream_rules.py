"""Each rule across the chunks of a Gemini stream (tests/gemini_stream_rules.py) fails on a
stream that breaks it, with its own message; a stream ending in an error is read as one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from gemini_samples import TEXT_USAGE, chunk, error, text_stream, tool_stream
from gemini_validation import check_failed_stream, check_stream, fold_stream

Chunks = list[dict[str, Any]]


def first_part(chunks: Chunks, number: int) -> dict[str, Any]:
    part: dict[str, Any] = chunks[number]["candidates"][0]["content"]["parts"][0]
    return part


def call_part(chunks: Chunks) -> dict[str, Any]:
    part: dict[str, Any] = chunks[2]["candidates"][0]["content"]["parts"][1]
    return part


def finish_early(first: dict[str, Any]) -> None:
    first["candidates"][0]["finishReason"] = "STOP"
    first["usageMetadata"] = dict(TEXT_USAGE)


def also(change: Callable[[Chunks], object]) -> Callable[[Chunks], Chunks]:
    def changed(chunks: Chunks) -> Chunks:
        change(chunks)
        return chunks

    return changed


BROKEN_STREAMS: dict[str, tuple[Callable[[], Chunks], Callable[[Chunks], Chunks], str]] = {
    "no chunk": (text_stream, lambda c: [], "no chunk"),
    "responseId changes": (
        text_stream,
        also(lambda c: c[1].update(responseId="AM-other")),
        "responseId 'AM-other' differs",
    ),
    "modelVersion changes": (
        text_stream,
        also(lambda c: c[2].update(modelVersion="sim-echo")),
        "modelVersion 'sim-echo' differs",
    ),
    "candidate index 1": (
        text_stream,
        also(lambda c: c[1]["candidates"][0].update(index=1)),
        "0 was expected",
    ),
    "a chunk without candidates": (
        text_stream,
        also(lambda c: c[1].update(candidates=[])),
        "should be non-empty",
    ),
    "an empty chunk": (
        text_stream,
        lambda c: [c[0], chunk([]), *c[1:]],
        "an empty chunk",
    ),
    "a chunk with no content and no finish": (
        text_stream,
        lambda c: [c[0], chunk(None), *c[1:]],
        "an empty chunk",
    ),
    "an empty text part": (
        text_stream,
        lambda c: [c[0], chunk([{"text": ""}]), *c[1:]],
        "an empty part",
    ),
    "an empty text beside another part in the finish": (
        text_stream,
        also(lambda c: c[2]["candidates"][0]["content"]["parts"].append({"text": ""})),
        "an empty part",
    ),
    "finishReason before the last chunk": (
        text_stream,
        also(lambda c: finish_early(c[0])),
        "after the one with finishReason",
    ),
    "no finishReason": (
        text_stream,
        also(lambda c: c[2]["candidates"][0].pop("finishReason")),
        "without a finishReason",
    ),
    "no usage on the last chunk": (
        text_stream,
        also(lambda c: c[2].pop("usageMetadata")),
        "has no usageMetadata",
    ),
    "a chunk's usage that does not add up": (
        text_stream,
        also(lambda c: c[0].update(usageMetadata={**TEXT_USAGE, "totalTokenCount": 1})),
        "is not the sum",
    ),
    "two calls, one id": (
        tool_stream,
        lambda c: [*c[:3], chunk([call_part(c)]), *c[3:]],
        "share the id",
    ),
    "a call without args (streamed in pieces)": (
        tool_stream,
        also(lambda c: call_part(c)["functionCall"].pop("args")),
        "'args' is a required property",
    ),
    "role user": (
        text_stream,
        also(lambda c: c[0]["candidates"][0]["content"].update(role="user")),
        "'model' was expected",
    ),
    "OpenAI's delta": (
        text_stream,
        also(lambda c: c[0]["candidates"][0].update(delta={"content": "Hi"})),
        "'delta' was unexpected",
    ),
    "a chunk after the error": (
        text_stream,
        lambda c: [c[0], error(500, "INTERNAL"), c[1]],
        "after the error",
    ),
    "a thought that folds into the answer text": (
        tool_stream,
        also(lambda c: first_part(c, 0).update(thought="yes")),
        "is not of type 'boolean'",
    ),
}


@pytest.mark.parametrize("case", BROKEN_STREAMS.values(), ids=BROKEN_STREAMS.keys())
def test_broken_streams_fail_with_their_rule(
    case: tuple[Callable[[], Chunks], Callable[[Chunks], Chunks], str],
) -> None:
    make, change, message = case
    with pytest.raises(AssertionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_stream(change(make()))


def test_a_finish_alone_as_one_empty_text_is_allowed() -> None:
    # The bridge's stream when the model falls silent after its last words went out.
    chunks = text_stream()
    chunks[2]["candidates"][0]["content"]["parts"] = [{"text": " friend."}]
    del chunks[2]["candidates"][0]["finishReason"], chunks[2]["usageMetadata"]
    chunks.append(chunk([{"text": ""}], "STOP", TEXT_USAGE))
    check_stream(chunks)
    assert fold_stream(chunks) == fold_stream(text_stream())


def test_usage_on_every_chunk_is_allowed_and_the_last_one_counts() -> None:
    chunks = text_stream()
    early = {"promptTokenCount": 8, "candidatesTokenCount": 1, "totalTokenCount": 9}
    chunks[0]["usageMetadata"] = early
    assert check_stream(chunks)["usageMetadata"] == TEXT_USAGE


def test_a_stream_that_ends_in_an_error_returns_it() -> None:
    body = error(503, "UNAVAILABLE", "The editor's model failed.")
    assert check_failed_stream([*text_stream()[:2], body]) == body
    assert check_failed_stream([body]) == body
    with pytest.raises(AssertionError, match="ended without an error"):
        check_failed_stream(text_stream())
    with pytest.raises(AssertionError, match="ended with an error"):
        check_stream([*text_stream()[:2], body])
    with pytest.raises(AssertionError, match="not a valid Error"):
        check_failed_stream([text_stream()[0], {"error": {"message": "x"}}])


def test_fold_stream_joins_text_of_one_kind_and_keeps_the_order() -> None:
    folded = fold_stream(tool_stream())
    texts = [
        (part.get("text"), part.get("thought"))
        for part in folded["candidates"][0]["content"]["parts"]
    ]
    assert texts == [("The user wants the weather.", True), ("Let me look.", None), (None, None)]
