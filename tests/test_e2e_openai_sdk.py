"""End to end with the real `openai` Python SDK as the client of a real `maestro-bridge serve`.

The SDK parses every body and event into its own types, so these tests also prove that what
the bridge sends is what the SDK expects (object types, lifecycle ids, output items).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Literal

import openai
import pydantic
import pytest
from conftest import BridgeServer, StartServer
from openai import AsyncOpenAI, OpenAI
from openai.types.responses import (
    CustomToolParam,
    FunctionToolParam,
    Response,
    ResponseStreamEvent,
)
from pydantic import BaseModel
from spec_validation import validate_response, validate_stream

WEATHER_TOOL: FunctionToolParam = {
    "type": "function",
    "name": "get_weather",
    "description": "The current weather in a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "The city."}},
        "required": ["city"],
        "additionalProperties": False,
    },
    "strict": True,
}

PATCH_TOOL: CustomToolParam = {
    "type": "custom",
    "name": "apply_patch",
    "description": "Apply a patch to the files in the workspace.",
    "format": {"type": "grammar", "syntax": "lark", "definition": "start: /.+/"},
}


def make_client(server: BridgeServer) -> OpenAI:
    # No retries: a 5xx or a dropped connection must fail the test, not be papered over.
    return OpenAI(base_url=server.base_url, api_key="unused", max_retries=0, timeout=30)


@pytest.fixture
def client(bridge_server: BridgeServer) -> Iterator[OpenAI]:
    with make_client(bridge_server) as sdk:
        yield sdk


def as_json(model: Any) -> dict[str, Any]:
    """What the SDK parsed, back as the JSON it came from (only the keys that were sent)."""
    data: dict[str, Any] = model.model_dump(
        mode="json", exclude_unset=True, by_alias=True, warnings=False
    )
    return data


def check_events(events: list[ResponseStreamEvent]) -> Response:
    """The events are the spec's stream, ending in response.completed; the final Response."""
    validate_stream([as_json(event) for event in events])
    types = [event.type for event in events]
    assert types[0] == "response.created", types
    assert types[-1] == "response.completed", types
    assert types.count("response.completed") == 1
    completed = events[-1]
    assert completed.type == "response.completed"
    return completed.response


# --------------------------------------------------------------------------- text


def test_create(client: OpenAI) -> None:
    response = client.responses.create(model="sim-echo", input="Hello from the SDK!")
    validate_response(as_json(response))
    assert response.object == "response"
    assert response.status == "completed"
    assert response.output_text == "You said: Hello from the SDK!"
    assert response.usage is not None and response.usage.output_tokens > 0


def test_create_with_instructions_and_messages(client: OpenAI) -> None:
    response = client.responses.create(
        model="sim-echo",
        instructions="Answer briefly.",
        input=[
            {"role": "user", "content": "The first question."},
            {"role": "assistant", "content": "The first answer."},
            {"role": "user", "content": [{"type": "input_text", "text": "The second one."}]},
        ],
        temperature=0.2,
        max_output_tokens=100,
        metadata={"test": "yes"},
    )
    assert response.output_text == "You said: The second one."
    assert response.instructions == "Answer briefly."
    assert response.temperature == 0.2
    assert response.max_output_tokens == 100
    assert response.metadata == {"test": "yes"}


def test_create_stream(client: OpenAI) -> None:
    stream = client.responses.create(model="sim-echo", input="Stream me, please.", stream=True)
    events = list(stream)
    final = check_events(events)
    deltas = [event.delta for event in events if event.type == "response.output_text.delta"]
    assert len(deltas) > 1
    assert "".join(deltas) == "You said: Stream me, please."
    assert final.output_text == "You said: Stream me, please."
    assert {event.response.id for event in events if hasattr(event, "response")} == {final.id}


def test_stream_helper(client: OpenAI) -> None:
    seen: list[str] = []
    text = ""
    with client.responses.stream(model="sim-echo", input="Through the helper.") as stream:
        for event in stream:
            seen.append(event.type)
            if event.type == "response.output_text.delta":
                text += event.delta
        final = stream.get_final_response()
    assert seen[0] == "response.created" and seen[-1] == "response.completed"
    assert "response.output_item.done" in seen
    assert text == "You said: Through the helper."
    assert final.status == "completed"
    assert final.output_text == "You said: Through the helper."


def test_stream_helper_reasoning(client: OpenAI) -> None:
    with client.responses.stream(
        model="sim-reasoning",
        input="Why is the sky blue?",
        reasoning={"effort": "high", "summary": "auto"},
    ) as stream:
        final = stream.get_final_response()
    kinds = [item.type for item in final.output]
    assert kinds == ["reasoning", "message"], kinds
    assert final.output_text == "You said: Why is the sky blue?"
    assert final.usage is not None
    assert final.usage.output_tokens_details.reasoning_tokens > 0


