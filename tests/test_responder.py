"""`plan_response`, `response_events` and `fold_response` against a scripted Backend double."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

import pytest
from spec_validation import validate_response, validate_stream

from bridge.core.backend import (
    Backend,
    ChatRequest,
    DataPart,
    EditorError,
    EditorErrorCode,
    ModelInfo,
    ResponsePart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from bridge.core.copilot.required import INSTRUCTION
from bridge.core.errors import GRANT_ACCESS_HINT, ApiError
from bridge.core.structured_output import checked_format
from bridge.core.turn_notes import HEADER
from bridge.responses.events import Event
from bridge.responses.request import parse_create_request
from bridge.responses.responder import (
    ResponsePlan,
    fold_response,
    plan_response,
    resolve_model,
    response_events,
)
from bridge.responses.response_object import usage_object
from bridge.responses.tools import ToolTarget

MODELS = [
    ModelInfo(id="sim-echo", name="Echo", vendor="sim", family="echo", maxInputTokens=8192),
    ModelInfo(id="gpt-4.1", name="GPT 4.1", vendor="copilot", family="gpt-4.1"),
]


class ScriptedBackend:
    """A test double of `bridge.core.backend.Backend`: replays batches, then optionally fails.

    It records the chat requests it got, the token counts asked for, and whether its chat
    iterator was closed before it had yielded everything (`closed_early`).
    """

    def __init__(
        self,
        batches: list[list[ResponsePart]] | None = None,
        *,
        error: EditorError | None = None,
        count_error: EditorError | None = None,
        silence: float = 0.0,
    ) -> None:
        self.batches = batches or []
        self.silence = silence  # seconds of silence before each batch and before the error
        self.error = error
        self.count_error = count_error
        self.requests: list[ChatRequest] = []
        self.counted: list[tuple[str, str]] = []
        self.yielded = 0
        self.closed_early = False
        self.finished = False

    async def list_models(self) -> list[ModelInfo]:
        return list(MODELS)

    async def chat(self, request: ChatRequest) -> AsyncGenerator[list[ResponsePart], None]:
        self.requests.append(request)
        try:
            for batch in self.batches:
                await asyncio.sleep(self.silence)
                yield batch
                self.yielded += 1
            if self.error is not None:
                await asyncio.sleep(self.silence)
                raise self.error
        except GeneratorExit:
            self.closed_early = True
            raise
        self.finished = True

    async def count_tokens(self, model: str, text: str) -> int:
        self.counted.append((model, text))
        if self.count_error is not None:
            raise self.count_error
        return len(text)


def as_backend(backend: ScriptedBackend) -> Backend:
    return backend  # checked by mypy: the double satisfies the protocol


def plan(**request: Any) -> ResponsePlan:
    body: dict[str, Any] = {"model": "sim-echo", "input": "hello world", **request}
    return plan_response(parse_create_request(body), MODELS[0])


def usage_part(payload: dict[str, Any]) -> DataPart:
    return DataPart(mimeType="usage", data=base64.b64encode(json.dumps(payload).encode()).decode())


def generator(
    backend: ScriptedBackend, the_plan: ResponsePlan
) -> AsyncGenerator[list[Event], None]:
    """`response_events` as the async generator it is (it can be closed early)."""
    events = response_events(as_backend(backend), the_plan)
    assert isinstance(events, AsyncGenerator)
    return events


async def collect(events: AsyncIterator[list[Event]]) -> list[Event]:
    return [event async for batch in events for event in batch]


async def recorded(
    events: AsyncIterator[list[Event]], seen: list[Event]
) -> AsyncIterator[list[Event]]:
    """Pass the batches on, keeping a copy of every event (a tee of one stream)."""
    async for batch in events:
        seen.extend(json.loads(json.dumps(batch)))
        yield batch


# --------------------------------------------------------------------------- planning


def test_resolve_model_finds_by_id() -> None:
    assert resolve_model("gpt-4.1", MODELS) is MODELS[1]


def test_resolve_model_404_lists_available_models() -> None:
    with pytest.raises(ApiError) as info:
        resolve_model("gpt-5", MODELS)

    error = info.value
    assert error.status == 404
    assert error.code == "model_not_found"
    assert error.param == "model"
    assert error.type == "invalid_request_error"
    assert "'gpt-5'" in error.message
    assert "sim-echo" in error.message
    assert "gpt-4.1" in error.message


def test_resolve_model_404_with_no_models() -> None:
    with pytest.raises(ApiError) as info:
        resolve_model("sim-echo", [])
    assert info.value.status == 404
    assert "none" in info.value.message


def test_plan_response_builds_the_chat_request() -> None:
    result = plan(
        instructions="Be brief.",
        temperature=0.2,
        top_p=0.9,
        max_output_tokens=256,
        reasoning={"effort": "low", "summary": "auto"},
        tools=[
            {"type": "function", "name": "exec_command", "parameters": {"type": "object"}},
            {"type": "custom", "name": "apply_patch"},
            {"type": "web_search"},
        ],
        tool_choice="required",
    )

    chat = result.chat
    assert chat.model == "sim-echo"
    # Required with two tools: Copilot would throw, so auto plus an instruction after the
    # history (bridge/core/turn_notes.py).
    assert [m.role for m in chat.messages] == ["user", "user", "user"]
    assert chat.messages[0].content == [TextPart(value="Be brief.")]
    assert chat.messages[-1].content == [TextPart(value=HEADER), TextPart(value=INSTRUCTION)]
    assert [t.name for t in chat.tools] == ["exec_command", "apply_patch"]
    assert chat.toolMode == "auto" and chat.toolCallRequired is True
    # Copilot's keys only: top_p and the summary have no way through.
    assert chat.modelOptions == {"temperature": 0.2, "max_tokens": 256}
    assert chat.modelConfiguration == {"reasoningEffort": "low"}
    assert chat.justification
    assert result.targets["apply_patch"] == ToolTarget("custom", "apply_patch")
    assert result.reasoning_summary is True
    assert result.response["id"].startswith("resp_AM-")
    assert result.response["status"] == "in_progress"
    assert result.response["tool_choice"] == "required"
    assert [t["name"] for t in result.response["tools"]] == ["exec_command"]


@pytest.mark.parametrize(
    ("reasoning", "summary"),
    [
        (None, False),
        ({"effort": "high"}, False),
        ({"summary": "none"}, False),
        ({"summary": "detailed"}, True),
    ],
)
def test_reasoning_summary_only_when_asked(reasoning: dict[str, Any] | None, summary: bool) -> None:
    assert plan(reasoning=reasoning).reasoning_summary is summary


def test_plan_response_rejects_input_without_messages() -> None:
    with pytest.raises(ApiError) as info:
        plan(input=[{"type": "reasoning", "id": "rs_1", "summary": []}])
    assert info.value.status == 400
    assert info.value.param == "input"


# --------------------------------------------------------------------------- streaming


async def test_stream_is_valid_and_sends_the_plan() -> None:
    backend = ScriptedBackend(
        [
            [ThinkingPart(value="Greeting.")],
            [TextPart(value="Hel"), TextPart(value="lo")],
            [ToolCallPart(callId="toolu_9", name="exec_command", input={"cmd": "ls"})],
        ]
    )
    the_plan = plan(tools=[{"type": "function", "name": "exec_command"}])

    events = await collect(response_events(as_backend(backend), the_plan))

    final = validate_stream(events)
    validate_response(final)
    assert final["status"] == "completed"
    assert [item["type"] for item in final["output"]] == ["reasoning", "message", "function_call"]
    assert final["output"][2]["call_id"] == "toolu_9"
    assert backend.requests == [the_plan.chat]
    assert backend.finished is True
    assert backend.closed_early is False


async def test_fold_equals_the_terminal_event_of_the_same_stream() -> None:
    backend = ScriptedBackend(
        [
            [TextPart(value="Let me check.")],
            [ToolCallPart(callId="c1", name="apply_patch", input={"input": "*** Begin Patch"})],
            [TextPart(value="Done.")],
            [usage_part({"prompt_tokens": 10, "completion_tokens": 4})],
        ]
    )
    the_plan = plan(tools=[{"type": "custom", "name": "apply_patch"}])
    seen: list[Event] = []

    folded = await fold_response(recorded(response_events(as_backend(backend), the_plan), seen))

    terminal = seen[-1]
    assert terminal["type"] == "response.completed"
    assert folded == terminal["response"]
    assert validate_stream(seen) == folded
    validate_response(folded)
    assert [item["type"] for item in folded["output"]] == [
        "message",
        "custom_tool_call",
        "message",
    ]
    assert folded["usage"] == usage_object(10, 4)


async def test_usage_part_is_preferred_over_counting() -> None:
    backend = ScriptedBackend(
        [
            [TextPart(value="Hi")],
            [
                usage_part(
                    {
                        "prompt_tokens": 50,
                        "completion_tokens": 7,
                        "prompt_tokens_details": {"cached_tokens": 40},
                        "completion_tokens_details": {"reasoning_tokens": 3},
                    }
                )
            ],
        ]
    )

    final = await fold_response(response_events(as_backend(backend), plan()))

    assert final["usage"] == usage_object(50, 7, reasoning_tokens=3, cached_tokens=40)
    assert backend.counted == []


async def test_usage_falls_back_to_count_tokens() -> None:
    backend = ScriptedBackend(
        [
            [TextPart(value="Hi "), TextPart(value="there")],
            [ToolCallPart(callId="c1", name="f", input={"a": 1})],
        ]
    )

    final = await fold_response(
        response_events(as_backend(backend), plan(instructions="Be brief."))
    )

    # The double counts characters: input "Be brief.\nhello world", output "Hi there{"a":1}".
    assert backend.counted == [
        ("sim-echo", "Be brief.\nhello world"),
        ("sim-echo", 'Hi there{"a":1}'),
    ]
    assert final["usage"] == usage_object(21, 15)


async def test_usage_with_no_output_counts_only_input() -> None:
    backend = ScriptedBackend([])

    final = await fold_response(response_events(as_backend(backend), plan()))

    assert backend.counted == [("sim-echo", "hello world")]
    assert final["usage"] == usage_object(11, 0)
    assert final["output"] == []


async def test_usage_is_zero_when_counting_fails() -> None:
    backend = ScriptedBackend(
        [[TextPart(value="Hi")]], count_error=EditorError("Other", "countTokens failed")
    )

    final = await fold_response(response_events(as_backend(backend), plan()))

    assert final["status"] == "completed"
    assert final["usage"] == usage_object(0, 0)


# --------------------------------------------------------------------------- editor errors


@pytest.mark.parametrize(
    ("code", "status", "error_code", "error_type"),
    [
        ("NotFound", 404, "model_not_found", "invalid_request_error"),
        ("NoPermissions", 403, "permission_denied", "permission_error"),
        ("Blocked", 429, "rate_limit_exceeded", "rate_limit_error"),
        ("Unavailable", 503, "editor_unavailable", "server_error"),
        ("Other", 502, "editor_error", "server_error"),
    ],
)
@pytest.mark.parametrize("after_output", [False, True], ids=["at-start", "mid-stream"])
async def test_editor_error(
    code: EditorErrorCode, status: int, error_code: str, error_type: str, after_output: bool
) -> None:
    message = f"The editor said {code}."
    batches: list[list[ResponsePart]] = [[TextPart(value="Partial")]] if after_output else []
    # NoPermissions also says how to grant access; the others pass the editor's words on.
    shown = f"{message} {GRANT_ACCESS_HINT}" if code == "NoPermissions" else message

    # Streaming, after the first part: the stream ends with response.failed and the code.
    if after_output:
        backend = ScriptedBackend(batches, error=EditorError(code, message))
        events = await collect(response_events(as_backend(backend), plan()))
        final = validate_stream(events)
        validate_response(final)
        assert events[-1]["type"] == "response.failed"
        assert final["error"] == {"code": error_code, "message": shown}
        assert backend.counted == []
        (item,) = final["output"]
        assert item["status"] == "incomplete"
        assert item["content"][0]["text"] == "Partial"

    # Non-streaming, and streaming before anything went out: the HTTP error.
    streams = [False] if after_output else [False, True]
    for stream in streams:
        backend = ScriptedBackend(batches, error=EditorError(code, message))
        batches_out = response_events(as_backend(backend), plan())
        with pytest.raises(ApiError) as info:
            if stream:
                await anext(batches_out)
            else:
                await fold_response(batches_out)
        error = info.value
        assert error.status == status
        assert error.code == error_code
        assert error.type == error_type
        assert error.message == shown
        if status == 429:
            assert error.headers == {"Retry-After": "10"}
        else:
            assert "Retry-After" not in error.headers


async def test_fold_without_terminal_event_is_a_502() -> None:
    async def cut_off() -> AsyncIterator[list[Event]]:
        yield [{"type": "response.created", "sequence_number": 0, "response": {}}]

    with pytest.raises(ApiError) as info:
        await fold_response(cut_off())
    assert info.value.status == 502
    assert info.value.code == "editor_error"


# --------------------------------------------------------------------------- cancellation


async def test_closing_the_events_early_closes_the_chat() -> None:
    backend = ScriptedBackend(
        [[TextPart(value="one")], [TextPart(value="two")], [TextPart(value="three")]]
    )
    events = generator(backend, plan())

    # The lifecycle events go out with the first part, not before it.
    first = [e["type"] for e in await anext(events)]
    assert first[:2] == ["response.created", "response.in_progress"]
    assert first[-1] == "response.output_text.delta"
    await events.aclose()

    assert backend.closed_early is True
    assert backend.finished is False
    assert backend.yielded == 0  # suspended at its first batch when it was closed
    assert backend.counted == []


async def test_closing_before_the_chat_starts() -> None:
    backend = ScriptedBackend([[TextPart(value="one")]])
    events = generator(backend, plan())

    await events.aclose()  # nothing went out: not even response.created

    assert backend.requests == []
    assert backend.closed_early is False


# --------------------------------------------------------------------------- keepalive


KEEPALIVE_SECONDS = 0.02
SILENCE = 0.2  # ten keepalive intervals: at least one keepalive even on a busy machine


async def test_keepalives_while_the_model_is_silent_before_and_between_parts() -> None:
    backend = ScriptedBackend([[TextPart(value="one")], [TextPart(value=" two")]], silence=SILENCE)
    events = await collect(response_events(as_backend(backend), plan(), KEEPALIVE_SECONDS))

    types = [event["type"] for event in events]
    first_delta = types.index("response.output_text.delta")
    assert types[:3] == ["response.created", "response.in_progress", "keepalive"]
    assert "keepalive" in types[first_delta:]  # between the two parts too
    final = validate_stream(events)  # keepalives numbered in the response's sequence
    assert final["output"][0]["content"][0]["text"] == "one two"


async def test_no_keepalives_when_turned_off() -> None:
    backend = ScriptedBackend([[TextPart(value="one")]], silence=SILENCE / 4)
    events = await collect(response_events(as_backend(backend), plan(), 0))
    assert "keepalive" not in [event["type"] for event in events]


async def test_a_failure_after_a_keepalive_fails_the_started_stream() -> None:
    backend = ScriptedBackend(error=EditorError("Blocked", "slow down"), silence=SILENCE)
    events = await collect(response_events(as_backend(backend), plan(), KEEPALIVE_SECONDS))

    assert events[2]["type"] == "keepalive"
    final = validate_stream(events)
    assert events[-1]["type"] == "response.failed"
    assert final["error"] == {"code": "rate_limit_exceeded", "message": "slow down"}


# --------------------------------------------------------------------------- stop reasons


@pytest.mark.parametrize(("completion_tokens", "status"), [(6, "incomplete"), (5, "completed")])
async def test_output_at_max_output_tokens_is_incomplete(
    completion_tokens: int, status: str
) -> None:
    backend = ScriptedBackend(
        [
            [TextPart(value="cut sh")],
            [usage_part({"prompt_tokens": 3, "completion_tokens": completion_tokens})],
        ]
    )
    seen: list[Event] = []
    final = await fold_response(
        recorded(response_events(as_backend(backend), plan(max_output_tokens=6)), seen)
    )

    assert backend.requests[0].modelOptions["max_tokens"] == 6
    assert final["status"] == status
    assert seen[-1]["type"] == f"response.{status}"
    if status == "incomplete":
        assert final["incomplete_details"] == {"reason": "max_output_tokens"}
        assert final["output"][0]["status"] == "incomplete"
    else:
        assert final["incomplete_details"] is None
    validate_stream(seen)


async def test_output_past_max_output_tokens_is_cut_by_the_bridge() -> None:
    """A provider that ignores max_tokens: the bridge cuts, cancels and ends incomplete."""
    backend = ScriptedBackend(
        [
            [ThinkingPart(value="ab")],
            [TextPart(value="cdef")],
            [TextPart(value="ghijkl")],
            [TextPart(value="never sent")],
        ]
    )
    seen: list[Event] = []
    final = await fold_response(
        recorded(response_events(as_backend(backend), plan(max_output_tokens=9)), seen)
    )

    validate_stream(seen)
    assert seen[-1]["type"] == "response.incomplete"
    assert final["incomplete_details"] == {"reason": "max_output_tokens"}
    reasoning, message = final["output"]
    assert reasoning["type"] == "reasoning"
    assert message["status"] == "incomplete"
    assert message["content"][0]["text"] == "cdefghi"  # 2 + 7 characters: the double's tokens
    assert backend.closed_early and not backend.finished  # the editor's request was cancelled
    assert final["usage"]["output_tokens"] == 9
    assert final["usage"]["output_tokens_details"]["reasoning_tokens"] == 2


async def test_estimated_usage_counts_reasoning_tokens() -> None:
    backend = ScriptedBackend([[ThinkingPart(value="hmm")], [TextPart(value="hello")]])
    final = await fold_response(response_events(as_backend(backend), plan()))
    assert final["usage"]["output_tokens"] == 8
    assert final["usage"]["output_tokens_details"] == {"reasoning_tokens": 3}


async def test_an_input_the_editor_refuses_is_a_400_naming_input() -> None:
    from bridge.core.token_limits import input_refusal, limit_context

    small = ModelInfo(id="sim-echo", maxInputTokens=20)
    the_plan = plan_response(parse_create_request({"model": "sim-echo", "input": "x" * 30}), small)
    limit_context(the_plan.chat, small)
    assert the_plan.chat.countInput is not None and the_plan.chat.countInput.maxTokens == 20
    backend = ScriptedBackend(error=input_refusal(31, 20))
    with pytest.raises(ApiError) as caught:
        await collect(response_events(as_backend(backend), the_plan))
    error = caught.value
    assert (error.status, error.code, error.param) == (400, "context_length_exceeded", "input")
    assert "31 tokens" in error.message and "20 tokens" in error.message
    assert backend.counted == []  # the editor counted: the bridge did not

    fits = plan_response(parse_create_request({"model": "sim-echo", "input": "x" * 15}), small)
    limit_context(fits.chat, small)
    assert fits.chat.countInput is None  # 15 bytes cannot be more than 20 tokens: not counted


# --------------------------------------------------------------------------- structured output

PERSON_FORMAT = {
    "format": {
        "type": "json_schema",
        "name": "person",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
            "required": ["name", "age"],
            "additionalProperties": False,
        },
    }
}


def test_structured_output_goes_to_the_model_as_an_instruction() -> None:
    the_plan = plan(text=PERSON_FORMAT, instructions="Be terse.")
    chat = the_plan.chat
    assert chat.modelOptions == {}  # no option carries a format through Copilot
    # After the client's messages (bridge/core/turn_notes.py), which keep their places.
    assert chat.messages[0].content == [TextPart(value="Be terse.")]
    assert chat.messages[1].content == [TextPart(value="hello world")]
    assert chat.messages[-1].content[0] == TextPart(value=HEADER)
    note = chat.messages[-1].content[1]
    assert isinstance(note, TextPart)
    assert "JSON Schema" in note.value and '"required":["name","age"]' in note.value
    assert the_plan.response["text"]["format"]["name"] == "person"


def test_json_object_format() -> None:
    chat = plan(text={"format": {"type": "json_object"}}).chat
    assert chat.modelOptions == {}
    note = chat.messages[-1].content[1]
    assert isinstance(note, TextPart) and "JSON object" in note.value


@pytest.mark.parametrize(
    ("answer", "logged"),
    [
        ('{"name": "Ada", "age": 36}', None),
        ('{"name": "Ada"}', "`required` fails at (the top level)"),
        ('{"name": "Ada", "age": "old"}', "`type` fails at age"),
        ("Sure! Here it is.", "not JSON"),
    ],
)
async def test_structured_answer_is_checked_and_returned_as_is(
    answer: str, logged: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    backend = ScriptedBackend([[TextPart(value=answer)]])
    with caplog.at_level("WARNING", logger="bridge.core.structured_output"):
        final = await fold_response(response_events(as_backend(backend), plan(text=PERSON_FORMAT)))

    assert final["status"] == "completed"
    assert final["output"][0]["content"][0]["text"] == answer
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    if logged is None:
        assert warnings == []
    else:
        (warning,) = warnings
        assert logged in warning and "person" in warning
        assert "Ada" not in warning  # the model's output is not logged above debug


@pytest.mark.parametrize(
    ("text", "param", "code"),
    [
        (
            {"format": {"type": "json_schema", "name": "x"}},
            "text.format.schema",
            "missing_required_parameter",
        ),
        (
            {"format": {"type": "json_schema", "name": "x", "schema": {"type": "nonsense"}}},
            "text.format.schema",
            "invalid_value",
        ),
        ({"format": {"type": "yaml"}}, "text.format.type", "invalid_value"),
    ],
)
async def test_unusable_text_format_is_a_400(text: dict[str, Any], param: str, code: str) -> None:
    with pytest.raises(ApiError) as caught:
        await checked_format(plan(text=text).output_format)  # the schema: off the loop
    assert (caught.value.status, caught.value.param, caught.value.code) == (400, param, code)


def test_plain_text_format_changes_nothing() -> None:
    chat = plan(text={"format": {"type": "text"}, "verbosity": "low"}).chat
    assert "responseFormat" not in chat.modelOptions
    assert chat.messages[0].content == [TextPart(value="hello world")]
