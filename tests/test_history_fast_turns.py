"""`normalise_tool_history` keeps a turn as it is when its calls' results already open the next
message, and a whole conversation as it is when every turn is so: those shortcuts must give
exactly what the full rules give, for any conversation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.core import history
from bridge.core.backend import ChatMessage, MessagePart, TextPart, ToolCallPart, ToolResultPart

ids = st.sampled_from(["a", "b", "c", "a_2"])
texts = st.sampled_from(["x", "y"])
calls = st.builds(ToolCallPart, callId=ids, name=st.sampled_from(["f", "g"]), input=st.just({}))
results = st.builds(
    ToolResultPart, callId=ids, content=st.lists(st.builds(TextPart, value=texts), max_size=2)
)
text_parts = st.builds(TextPart, value=texts)
messages = st.one_of(
    st.builds(
        ChatMessage,
        role=st.just("assistant"),
        content=st.lists(calls | text_parts, max_size=4),
    ),
    st.builds(
        ChatMessage,
        role=st.just("user"),
        content=st.lists(results | text_parts | calls, max_size=4),
    ),
)


def _well_paired(turns: int) -> list[ChatMessage]:
    """What clients send nearly always: each turn's results right after its calls."""
    made: list[ChatMessage] = [ChatMessage(role="user", content=[TextPart(value="go")])]
    for turn in range(turns):
        made.append(
            ChatMessage(
                role="assistant",
                content=[
                    TextPart(value="on it"),
                    *(ToolCallPart(callId=f"c{turn}-{n}", name="f") for n in range(2)),
                ],
            )
        )
        made.append(
            ChatMessage(
                role="user",
                content=[
                    ToolResultPart(callId=f"c{turn}-{n}", content=[TextPart(value="ok")])
                    for n in range(2)
                ],
            )
        )
    return made


def _full_rules(
    conversation: list[ChatMessage], monkeypatch: pytest.MonkeyPatch
) -> list[ChatMessage]:
    with monkeypatch.context() as patched:
        patched.setattr(history, "_paired_in_place", lambda *args: False)
        patched.setattr(history, "_already_paired", lambda *args: False)
        return history.normalise_tool_history(conversation)


@st.composite
def turns(draw: st.DrawFn) -> list[ChatMessage]:
    """Turns as clients send them (results after their calls), with the odd change: a result
    moved, repeated, missing or extra, an id reused, text in between."""
    made: list[ChatMessage] = []
    for _ in range(draw(st.integers(1, 4))):
        turn_ids = draw(st.lists(ids, min_size=1, max_size=3))
        turn_calls = [ToolCallPart(callId=i, name="f") for i in turn_ids]
        made.append(
            ChatMessage(
                role="assistant", content=[*draw(st.lists(text_parts, max_size=1)), *turn_calls]
            )
        )
        answers: list[MessagePart] = [
            ToolResultPart(callId=i, content=[TextPart(value="ok")]) for i in turn_ids
        ]
        if draw(st.booleans()):
            answers = draw(st.permutations(answers))
        answers += draw(st.lists(results | text_parts, max_size=2))
        split = draw(st.integers(0, len(answers)))
        made.append(ChatMessage(role="user", content=answers[:split]))
        if draw(st.booleans()):
            made.append(ChatMessage(role="user", content=answers[split:]))
    return made


@settings(max_examples=400, deadline=None)
@given(conversation=st.lists(messages, max_size=8) | turns())
def test_the_shortcut_changes_nothing(conversation: list[ChatMessage]) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        expected = _full_rules(conversation, monkeypatch)
    assert history.normalise_tool_history(conversation) == expected


def test_well_paired_turns_take_the_shortcut(monkeypatch: pytest.MonkeyPatch) -> None:
    conversation = _well_paired(3)
    taken: list[bool] = []
    real = history._paired_in_place

    def counting(*args: object) -> bool:
        taken.append(real(*args))  # type: ignore[arg-type]
        return taken[-1]

    monkeypatch.setattr(history, "_paired_in_place", counting)
    assert history._already_paired(conversation)
    out = history.normalise_tool_history(conversation)
    assert taken == []  # the whole conversation in one pass
    assert out == conversation
    assert all(a is b for a, b in zip(out, conversation, strict=True))  # nothing copied

    # One odd turn (a result missing) and the turns are checked one by one instead.
    conversation[-1] = ChatMessage(role="user", content=[conversation[-1].content[0]])
    assert not history._already_paired(conversation)
    history.normalise_tool_history(conversation)
    assert taken == [True, True, False]


@settings(max_examples=400, deadline=None)
@given(conversation=st.lists(messages, max_size=8) | turns())
def test_the_whole_conversation_shortcut_is_the_turn_by_turn_one(
    conversation: list[ChatMessage],
) -> None:
    """Where the one-pass check says nothing changes, the turn-by-turn rules agree."""
    if history._already_paired(conversation):
        with pytest.MonkeyPatch.context() as monkeypatch:
            assert _full_rules(conversation, monkeypatch) == conversation
