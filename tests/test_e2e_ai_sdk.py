"""End to end with the real Vercel AI SDK (`ai` 6 with `@ai-sdk/openai`) at its default settings.

The SDK stores by default (`store: true`), so from the second request on it sends earlier
assistant output back as `item_reference` items (`rs_AM-...`, `msg_AM-...`), which the bridge
resolves from the items it emitted (bridge/responses/item_cache.py).
tests/node/ai_sdk_client.cjs runs the SDK (pinned by tests/node/package-lock.json); the editor
runs in this test process with the simulated model under script rules plus recording, so the
tests see what reached the model:
the referenced items, in their place in the conversation.

The SDK is looked up like the openai Node SDK (tests/test_e2e_node_sdk.py). Without it (or
without `node`) the tests fail when $CI is set and are skipped otherwise.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from typing import Any

import pytest
from conftest import REPO_ROOT
from node_clients import NODE_TIMEOUT, node_env_with
from recording_model import RecordingModel, running_editor
from spec_validation import validate_response, validate_stream

from bridge.core.parts import TextPart, ToolCallPart, ToolResultPart
from headless_editor.chat_types import ChatRequest
from headless_editor.script import Script

CLIENT = REPO_ROOT / "tests" / "node" / "ai_sdk_client.cjs"
SDK_PACKAGES = ("ai", "@ai-sdk/openai", "zod")

SCRIPT = Script.model_validate(
    {
        "rules": [
            {
                "match": "^Hello from the AI SDK",
                "reply": [
                    {"type": "thinking", "text": "The user greets me."},
                    {"type": "text", "text": "Hello! How can I help?"},
                ],
            },
            {
                "match": "What did you just say",
                "reply": [
                    {"type": "thinking", "text": "Recalling my answer."},
                    {"type": "text", "text": "I said hello."},
                ],
            },
            {
                "match": "weather in Paris and Rome",
                "reply": [
                    {"type": "thinking", "text": "Paris first."},
                    {"type": "text", "text": "Checking Paris."},
                    {"type": "tool_call", "name": "get_weather", "arguments": {"city": "Paris"}},
                ],
            },
            {
                "match": "Sunny, 21 C in Paris",
                "reply": [
                    {"type": "thinking", "text": "Now Rome."},
                    {"type": "text", "text": "Checking Rome."},
                    {"type": "tool_call", "name": "get_weather", "arguments": {"city": "Rome"}},
                ],
            },
            {
                "match": "Sunny, 21 C in Rome",
                "reply": [
                    {"type": "thinking", "text": "Both known."},
                    {"type": "text", "text": "Sunny in Paris and in Rome."},
                ],
            },
        ]
    }
)

FINAL_ANSWER = "Sunny in Paris and in Rome."

# The same rules with the model silent before each part: long enough for keepalive events.
PAUSE = {"type": "pause", "seconds": 0.5}
SLOW_SCRIPT = Script.model_validate(
    {
        "rules": [
            {**rule, "reply": [step for part in rule["reply"] for step in (PAUSE, part)]}
            for rule in SCRIPT.model_dump(mode="json", exclude_none=True)["rules"]
        ]
    }
)


@pytest.fixture(scope="module")
def ai_sdk_env() -> dict[str, str]:
    """The environment that lets `node` require the pinned AI SDK."""
    return node_env_with(SDK_PACKAGES, "the Vercel AI SDK")


async def run_client(
    env: dict[str, str], scenario: str, base_url: str, model: str = "sim-echo"
) -> dict[str, Any]:
    """Run one scenario of the Node client; the editor keeps answering meanwhile."""
    process = await asyncio.create_subprocess_exec(
        "node",
        str(CLIENT),
        scenario,
        base_url,
        model,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), NODE_TIMEOUT)
    except asyncio.TimeoutError:
        pytest.fail(f"the AI SDK client hung in scenario {scenario}")
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, (
        f"the AI SDK client failed ({process.returncode}):\n{stderr.decode(errors='replace')}"
    )
    result: dict[str, Any] = json.loads(stdout)
    assert result["versions"] == {"ai": "6.0.324", "@ai-sdk/openai": "3.0.137"}
    return result


def references(request_body: dict[str, Any]) -> list[str]:
    """The ids of the `item_reference` items the SDK sent."""
    return [item["id"] for item in request_body["input"] if item.get("type") == "item_reference"]


def conversation(request: ChatRequest) -> list[tuple[str, list[Any]]]:
    """What the model was given, message by message: (role, simplified parts)."""
    return [(message.role, [_part(p) for p in message.content]) for message in request.messages]


def _part(part: Any) -> Any:
    if isinstance(part, TextPart):
        return part.value
    if isinstance(part, ToolCallPart):
        return ("call", part.name, part.input)
    if isinstance(part, ToolResultPart):
        return ("result", "".join(p.value for p in part.content if isinstance(p, TextPart)))
    return type(part).__name__


def split_responses(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The events of several streamed responses, one list per response."""
    responses: list[list[dict[str, Any]]] = []
    for event in events:
        if event["type"] == "response.created":
            responses.append([])
        responses[-1].append(event)
    return responses