async def test_async_client_stream(bridge_server: BridgeServer) -> None:
    async with AsyncOpenAI(
        base_url=bridge_server.base_url, api_key="unused", max_retries=0, timeout=30
    ) as client:
        stream = await client.responses.create(
            model="sim-echo", input="Asynchronously.", stream=True
        )
        events = [event async for event in stream]
    final = check_events(events)
    assert final.output_text == "You said: Asynchronously."


# --------------------------------------------------------------------------- tools


def test_function_tool_loop(client: OpenAI) -> None:
    question: list[Any] = [{"role": "user", "content": "What is the weather in Paris?"}]
    first = client.responses.create(model="sim-echo", input=question, tools=[WEATHER_TOOL])
    validate_response(as_json(first))
    calls = [item for item in first.output if item.type == "function_call"]
    assert len(calls) == 1, first.output
    call = calls[0]
    assert call.name == "get_weather" and call.call_id
    assert json.loads(call.arguments) == {"city": "placeholder"}

    result = json.dumps({"city": "Paris", "forecast": "sunny", "celsius": 21})
    # The usual SDK loop: the output items go back as they came, then the tool's output.
    turn: list[Any] = [
        *question,
        *first.output,
        {"type": "function_call_output", "call_id": call.call_id, "output": result},
    ]
    second = client.responses.create(model="sim-echo", input=turn, tools=[WEATHER_TOOL])
    validate_response(as_json(second))
    assert not [item for item in second.output if item.type == "function_call"]
    assert second.output_text == f"The tool get_weather returned {len(result)} characters."


def test_function_tool_loop_streaming(client: OpenAI) -> None:
    question: list[Any] = [{"role": "user", "content": "Weather in Oslo?"}]
    with client.responses.stream(model="sim-echo", input=question, tools=[WEATHER_TOOL]) as stream:
        events = list(stream)
        first = stream.get_final_response()
    types = [event.type for event in events]
    assert "response.function_call_arguments.done" in types, types
    call = next(item for item in first.output if item.type == "function_call")
    with client.responses.stream(
        model="sim-echo",
        input=[
            *question,
            {
                "type": "function_call",
                "call_id": call.call_id,
                "name": call.name,
                "arguments": call.arguments,
            },
            {"type": "function_call_output", "call_id": call.call_id, "output": "Snow."},
        ],
        tools=[WEATHER_TOOL],
    ) as stream:
        second = stream.get_final_response()
    assert second.output_text == "The tool get_weather returned 5 characters."


def test_scripted_function_tool_loop(bridge_server_factory: StartServer) -> None:
    """With rules, the model passes real arguments and answers from the tool's result."""
    script = {
        "rules": [
            {
                "match": r"weather in (Paris|Lyon)",
                "reply": [
                    {"type": "text", "text": "Let me look."},
                    {"type": "tool_call", "name": "get_weather", "arguments": {"city": "Paris"}},
                ],
            },
            {
                "match": r"\"forecast\": \"sunny\"",
                "reply": [
                    {"type": "text", "text": "It is sunny in Paris, 21 degrees."},
                ],
            },
        ]
    }
    server = bridge_server_factory(script=script)
    with make_client(server) as client:
        question: list[Any] = [{"role": "user", "content": "What is the weather in Paris?"}]
        first = client.responses.create(model="sim-echo", input=question, tools=[WEATHER_TOOL])
        assert first.output_text == "Let me look."
        call = next(item for item in first.output if item.type == "function_call")
        assert json.loads(call.arguments) == {"city": "Paris"}
        result = json.dumps({"forecast": "sunny", "celsius": 21})
        turn: list[Any] = [
            *question,
            *first.output,
            {"type": "function_call_output", "call_id": call.call_id, "output": result},
        ]
        second = client.responses.create(model="sim-echo", input=turn, tools=[WEATHER_TOOL])
    assert second.output_text == "It is sunny in Paris, 21 degrees."


def test_custom_tool_loop(client: OpenAI) -> None:
    question: list[Any] = [{"role": "user", "content": "Add a README, please."}]
    first = client.responses.create(model="sim-echo", input=question, tools=[PATCH_TOOL])
    calls = [item for item in first.output if item.type == "custom_tool_call"]
    assert len(calls) == 1, first.output
    call = calls[0]
    assert call.name == "apply_patch" and call.call_id
    assert call.input == "placeholder"
    assert not [item for item in first.output if item.type == "function_call"]

    second = client.responses.create(
        model="sim-echo",
        input=[
            *question,
            {
                "type": "custom_tool_call",
                "call_id": call.call_id,
                "name": "apply_patch",
                "input": call.input,
            },
            {"type": "custom_tool_call_output", "call_id": call.call_id, "output": "Done!"},
        ],
        tools=[PATCH_TOOL],
    )
    assert not [item for item in second.output if item.type == "custom_tool_call"]
    assert second.output_text == "The tool apply_patch returned 5 characters."


