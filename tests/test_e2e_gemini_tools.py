"""Tools and JSON with Google's real `google-genai` Python SDK against a real `maestro-bridge
serve`: a manual function-calling loop, the SDK's automatic function calling with a Python
function, toolConfig NONE / ANY with allowedFunctionNames, JSON mode with a pydantic schema."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import BridgeServer
from gemini_http import checked, folded, make_client
from google import genai
from google.genai import types
from pydantic import BaseModel

WEATHER = types.FunctionDeclaration(
    name="get_weather",
    description="The current weather in a city.",
    parameters=types.Schema(
        type=types.Type.OBJECT,
        properties={"city": types.Schema(type=types.Type.STRING)},
        required=["city"],
    ),
)
TIME = types.FunctionDeclaration(
    name="get_time",
    description="The time in a city.",
    parameters=types.Schema(
        type=types.Type.OBJECT,
        properties={"city": types.Schema(type=types.Type.STRING)},
        required=["city"],
    ),
)
TOOLS: list[Any] = [types.Tool(function_declarations=[WEATHER, TIME])]


@pytest.fixture
def client(bridge_server: BridgeServer) -> Iterator[genai.Client]:
    with make_client(bridge_server) as sdk:
        yield sdk


def test_manual_function_calling_loop(client: genai.Client) -> None:
    config = types.GenerateContentConfig(
        tools=TOOLS,
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    question = types.Content(role="user", parts=[types.Part(text="Weather in Paris?")])
    first = checked(
        client.models.generate_content(model="sim-echo", contents=[question], config=config)
    )
    calls = first.function_calls or []
    assert len(calls) == 1 and calls[0].name == "get_weather"
    assert calls[0].id and isinstance(calls[0].args, dict) and "city" in calls[0].args
    assert (first.candidates or [])[0].finish_reason == types.FinishReason.STOP
    model_turn = (first.candidates or [])[0].content
    assert model_turn is not None
    result = types.Part.from_function_response(name="get_weather", response={"sky": "clear"})
    assert result.function_response is not None
    result.function_response.id = calls[0].id
    contents = [question, model_turn, types.Content(role="user", parts=[result])]
    second = checked(
        client.models.generate_content(model="sim-echo", contents=contents, config=config)
    )
    assert second.function_calls is None
    assert second.text is not None and second.text.startswith("The tool get_weather returned")
    streamed = list(
        client.models.generate_content_stream(model="sim-echo", contents=contents, config=config)
    )
    assert folded(streamed)["candidates"][0]["content"]["parts"] == [{"text": second.text}]


def get_weather(city: str) -> str:
    """The current weather in a city.

    Args:
      city: The city.
    """
    CALLED.append(city)
    return f"Sunny in {city}."


CALLED: list[str] = []


def test_automatic_function_calling_with_a_python_function(client: genai.Client) -> None:
    CALLED.clear()
    config = types.GenerateContentConfig(tools=[get_weather])
    response = client.models.generate_content(
        model="sim-echo", contents="Weather in Paris?", config=config
    )
    assert len(CALLED) == 1, "the SDK ran the function the model called"
    assert response.text is not None and response.text.startswith("The tool get_weather returned")
    history = response.automatic_function_calling_history or []
    assert [c.role for c in history] == ["user", "model", "user"]
    chat = client.chats.create(model="sim-echo", config=config)
    answer = chat.send_message("And in Rome?")
    assert len(CALLED) == 2 and (answer.text or "").startswith("The tool get_weather returned")


def test_tool_config_none_answers_in_text(client: genai.Client) -> None:
    config = types.GenerateContentConfig(
        tools=TOOLS,
        tool_config=types.ToolConfig(
            function_calling_config=types.FunctionCallingConfig(
                mode=types.FunctionCallingConfigMode.NONE
            )
        ),
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    response = checked(
        client.models.generate_content(
            model="sim-echo", contents="Weather in Paris?", config=config
        )
    )
    assert response.function_calls is None and response.text == "You said: Weather in Paris?"


def test_tool_config_any_with_allowed_function_names(client: genai.Client) -> None:
    config = types.GenerateContentConfig(
        tools=TOOLS,
        tool_config=types.ToolConfig(
            function_calling_config=types.FunctionCallingConfig(
                mode=types.FunctionCallingConfigMode.ANY, allowed_function_names=["get_time"]
            )
        ),
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    response = checked(
        client.models.generate_content(model="sim-echo", contents="Time in Paris?", config=config)
    )
    assert [call.name for call in response.function_calls or []] == ["get_time"]


class City(BaseModel):
    name: str
    population: int
    capital: bool


def test_json_mode_with_a_pydantic_schema(client: genai.Client) -> None:
    config = types.GenerateContentConfig(
        response_mime_type="application/json", response_schema=City
    )
    response = checked(
        client.models.generate_content(model="sim-echo", contents="A city, please.", config=config)
    )
    assert isinstance(response.parsed, City)
    assert json.loads(response.text or "") == response.parsed.model_dump()
    listed = types.GenerateContentConfig(
        response_mime_type="application/json", response_schema=list[City]
    )
    many = client.models.generate_content(model="sim-echo", contents="Cities.", config=listed)
    assert isinstance(many.parsed, list) and all(isinstance(c, City) for c in many.parsed)
