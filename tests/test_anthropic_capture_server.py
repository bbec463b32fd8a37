"""The capture server (tests/anthropic_capture.py) answers like the API: its bytes on the wire
pass the schema and the stream rules, and the anthropic SDK reads them."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any, cast

import anthropic
import pytest
from anthropic.types import ToolParam
from anthropic_capture import COMMAND, DONE, capture_server
from anthropic_validation import (
    check_stream,
    parse_sse,
    validate_count_tokens,
    validate_error,
    validate_message,
    validate_model_list,
)
from request_recording import REDACTED

BASH_TOOL: dict[str, Any] = {
    "name": "Bash",
    "description": "Runs a command.",
    "input_schema": {"type": "object"},
}


def post(url: str, body: dict[str, Any]) -> tuple[int, bytes]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "x-api-key": "secret"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_the_wire_format_passes_the_validator() -> None:
    with capture_server(unknown_models=frozenset({"gone"})) as server:
        url = f"{server.base_url}/v1/messages?beta=true"
        prompt = {"role": "user", "content": "write out.txt"}
        status, body = post(
            url,
            {
                "model": "m",
                "max_tokens": 9,
                "stream": True,
                "messages": [prompt],
                "tools": [BASH_TOOL],
            },
        )
        assert status == 200
        message = check_stream(parse_sse(body)).message
        assert message is not None
        assert message["content"][0]["input"] == {"command": COMMAND}
        status, body = post(url, {"model": "m", "max_tokens": 9, "messages": [prompt]})
        assert status == 200
        validate_message(json.loads(body))
        status, body = post(url, {"model": "gone", "max_tokens": 9, "messages": [prompt]})
        assert status == 404
        validate_error(json.loads(body))
        status, body = post(f"{server.base_url}/v1/messages/count_tokens", {"messages": [prompt]})
        validate_count_tokens(json.loads(body))
        with urllib.request.urlopen(f"{server.base_url}/v1/models", timeout=10) as response:
            validate_model_list(json.loads(response.read()))
        recorded = server.recorded()
    assert [r["path"] for r in recorded][:2] == ["/v1/messages?beta=true"] * 2
    assert recorded[0]["headers"]["x-api-key"] == REDACTED
    assert recorded[0]["body"]["tools"] == [BASH_TOOL]


def test_the_anthropic_sdk_reads_every_answer() -> None:
    with capture_server(unknown_models=frozenset({"gone"})) as server:
        client = anthropic.Anthropic(base_url=server.base_url, api_key="dummy", max_retries=0)
        history: list[Any] = [{"role": "user", "content": "please write out.txt"}]
        with client.messages.stream(
            model="m", max_tokens=9, messages=history, tools=[cast(ToolParam, BASH_TOOL)]
        ) as stream:
            first = stream.get_final_message()
        assert first.stop_reason == "tool_use"
        tool_use = first.content[0]
        assert tool_use.type == "tool_use"
        assert tool_use.input == {"command": COMMAND}
        history += [
            {"role": "assistant", "content": [tool_use.model_dump()]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id}]},
        ]
        second = client.messages.create(model="m", max_tokens=9, messages=history)
        assert [block.type for block in second.content] == ["text"]
        assert second.content[0].type == "text"
        assert second.content[0].text == DONE
        count = client.messages.count_tokens(model="m", messages=history)
        assert count.input_tokens > 0
        assert [model.id for model in client.models.list()] == [
            "claude-opus-4-7",
            "claude-sonnet-4-6",
            "claude-haiku-4-5-20251001",
        ]
        with pytest.raises(anthropic.NotFoundError):
            client.messages.create(model="gone", max_tokens=9, messages=history)
