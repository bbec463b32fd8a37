"""`countInput`'s count (docs/protocol.md, "Counting the input"), a message at a time.

The counted text is every message's texts, then the tools, joined by newlines
(bridge/core/counted_text.py). The simulated tokenizer's tokens never span a newline (the
whitespace before a token rides along with it), so the count of the whole text is the sum of
its pieces' counts: each message is counted once (message_memo.py), not the whole history on
every request.
"""

from __future__ import annotations

from bridge.core.counted_text import counted_text
from bridge.core.parts import ChatMessage
from headless_editor.chat_types import ChatTool
from headless_editor.message_memo import MessageMemo
from headless_editor.tokens import count_tokens


def _message_tokens(message: ChatMessage) -> int:
    return count_tokens(counted_text([message], ())[0])


def _tools_tokens(tools: list[ChatTool]) -> int:
    return count_tokens(counted_text([], tools)[0])


_message_tokens_of = MessageMemo(_message_tokens)
_tools_tokens_of = MessageMemo(_tools_tokens)


def input_tokens(messages: list[ChatMessage], tools: list[ChatTool]) -> int:
    """count_tokens(counted_text(messages, tools)[0]), remembered per message."""
    return sum(map(_message_tokens_of, messages)) + _tools_tokens_of(tools)