def test_custom_tool_streaming(client: OpenAI) -> None:
    stream = client.responses.create(
        model="sim-echo", input="Patch it.", tools=[PATCH_TOOL], stream=True
    )
    events = list(stream)
    final = check_events(events)
    types = [event.type for event in events]
    assert "response.custom_tool_call_input.done" in types, types
    calls = [item for item in final.output if item.type == "custom_tool_call"]
    assert len(calls) == 1 and calls[0].input == "placeholder"


# --------------------------------------------------------------------------- errors


def test_unknown_model_error(client: OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        client.responses.create(model="no-such-model", input="hi")
    error = caught.value
    assert error.status_code == 404
    assert error.code == "model_not_found"
    assert "sim-echo" in error.message


def test_previous_response_id_error(client: OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(model="sim-echo", input="hi", previous_response_id="resp_1")
    error = caught.value
    assert error.code == "unsupported_parameter"
    assert error.param == "previous_response_id"
    assert "full conversation history" in error.message


def test_models_list(client: OpenAI) -> None:
    ids = [model.id for model in client.models.list()]
    assert "sim-echo" in ids and "sim-reasoning" in ids


# --------------------------------------------------------------------------- structured output


class CalendarEvent(BaseModel):
    name: str
    day: int
    participants: list[str]
    kind: Literal["meeting", "party"]


def test_parse_with_a_pydantic_format(client: OpenAI) -> None:
    """`responses.parse`: the SDK sends a strict json_schema; the answer parses back."""
    response = client.responses.parse(
        model="sim-echo",
        input="Alice and Bob meet on day 3.",
        text_format=CalendarEvent,
    )
    validate_response(as_json(response))
    event = response.output_parsed
    assert isinstance(event, CalendarEvent)
    assert event.kind == "meeting"
    assert response.text is not None and response.text.format is not None
    assert response.text.format.type == "json_schema"


def test_stream_helper_with_a_pydantic_format(client: OpenAI) -> None:
    with client.responses.stream(
        model="sim-echo", input="Plan a party.", text_format=CalendarEvent
    ) as stream:
        events = list(stream)
        final = stream.get_final_response()
    validate_stream([as_json(event) for event in events])
    assert isinstance(final.output_parsed, CalendarEvent)


def test_json_object_format(client: OpenAI) -> None:
    response = client.responses.create(
        model="sim-echo", input="Say hi.", text={"format": {"type": "json_object"}}
    )
    assert json.loads(response.output_text) == {"answer": "You said: Say hi."}
    assert response.text is not None and response.text.format is not None
    assert response.text.format.type == "json_object"


def test_input_tokens_count(client: OpenAI) -> None:
    counted = client.responses.input_tokens.count(model="sim-echo", input="Count these words.")
    assert counted.object == "response.input_tokens"
    assert counted.input_tokens > 0
    longer = client.responses.input_tokens.count(
        model="sim-echo", input="Count these words.", instructions="And these, too, please."
    )
    assert longer.input_tokens > counted.input_tokens


def test_parse_of_an_answer_that_breaks_the_schema_fails_in_the_sdk(
    bridge_server_factory: StartServer,
) -> None:
    """The bridge returns a bad structured answer as is; the SDK's parse then raises."""
    server = bridge_server_factory(
        script={"rules": [{"match": "party", "reply": [{"type": "text", "text": '{"day": 1}'}]}]}
    )
    with make_client(server) as sdk, pytest.raises(pydantic.ValidationError):
        sdk.responses.parse(model="sim-echo", input="Plan a party.", text_format=CalendarEvent)


def test_keepalive_events_are_skipped_by_the_sdk(bridge_server_factory: StartServer) -> None:
    """Keepalive events before the first part and between parts: the raw stream shows them
    (as OpenAI's own), the `responses.stream()` accumulator ignores them."""
    server = bridge_server_factory(
        "--keepalive-seconds",
        "0.1",
        script={
            "rules": [
                {
                    "match": "slow",
                    "reply": [
                        {"type": "pause", "seconds": 0.5},
                        {"type": "text", "text": "Here"},
                        {"type": "pause", "seconds": 0.5},
                        {"type": "text", "text": " it is."},
                    ],
                }
            ]
        },
    )
    with make_client(server) as sdk:
        events = list(sdk.responses.create(model="sim-echo", input="slow", stream=True))
        with sdk.responses.stream(model="sim-echo", input="slow") as stream:
            helper_events = list(stream)
            final = stream.get_final_response()
    assert check_events(events).output_text == "Here it is."
    types: list[str] = [event.type for event in events]  # "keepalive" is not in the SDK's types
    assert types[2] == "keepalive"
    assert "keepalive" in types[types.index("response.output_text.delta") :]
    assert [event.sequence_number for event in events] == list(range(len(events)))
    assert final.output_text == "Here it is."
    deltas = [e for e in helper_events if e.type == "response.output_text.delta"]
    assert [e.snapshot for e in deltas][-1] == "Here it is."
    assert "keepalive" in [event.type for event in helper_events]
