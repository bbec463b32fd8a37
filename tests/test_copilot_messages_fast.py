"""`copilot_messages` keeps a conversation as it is when no Copilot rule changes a message:
that one-pass check must give exactly what the message-by-message rules give."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.core.backend import (
    ChatMessage,
    DataPart,
    MessagePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from bridge.core.copilot import messages as copilot
from bridge.core.copilot.tool_names import ToolNames

texts = st.builds(TextPart, value=st.sampled_from(["", "x", "y"]))
data = st.builds(
    DataPart, mimeType=st.sampled_from(["image/png", "text/csv"]), data=st.just("AA==")
)
calls = st.builds(
    ToolCallPart, callId=st.sampled_from(["a", "b"]), name=st.sampled_from(["f", "bad name!"])
)
results = st.builds(
    ToolResultPart, callId=st.sampled_from(["a", "b"]), content=st.lists(texts | data, max_size=2)
)
parts: st.SearchStrategy[MessagePart] = texts | data | calls | results
conversations = st.lists(
    st.builds(
        ChatMessage,
        role=st.sampled_from(["user", "assistant"]),
        content=st.lists(parts, max_size=4),
    ),
    max_size=6,
)


def _message_by_message(conversation: list[ChatMessage], names: ToolNames) -> list[ChatMessage]:
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(copilot, "_unchanged_from", lambda messages, start, names: start)
        return copilot.copilot_messages(conversation, names, "m", True)


@settings(max_examples=500, deadline=None)
@given(conversation=conversations)
def test_the_one_pass_check_changes_nothing(conversation: list[ChatMessage]) -> None:
    expected = _message_by_message(conversation, ToolNames())
    assert copilot.copilot_messages(conversation, ToolNames(), "m", True) == expected


def test_an_ordinary_conversation_is_kept_without_copies() -> None:
    conversation = [
        ChatMessage(role="user", content=[TextPart(value="go")]),
        ChatMessage(
            role="assistant",
            content=[TextPart(value="on it"), ToolCallPart(callId="a", name="f")],
        ),
        ChatMessage(
            role="user", content=[ToolResultPart(callId="a", content=[TextPart(value="ok")])]
        ),
    ]
    names = ToolNames()
    assert copilot._unchanged_from(conversation, 0, names) == len(conversation)
    out = copilot.copilot_messages(conversation, names, "m", True)
    assert out == conversation
    assert all(a is b for a, b in zip(out, conversation, strict=True))  # nothing copied


def test_only_the_messages_a_rule_changes_are_copied() -> None:
    kept = [
        ChatMessage(role="user", content=[TextPart(value="go")]),
        ChatMessage(role="assistant", content=[TextPart(value="a")]),
    ]
    merged = ChatMessage(role="assistant", content=[TextPart(value="b"), TextPart(value="c")])
    after = ChatMessage(role="user", content=[TextPart(value="more")])
    names = ToolNames()
    conversation = [*kept, merged, after]
    assert copilot._unchanged_from(conversation, 0, names) == 2
    assert copilot._unchanged_from(conversation, 3, names) == 4
    out = copilot.copilot_messages(conversation, names, "m", True)
    assert out[0] is kept[0] and out[1] is kept[1] and out[3] is after
    assert out[2] == ChatMessage(role="assistant", content=[TextPart(value="b\n\nc")])
