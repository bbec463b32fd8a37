"""End to end with the real openai Node SDK against a real `maestro-bridge serve`.

tests/node/responses_client.cjs runs the SDK (version pinned by tests/node/package-lock.json,
installed by scripts/test into `.cache/node-sdk`) and prints every event and Response it got;
here they are checked against the Open Responses spec and for what the model answered.

The SDK is looked up in $MAESTRO_NODE_MODULES, then `<repo>/.cache/node-sdk/node_modules`.
Without it (or without `node`) the tests fail when $CI is set and are skipped otherwise.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import REPO_ROOT, BridgeServer, StartServer
from node_clients import node_env_with, run_node_client
from samples import output_text
from spec_validation import validate_response, validate_stream

CLIENT = REPO_ROOT / "tests" / "node" / "responses_client.cjs"


@pytest.fixture(scope="module")
def node_env() -> dict[str, str]:
    """The environment that lets `node` require the pinned SDK."""
    return node_env_with(("openai",), "the openai Node SDK")


def run_client(
    node_env: dict[str, str], scenario: str, server: BridgeServer, model: str = "sim-echo"
) -> dict[str, Any]:
    return run_node_client(CLIENT, node_env, scenario, server, model)


def test_node_sdk_streams(node_env: dict[str, str], bridge_server: BridgeServer) -> None:
    result = run_client(node_env, "stream", bridge_server)
    assert result["sdk"] == "6.49.0"

    # create({stream: true}): the events exactly as the SDK parsed them.
    final = validate_stream(result["raw_events"])
    validate_response(final)
    assert output_text(final) == "You said: Hello from Node!"
    deltas = [e["delta"] for e in result["raw_events"] if e["type"] == "response.output_text.delta"]
    assert len(deltas) > 1 and "".join(deltas) == "You said: Hello from Node!"

    # The stream() helper: same event sequence, and its finalResponse() is the Response.
    helper_final = validate_stream(result["helper_events"])
    assert output_text(helper_final) == "You said: Hello again!"
    assert result["helper_final"]["id"] == helper_final["id"]
    assert output_text(result["helper_final"]) == "You said: Hello again!"

    # Plain create(): the SDK's output_text convenience works on the bridge's JSON.
    validate_response(result["created"])
    assert result["created_output_text"] == "You said: Plain create."
    bridge_server.assert_alive()


def test_node_sdk_skips_keepalive_events(
    node_env: dict[str, str], bridge_server_factory: StartServer
) -> None:
    """The stream scenario against a model silent before and between its parts: keepalive
    events reach `create({stream: true})` and the `stream()` helper, whose accumulator skips
    them (since openai-node#1965; 6.45 threw "Unhandled response stream event" on OpenAI's
    own keepalives)."""
    pauses = [
        {"type": "pause", "seconds": 0.4},
        {"type": "text", "text": "Slow"},
        {"type": "pause", "seconds": 0.4},
        {"type": "text", "text": " hello."},
    ]
    server = bridge_server_factory(
        "--keepalive-seconds", "0.1", script={"rules": [{"match": "Hello", "reply": pauses}]}
    )
    result = run_client(node_env, "stream", server)
    for events in (result["raw_events"], result["helper_events"]):
        types = [event["type"] for event in events]
        assert types[2] == "keepalive", types
        assert "keepalive" in types[types.index("response.output_text.delta") :], types
        assert output_text(validate_stream(events)) == "Slow hello."
    assert output_text(result["helper_final"]) == "Slow hello."
    server.assert_alive()


def test_node_sdk_tool_loop(node_env: dict[str, str], bridge_server: BridgeServer) -> None:
    result = run_client(node_env, "tools", bridge_server)
    rounds = result["rounds"]
    assert len(rounds) == 2
    first = validate_stream(rounds[0]["events"])
    calls = [item for item in first["output"] if item["type"] == "function_call"]
    assert [(c["name"], json.loads(c["arguments"])) for c in calls] == [
        ("get_weather", {"city": "placeholder"})
    ]
    assert result["calls"] == [{"name": "get_weather", "arguments": {"city": "placeholder"}}]
    # The second request carried the first response's items and the tool's output back.
    second = validate_stream(rounds[1]["events"])
    validate_response(second)
    output = "Sunny, 21 C in placeholder."
    assert result["final_text"] == f"The tool get_weather returned {len(output)} characters."
    assert output_text(second) == result["final_text"]
    bridge_server.assert_alive()
