"""`lsp.chat_json`: a chat's params written in one pass are the JSON the general path
(`model_dump`, then the strict JSON encoder) writes, and refused where that path refuses."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.core.backend import (
    ChatMessage,
    ChatRequest,
    ChatTool,
    DataPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from bridge.core.strict_json import encode
from lsp.chat_json import chat_params_json
from lsp.rpc import UnsendableMessage

texts = st.text(max_size=12) | st.sampled_from(["NaN", "Infinity", "-Infinity", "é\u2028", ""])
finite = st.floats(allow_nan=False, allow_infinity=False)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | finite | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)
inner_parts = st.builds(TextPart, value=texts) | st.builds(DataPart, mimeType=texts, data=texts)
parts = (
    inner_parts
    | st.builds(
        ToolCallPart,
        callId=texts,
        name=texts,
        input=st.dictionaries(texts, json_values, max_size=3),
    )
    | st.builds(ToolResultPart, callId=texts, content=st.lists(inner_parts, max_size=3))
)
messages = st.builds(
    ChatMessage,
    role=st.sampled_from(["user", "assistant"]),
    content=st.lists(parts, max_size=4),
    name=st.none() | texts,
)
tools = st.builds(
    ChatTool,
    name=texts,
    description=texts,
    inputSchema=st.none() | st.dictionaries(texts, json_values, max_size=3),
)
requests = st.builds(
    ChatRequest,
    model=texts,
    messages=st.lists(messages, max_size=4),
    tools=st.lists(tools, max_size=2),
    toolMode=st.sampled_from(["auto", "required"]),
    modelOptions=st.dictionaries(texts, json_values, max_size=3),
    modelConfiguration=st.dictionaries(texts, json_values, max_size=2),
    justification=st.none() | texts,
)


def general_path(chat_id: str, window: int, request: ChatRequest) -> bytes:
    params = {"chatId": chat_id, "window": window, **request.model_dump(exclude_none=True)}
    return encode(params).encode()


@settings(max_examples=150, deadline=None)
@given(request=requests, window=st.integers(0, 1 << 20))
def test_same_bytes_as_the_general_path(request: ChatRequest, window: int) -> None:
    # The same JSON (msgspec may spell a float differently: `1e16` for `1e+16`), keys in order.
    sent = json.loads(chat_params_json("chat-7", window, request), object_pairs_hook=list)
    assert sent == json.loads(general_path("chat-7", window, request), object_pairs_hook=list)


@pytest.mark.parametrize(
    "where",
    ["modelOptions", "toolInput", "schema"],
)
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, "\ud800"])
# How chat_params_json looks for a non-finite number: a short request by scanning its bytes;
# a long text by walking its few values; many values by scanning, the walk having given up.
@pytest.mark.parametrize("shape", ["short", "long text", "many values", "many messages"])
def test_what_json_cannot_carry_is_refused(where: str, bad: Any, shape: str) -> None:
    text = "NaN and Infinity are words" + (" null" * 40_000 if shape != "short" else "")
    message = ChatMessage(role="user", content=[TextPart(value=text)])
    request = ChatRequest(model="m", messages=[message])
    if shape == "many messages":
        request.messages += [ChatMessage(role="user", content=[TextPart(value="hi")])] * 200
    many = list(range(2_000)) if shape == "many values" else []
    if where == "modelOptions":
        request.modelOptions = {"temperature": bad, "stop": many}
    elif where == "toolInput":
        call = ToolCallPart(callId="c", name="n", input={"x": [1, {"y": bad}], "z": many})
        request.messages.append(ChatMessage(role="assistant", content=[call]))
    else:
        request.tools = [ChatTool(name="t", inputSchema={"default": bad, "enum": many})]
    with pytest.raises(UnsendableMessage):
        chat_params_json("chat-1", 8, request)


def test_the_words_nan_and_infinity_in_text_are_sent() -> None:
    message = ChatMessage(role="user", content=[TextPart(value="NaN Infinity")], name="Infinity")
    params = json.loads(chat_params_json("c", 1, ChatRequest(model="NaN", messages=[message])))
    assert params["messages"][0] == {
        "role": "user",
        "content": [{"type": "text", "value": "NaN Infinity"}],
        "name": "Infinity",
    }