# --------------------------------------------------------------------------- chat


@pytest.mark.parametrize(
    ("model", "options"),
    [
        ("sim-echo", {}),
        # A name the SDK takes for a reasoning model: it references text only after reasoning.
        ("gpt-5.5", {"modelAliases": {"gpt-5.5": "sim-echo"}}),
    ],
)
async def test_a_multi_turn_chat_at_default_settings(
    ai_sdk_env: dict[str, str], model: str, options: dict[str, Any]
) -> None:
    async with running_editor(options, SCRIPT) as (url, recorded):
        result = await run_client(ai_sdk_env, "chat", url, model)

    first, second = result["turns"]
    assert (first["text"], second["text"]) == ("Hello! How can I help?", "I said hello.")
    assert first["finish_reason"] == second["finish_reason"] == "stop"
    for turn in result["turns"]:
        validate_response(turn["body"])
        assert [item["type"] for item in turn["body"]["output"]] == ["reasoning", "message"]

    # The second request named the first answer's items instead of sending them...
    sent_first, sent_second = result["requests"]
    assert sent_first.get("store") is None  # the SDK's default: store on
    assert references(sent_first) == []
    assert references(sent_second) == [item["id"] for item in first["body"]["output"]]
    # ...and the model read the first answer where it was in the conversation.
    assert conversation(recorded.requests[1]) == [
        ("user", ["Hello from the AI SDK!"]),
        ("assistant", ["Hello! How can I help?"]),
        ("user", ["What did you just say?"]),
    ]


# --------------------------------------------------------------------------- tool loops


def check_tool_loop(result: dict[str, Any], recorded: RecordingModel) -> None:
    """What both tool loops share: the steps, the tool runs, and what the model read last."""
    assert result["text"] == FINAL_ANSWER
    assert result["executed"] == ["Paris", "Rome"]
    steps = result["steps"]
    assert [step["text"] for step in steps] == ["Checking Paris.", "Checking Rome.", FINAL_ANSWER]
    assert [step["finish_reason"] for step in steps] == ["tool-calls", "tool-calls", "stop"]
    assert [step["tool_calls"] for step in steps] == [
        [{"name": "get_weather", "input": {"city": "Paris"}}],
        [{"name": "get_weather", "input": {"city": "Rome"}}],
        [],
    ]
    assert [step["tool_results"] for step in steps[:2]] == [
        [{"name": "get_weather", "output": "Sunny, 21 C in Paris."}],
        [{"name": "get_weather", "output": "Sunny, 21 C in Rome."}],
    ]

    # Each later step referenced the reasoning and text of every step before it.
    requests = result["requests"]
    assert len(requests) == 3
    assert [len(references(body)) for body in requests] == [0, 2, 4]
    assert references(requests[2])[:2] == references(requests[1])

    call = {"city": "Paris"}, {"city": "Rome"}
    assert conversation(recorded.requests[2]) == [
        ("user", ["What is the weather in Paris and Rome?"]),
        ("assistant", ["Checking Paris.", ("call", "get_weather", call[0])]),
        ("user", [("result", "Sunny, 21 C in Paris.")]),
        ("assistant", ["Checking Rome.", ("call", "get_weather", call[1])]),
        ("user", [("result", "Sunny, 21 C in Rome.")]),
    ]


async def test_a_tool_loop_with_generate_text(ai_sdk_env: dict[str, str]) -> None:
    async with running_editor({}, SCRIPT) as (url, recorded):
        result = await run_client(ai_sdk_env, "tools-generate", url)

    check_tool_loop(result, recorded)
    emitted: list[str] = []
    for step in result["steps"]:
        validate_response(step["body"])
        emitted += [
            item["id"] for item in step["body"]["output"] if item["type"] != "function_call"
        ]
    assert references(result["requests"][2]) == emitted[:4]


async def test_a_streamed_tool_loop_with_stream_text(ai_sdk_env: dict[str, str]) -> None:
    async with running_editor({}, SCRIPT) as (url, recorded):
        result = await run_client(ai_sdk_env, "tools-stream", url)

    check_tool_loop(result, recorded)
    responses = [validate_stream(events) for events in split_responses(result["raw_events"])]
    assert len(responses) == 3
    emitted = [
        item["id"]
        for response in responses[:2]
        for item in response["output"]
        if item["type"] != "function_call"
    ]
    assert references(result["requests"][2]) == emitted
    assert result["part_types"].count("reasoning-start") == 3
    assert result["part_types"].count("tool-result") == 2


async def test_keepalive_events_leave_the_streamed_tool_loop_intact(
    ai_sdk_env: dict[str, str],
) -> None:
    """`keepalive` events (not Responses events) before and between parts: the SDK skips them."""
    async with running_editor({"keepaliveSeconds": 0.2}, SLOW_SCRIPT) as (url, recorded):
        result = await run_client(ai_sdk_env, "tools-stream", url)

    check_tool_loop(result, recorded)
    responses = split_responses(result["raw_events"])
    assert len(responses) == 3
    for events in responses:
        kinds = [event["type"] for event in events]
        assert "keepalive" in kinds[: kinds.index("response.output_item.added")]
        validate_stream(events)
