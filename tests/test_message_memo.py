"""The simulated model's per-message memo (headless_editor/message_memo.py): a resent message
is worked on once, answers are the same as without the memo, and its memory is bounded."""

from __future__ import annotations

from bridge.core.counted_text import counted_text
from bridge.core.parts import ChatMessage, TextPart, ToolCallPart, ToolResultPart
from headless_editor import prompt_cache
from headless_editor.chat_types import ChatTool
from headless_editor.input_count import input_tokens
from headless_editor.message_memo import MessageMemo
from headless_editor.prompt_cache import rendering, unit_count
from headless_editor.tokens import count_message_tokens, count_tokens


def _user(text: str) -> ChatMessage:
    return ChatMessage(role="user", content=[TextPart(value=text)])


def test_made_once_per_distinct_value() -> None:
    made: list[str] = []

    def make(message: ChatMessage) -> int:
        made.append(message.content[0].value)  # type: ignore[union-attr]
        return len(made)

    memo = MessageMemo(make)
    assert [memo(_user("a")), memo(_user("b")), memo(_user("a"))] == [1, 2, 1]
    assert made == ["a", "b"]  # an equal message decoded again is not made again
    assert memo(ChatMessage(role="assistant", content=[TextPart(value="a")])) == 3


def test_bounded_by_key_bytes_least_recently_used_first() -> None:
    memo = MessageMemo(lambda text: text.upper(), max_bytes=20)
    for text in ("aaaa", "bbbb", "cccc"):  # 6 bytes each as JSON
        memo(text)
    memo("aaaa")  # used again: "bbbb" is now the oldest
    memo("dddd")
    assert len(memo) == 3 and memo.bytes <= 20
    assert memo("aaaa") == "AAAA"
    assert memo(" " * 100) == " " * 100  # larger than the bound: made, not kept
    assert memo.bytes <= 20


def test_rendering_in_pieces_is_the_whole_rendering() -> None:
    # A part without tokens leaves its marker for the next message's first token, exactly as
    # one rendering of the whole conversation would.
    messages = [
        _user("first question"),
        ChatMessage(role="user", content=[ToolResultPart(callId="c1", content=[])]),
        _user("second"),
    ]
    whole = rendering(messages, [])
    assert "\x01<result:c1>\x01<user:>\x01<text>seco\x00" in whole.text
    assert whole.tokens == unit_count(whole.text) == count_message_tokens(messages)
    # Remembered pieces give the same answer the next time.
    assert rendering(messages, []) == whole


def test_a_resent_history_is_not_rendered_again() -> None:
    history = [_user(f"turn {n} of a long session") for n in range(50)]
    rendering(history, [])
    calls: list[ChatMessage] = []
    original = prompt_cache._message

    def counting(message: ChatMessage) -> tuple[str, int]:
        calls.append(message)
        return original(message)

    prompt_cache._message_of._make = counting
    try:
        rendering([*history, _user("and one more")], [])
    finally:
        prompt_cache._message_of._make = original
    assert [m.content for m in calls] == [[TextPart(value="and one more")]]


def test_the_input_count_adds_up_message_by_message() -> None:
    # The count of countInput's whole text (bridge/core/counted_text.py), summed per message:
    # texts ending or starting in whitespace, empty ones, calls, results and tools included.
    messages = [
        _user("Hello   "),
        _user(""),
        _user("  \n indented, with punctuation!"),
        ChatMessage(
            role="assistant",
            content=[
                TextPart(value="word"),
                ToolCallPart(callId="c1", name="shell", input={"command": "ls -l  "}),
            ],
        ),
        ChatMessage(
            role="user",
            content=[ToolResultPart(callId="c1", content=[TextPart(value="a.txt\nb.txt\n")])],
        ),
        _user("longerwords"),
    ]
    tools = [ChatTool(name="shell", description="Run it.", inputSchema={"type": "object"})]
    whole = count_tokens(counted_text(messages, tools)[0])
    assert input_tokens(messages, tools) == whole
    assert input_tokens(messages, []) == count_tokens(counted_text(messages, [])[0])
    assert input_tokens([], []) == 0
