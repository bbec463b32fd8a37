"""End to end with the real OpenAI Agents SDK (`openai-agents`) against a real
`maestro-bridge serve`: an agent with one function tool, run to its final output, streamed
and not.

The agent uses the SDK's Responses model (`OpenAIResponsesModel`) on an `AsyncOpenAI` client
pointed at the bridge, with tracing off (it would upload traces to OpenAI). The simulated
model calls the offered tool with placeholder arguments, the SDK runs the tool and sends its
output back, and the model answers with how much the tool returned.

What the SDK received is checked against the Open Responses spec: the streamed run's raw
events, and for the non-streamed run the JSON bodies, captured by a response hook on the
client's own HTTP client (httpx2, the openai SDK's HTTP library).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from agents import (
    Agent,
    ModelSettings,
    OpenAIResponsesModel,
    RawResponsesStreamEvent,
    RunConfig,
    Runner,
    function_tool,
)
from conftest import BridgeServer, StartServer
from openai import AsyncOpenAI
from spec_validation import validate_response, validate_stream

CITY_ANSWER = "Sunny, 21 C in {city}."
FINAL = f"The tool get_weather returned {len(CITY_ANSWER.format(city='placeholder'))} characters."
RUN_CONFIG = RunConfig(tracing_disabled=True)


class Recorder:
    """The tool calls the agent made, and the JSON bodies the bridge answered."""

    def __init__(self) -> None:
        self.cities: list[str] = []
        self.bodies: list[dict[str, Any]] = []
        self.http = httpx2.AsyncClient(timeout=60.0, event_hooks={"response": [self.on_response]})

    async def on_response(self, response: httpx2.Response) -> None:
        if response.request.url.path.endswith("/responses") and not response.headers.get(
            "content-type", ""
        ).startswith("text/event-stream"):
            await response.aread()  # the SDK reads the same, now buffered, body afterwards
            self.bodies.append(json.loads(response.content))


@pytest.fixture
async def recorder() -> AsyncIterator[Recorder]:
    recorder = Recorder()
    yield recorder
    await recorder.http.aclose()


def weather_agent(server: BridgeServer, recorder: Recorder) -> Agent[Any]:
    @function_tool
    def get_weather(city: str) -> str:
        """The current weather in a city.

        Args:
            city: The city's name.
        """
        recorder.cities.append(city)
        return CITY_ANSWER.format(city=city)

    client = AsyncOpenAI(
        base_url=server.base_url,
        api_key="unused",
        max_retries=0,
        http_client=recorder.http,
    )
    return Agent(
        name="Weather",
        instructions="Answer questions about the weather with the get_weather tool.",
        model=OpenAIResponsesModel(model="sim-echo", openai_client=client),
        model_settings=ModelSettings(temperature=0.2),
        tools=[get_weather],
    )


def split_responses(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The raw events of a run, one list per model call (each begins with response.created)."""
    calls: list[list[dict[str, Any]]] = []
    for event in events:
        if event["type"] == "response.created":
            calls.append([])
        assert calls, f"an event before response.created: {event}"
        calls[-1].append(event)
    return calls


def tool_calls(response: dict[str, Any]) -> list[tuple[str, Any]]:
    return [
        (item["name"], json.loads(item["arguments"]))
        for item in response["output"]
        if item["type"] == "function_call"
    ]


async def test_agent_run_with_a_function_tool(
    bridge_server: BridgeServer, recorder: Recorder
) -> None:
    agent = weather_agent(bridge_server, recorder)

    result = await Runner.run(agent, "What is the weather in Paris?", run_config=RUN_CONFIG)

    assert result.final_output == FINAL
    assert recorder.cities == ["placeholder"]
    assert len(recorder.bodies) == 2, recorder.bodies
    for body in recorder.bodies:
        validate_response(body)
        assert body["model"] == "sim-echo" and body["status"] == "completed"
    assert tool_calls(recorder.bodies[0]) == [("get_weather", {"city": "placeholder"})]
    assert [item["type"] for item in recorder.bodies[1]["output"]] == ["message"]
    assert len(result.raw_responses) == 2
    bridge_server.assert_alive()


async def test_agent_run_streamed_with_a_function_tool(
    bridge_server: BridgeServer, recorder: Recorder
) -> None:
    agent = weather_agent(bridge_server, recorder)

    result = Runner.run_streamed(agent, "What is the weather in Paris?", run_config=RUN_CONFIG)
    raw: list[dict[str, Any]] = []
    kinds: list[str] = []
    async for event in result.stream_events():
        kinds.append(event.type)
        if isinstance(event, RawResponsesStreamEvent):
            raw.append(event.data.to_dict())

    assert result.final_output == FINAL
    assert recorder.cities == ["placeholder"]
    assert recorder.bodies == []  # everything came as SSE
    first, second = (validate_stream(events) for events in split_responses(raw))
    for response in (first, second):
        validate_response(response)
    assert tool_calls(first) == [("get_weather", {"city": "placeholder"})]
    text = [e["delta"] for e in raw if e["type"] == "response.output_text.delta"]
    assert "".join(text).endswith(FINAL)
    # The SDK saw the tool run between the two model calls.
    assert "run_item_stream_event" in kinds and "agent_updated_stream_event" in kinds
    bridge_server.assert_alive()


async def test_agent_run_streamed_through_keepalives(
    bridge_server_factory: StartServer, recorder: Recorder
) -> None:
    """A model silent before its tool call and before its answer: the SDK passes the keepalive
    events on as raw events and runs the loop as usual."""
    pause = {"type": "pause", "seconds": 0.4}
    rules = [
        {"match": "Sunny", "reply": [pause, {"type": "text", "text": "It is sunny."}]},
        {
            "match": "weather in Paris",
            "reply": [
                pause,
                {"type": "text", "text": "Looking."},
                pause,
                {"type": "tool_call", "name": "get_weather", "arguments": {"city": "Paris"}},
            ],
        },
    ]
    server = bridge_server_factory("--keepalive-seconds", "0.1", script={"rules": rules})
    agent = weather_agent(server, recorder)

    result = Runner.run_streamed(agent, "What is the weather in Paris?", run_config=RUN_CONFIG)
    raw: list[dict[str, Any]] = []
    async for event in result.stream_events():
        if isinstance(event, RawResponsesStreamEvent):
            raw.append(event.data.to_dict())

    assert result.final_output == "It is sunny."
    assert recorder.cities == ["Paris"]
    calls = split_responses(raw)
    assert len(calls) == 2
    for events in calls:
        assert events[2]["type"] == "keepalive"
        validate_response(validate_stream(events))
    first = [event["type"] for event in calls[0]]
    assert "keepalive" in first[first.index("response.output_text.delta") :]
    server.assert_alive()


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
async def test_agent_run_without_tools(
    bridge_server: BridgeServer, recorder: Recorder, streamed: bool
) -> None:
    agent = weather_agent(bridge_server, recorder).clone(tools=[])
    if streamed:
        streaming = Runner.run_streamed(agent, "Hello, agent!", run_config=RUN_CONFIG)
        async for _ in streaming.stream_events():
            pass
        output = streaming.final_output
    else:
        output = (await Runner.run(agent, "Hello, agent!", run_config=RUN_CONFIG)).final_output
    assert output == "You said: Hello, agent!"
    assert recorder.cities == []
