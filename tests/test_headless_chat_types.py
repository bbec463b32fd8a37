"""The headless editor's msgspec twin of the bridge's chat request
(headless_editor/chat_types.py) reads and writes what the bridge's pydantic one does."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from bridge.core import backend
from headless_editor import chat_types

# Both sides of `maestro/chat`: every field the bridge sends, some empty, some None.
MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "content": [{"type": "text", "value": "hi"}], "name": "ann"},
    {
        "role": "assistant",
        "content": [{"type": "toolCall", "callId": "c1", "name": "f", "input": {"a": None}}],
    },
    {
        "role": "user",
        "content": [
            {"type": "toolResult", "callId": "c1", "content": [{"type": "text", "value": "ok"}]},
            {"type": "data", "mimeType": "image/png", "data": "iVBORw0KGgo="},
        ],
    },
]
PARAMS: list[dict[str, Any]] = [
    {"model": "sim-echo", "messages": MESSAGES[:1]},
    {
        "chatId": "7",  # the editor's own keys: not part of the request
        "window": 64,
        "model": "sim-think",
        "messages": MESSAGES,
        "tools": [
            {"name": "f", "description": "", "inputSchema": None},
            {"name": "g", "description": "G", "inputSchema": {"type": "object", "x": None}},
        ],
        "toolMode": "required",
        "modelOptions": {"temperature": 0.5, "stop": None},
        "modelConfiguration": {"reasoningEffort": "high"},
        "justification": "because",
    },
]


def test_the_chat_request_has_the_fields_the_bridge_sends() -> None:
    sent = [
        name
        for name, field in backend.ChatRequest.model_fields.items()
        if not field.exclude  # the bridge's own notes, never sent
    ]
    assert [f.name for f in msgspec.structs.fields(chat_types.ChatRequest)] == sent


@pytest.mark.parametrize("params", PARAMS)
def test_a_request_reads_and_echoes_as_the_bridges_model_did(params: dict[str, Any]) -> None:
    ours = chat_types.chat_request(params)
    messages = backend.message_list(params["messages"])
    theirs = backend.ChatRequest.model_validate({**params, "messages": messages})
    # The `request` reply of a script: the same JSON text, byte for byte.
    assert chat_types.request_json(ours) == theirs.model_dump_json(exclude_none=True)


@pytest.mark.parametrize(
    "params",
    [
        {"model": 1, "messages": []},
        {"model": "m", "messages": [{"role": "system", "content": []}]},
        {"model": "m", "messages": [], "toolMode": "none"},
        {"model": "m", "messages": [], "tools": [{"description": "no name"}]},
        {"messages": []},
    ],
)
def test_a_malformed_request_is_refused_as_the_bridges_model_refused_it(
    params: dict[str, Any],
) -> None:
    with pytest.raises(msgspec.ValidationError):
        chat_types.chat_request(params)
    with pytest.raises((msgspec.ValidationError, ValueError)):
        backend.ChatRequest.model_validate(
            {**params, "messages": backend.message_list(params["messages"])}
        )


def test_the_model_list_reads_back_as_the_bridge_reads_it() -> None:
    ours = chat_types.ModelInfo(
        id="m",
        name="M",
        maxInputTokens=9,
        capabilities=chat_types.ModelCapabilities(imageInput=False),
    )
    assert backend.model_list(chat_types.models_json([ours])) == [ours]
    # An editor's numbers may come as floats; unknown keys are ignored.
    assert backend.model_list([{"id": "m", "maxInputTokens": 9.0, "new": 1}])[0].maxInputTokens == 9
