"""The Chat Completions chunk builder (editor parts -> `chat.completion.chunk`s) and its fold."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from bridge.chat.chunks import DONE, Chunk, ChunkBuilder, fold_completion, is_marker
from bridge.core.backend import DataPart, TextPart, ThinkingPart, ToolCallPart
from bridge.core.editor_usage import UsageCounts
from bridge.core.errors import ApiError

USAGE = UsageCounts(input_tokens=12, output_tokens=7, reasoning_tokens=3, cached_tokens=4)


def usage_part(**counts: Any) -> DataPart:
    data = base64.b64encode(json.dumps(counts).encode()).decode()
    return DataPart(mimeType="usage", data=data)


def chunks_only(chunks: list[Chunk]) -> list[Chunk]:
    return [chunk for chunk in chunks if not is_marker(chunk)]


def deltas(chunks: list[Chunk]) -> list[dict[str, Any]]:
    return [c["choices"][0]["delta"] for c in chunks_only(chunks) if c["choices"]]


def test_text_answer_chunks_share_one_identity_and_start_with_the_role() -> None:
    builder = ChunkBuilder("gpt-x")
    chunks = builder.add([TextPart(value="Hel"), TextPart(value="lo")])
    chunks += builder.finish("stop", USAGE)
    assert chunks[-1] == DONE
    real = chunks_only(chunks)
    assert {(c["id"], c["created"], c["model"], c["object"]) for c in real} == {
        (builder.id, builder.created, "gpt-x", "chat.completion.chunk")
    }
    assert builder.id.startswith("chatcmpl-AM-")
    assert deltas(chunks) == [
        {"role": "assistant", "content": ""},
        {"content": "Hel"},
        {"content": "lo"},
        {},
    ]
    assert [c["choices"][0]["finish_reason"] for c in real] == [None, None, None, "stop"]
    assert all(c["choices"][0]["logprobs"] is None and c["choices"][0]["index"] == 0 for c in real)
    assert all("usage" not in c for c in real)  # not asked for: no usage key at all


def test_the_role_chunk_goes_out_once_even_over_several_batches() -> None:
    builder = ChunkBuilder("m")
    first = builder.add([TextPart(value="a")])
    second = builder.add([TextPart(value="b")])
    assert [d for d in deltas(first + second) if "role" in d] == [
        {"role": "assistant", "content": ""}
    ]
    assert builder.add([]) == [] and builder.add([TextPart(value="")]) == []


def test_thinking_becomes_reasoning_content_deltas() -> None:
    builder = ChunkBuilder("m")
    chunks = builder.add([ThinkingPart(value="Hmm."), TextPart(value="Yes.")])
    assert deltas(chunks) == [
        {"role": "assistant", "content": None},  # thinking first: the content may never come
        {"reasoning_content": "Hmm."},
        {"content": "Yes."},
    ]
    assert builder.reasoning_text == ["Hmm."] and builder.answer_text == ["Yes."]


def test_tool_calls_are_whole_deltas_with_their_index_and_usable_ids() -> None:
    builder = ChunkBuilder("m")
    chunks = builder.add(
        [
            TextPart(value="Calling."),
            ToolCallPart(callId="call_1", name="get_weather", input={"city": "Paris"}),
            ToolCallPart(callId="call_1", name="get_time", input={}),  # a repeated id
            ToolCallPart(callId="bad id with spaces", name="noop", input={"x": [1, 2]}),
        ]
    )
    assert deltas(chunks)[0] == {"role": "assistant", "content": ""}
    calls = [d["tool_calls"][0] for d in deltas(chunks) if "tool_calls" in d]
    assert [c["index"] for c in calls] == [0, 1, 2]
    assert calls[0] == {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
    }
    assert calls[1]["id"].startswith("call_AM-") and calls[2]["id"].startswith("call_AM-")
    assert calls[1]["id"] != calls[2]["id"]
    assert json.loads(calls[2]["function"]["arguments"]) == {"x": [1, 2]}
    assert builder.tool_calls == 3


def test_include_usage_puts_null_usage_on_every_chunk_and_a_last_usage_chunk() -> None:
    builder = ChunkBuilder("m", include_usage=True)
    chunks = chunks_only(builder.add([TextPart(value="Hi")]) + builder.finish("length", USAGE))
    assert all("usage" in c for c in chunks)
    assert [c["usage"] for c in chunks[:-1]] == [None, None, None]
    last = chunks[-1]
    assert last["choices"] == [] and last["id"] == builder.id
    assert last["usage"] == {
        "prompt_tokens": 12,
        "completion_tokens": 7,
        "total_tokens": 19,
        "prompt_tokens_details": {"cached_tokens": 4, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 3,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }
    assert chunks[-2]["choices"][0]["finish_reason"] == "length"


def test_the_editor_usage_part_is_read_not_sent() -> None:
    builder = ChunkBuilder("m")
    part = usage_part(prompt_tokens=5, completion_tokens=2)
    assert builder.add([part]) == []
    assert builder.usage == UsageCounts(5, 2, 0, 0)
    assert not builder.started  # nothing went out: a failure now can still be an HTTP status
    broken = DataPart(mimeType="usage", data="not base64!")
    builder.add([broken])
    assert builder.usage == UsageCounts(5, 2, 0, 0)


def test_an_empty_answer_still_has_the_role_and_finish_chunks() -> None:
    builder = ChunkBuilder("m")
    assert deltas(builder.finish("stop", USAGE)) == [{"role": "assistant", "content": ""}, {}]


def test_fail_is_one_chunk_in_the_openai_envelope() -> None:
    builder = ChunkBuilder("m")
    builder.add([TextPart(value="partial")])
    error = ApiError(429, "Slow down.", type="rate_limit_error", code="rate_limit_exceeded")
    assert builder.fail(error) == [
        {
            "error": {
                "message": "Slow down.",
                "type": "rate_limit_error",
                "param": None,
                "code": "rate_limit_exceeded",
            }
        }
    ]


# --------------------------------------------------------------------------- fold


def test_fold_of_a_text_answer_with_reasoning() -> None:
    builder = ChunkBuilder("gpt-x", include_usage=True)
    chunks = builder.add([ThinkingPart(value="Think"), ThinkingPart(value="ing.")])
    chunks += builder.add([TextPart(value="The "), TextPart(value="answer.")])
    completion = fold_completion(chunks + builder.finish("stop", USAGE))
    assert completion == {
        "id": builder.id,
        "object": "chat.completion",
        "created": builder.created,
        "model": "gpt-x",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "The answer.",
                    "refusal": None,
                    "annotations": [],
                    "reasoning_content": "Thinking.",
                },
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": 12,
            "completion_tokens": 7,
            "total_tokens": 19,
            "prompt_tokens_details": {"cached_tokens": 4, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 3,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
    }


def test_fold_of_tool_calls_only_has_null_content() -> None:
    builder = ChunkBuilder("m", include_usage=True)
    chunks = builder.add(
        [
            ToolCallPart(callId="call_a", name="one", input={"a": 1}),
            ToolCallPart(callId="call_b", name="two", input={}),
        ]
    )
    assert deltas(chunks)[0] == {"role": "assistant", "content": None}  # as OpenAI's
    message = fold_completion(chunks + builder.finish("tool_calls", USAGE))["choices"][0]
    assert message["finish_reason"] == "tool_calls"
    assert message["message"]["content"] is None
    assert "reasoning_content" not in message["message"]
    assert message["message"]["tool_calls"] == [
        {"id": "call_a", "type": "function", "function": {"name": "one", "arguments": '{"a":1}'}},
        {"id": "call_b", "type": "function", "function": {"name": "two", "arguments": "{}"}},
    ]


def test_fold_of_thinking_and_a_tool_call_has_null_content() -> None:
    builder = ChunkBuilder("m", include_usage=True)
    chunks = builder.add([ThinkingPart(value="Look it up."), ToolCallPart(callId="c", name="f")])
    message = fold_completion(chunks + builder.finish("tool_calls", USAGE))["choices"][0]
    assert message["message"]["content"] is None
    assert message["message"]["reasoning_content"] == "Look it up."


def test_fold_of_an_empty_answer_has_empty_content() -> None:
    builder = ChunkBuilder("m", include_usage=True)
    message = fold_completion(builder.finish("length", USAGE))["choices"][0]["message"]
    assert message["content"] == "" and "tool_calls" not in message


def test_fold_of_text_and_a_tool_call_keeps_both() -> None:
    builder = ChunkBuilder("m", include_usage=True)
    chunks = builder.add([TextPart(value="Let me look."), ToolCallPart(callId="c", name="f")])
    message = fold_completion(chunks + builder.finish("tool_calls", USAGE))["choices"][0]
    assert message["message"]["content"] == "Let me look."
    assert len(message["message"]["tool_calls"]) == 1


def test_fold_joins_arguments_split_over_deltas_as_openai_streams_them() -> None:
    head = {"id": "chatcmpl-x", "created": 1, "model": "m", "object": "chat.completion.chunk"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> Chunk:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return {**head, "choices": [choice]}

    call = {"index": 0, "id": "call_1", "type": "function"}
    chunks = [
        chunk({"role": "assistant", "content": None}),
        chunk({"tool_calls": [{**call, "function": {"name": "f", "arguments": '{"a"'}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": ":1}"}}]}),
        chunk({}, "tool_calls"),
    ]
    calls = fold_completion(chunks)["choices"][0]["message"]["tool_calls"]
    assert calls == [
        {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}
    ]


def test_fold_without_usage_chunk_has_no_usage() -> None:
    builder = ChunkBuilder("m")
    completion = fold_completion(builder.add([TextPart(value="x")]) + builder.finish("stop", USAGE))
    assert "usage" not in completion


def test_fold_of_an_error_chunk_raises() -> None:
    builder = ChunkBuilder("m")
    chunks = builder.add([TextPart(value="partial")])
    chunks += builder.fail(ApiError(503, "Gone.", type="server_error", code="editor_unavailable"))
    with pytest.raises(ApiError) as raised:
        fold_completion(chunks)
    assert raised.value.status == 502 and raised.value.message == "Gone."
    assert raised.value.code == "editor_unavailable"


def test_fold_of_an_unfinished_stream_raises() -> None:
    builder = ChunkBuilder("m")
    with pytest.raises(ApiError):
        fold_completion(builder.add([TextPart(value="no finish")]))
    with pytest.raises(ApiError):
        fold_completion([])
