"""`tool_choice` required with several tools, which Copilot refuses.

Copilot throws `LanguageModelChatToolMode.Required is not supported with more than one tool`.
With one tool the mode stays required (Copilot names the tool to the model). With several the
request goes in auto mode with an instruction to call one (after the history: turn_notes.py);
the answer is held back until a tool call comes (bridge/core/answer.py), and an answer that
ends in text alone is asked once more with a reminder. Text alone again is a 502
(`tool_call_missing`): the client asked for a call, and a text answer would be read as the
model's final word.
"""

from __future__ import annotations

from bridge.core.backend import ChatMessage, TextPart
from bridge.core.errors import ApiError

INSTRUCTION = (
    "Your answer to the user's last message must call at least one of the tools offered. "
    "Do not answer in text alone."
)
REMINDER = (
    "You answered without calling a tool, but this answer must call one of the tools offered. "
    "Call the right tool now."
)


def retry_messages(messages: list[ChatMessage], answer_text: str) -> list[ChatMessage]:
    """The conversation asked again: the text answer, then the reminder."""
    retry = [*messages]
    if answer_text:
        retry.append(ChatMessage(role="assistant", content=[TextPart(value=answer_text)]))
    retry.append(ChatMessage(role="user", content=[TextPart(value=REMINDER)]))
    return retry


def tool_call_missing() -> ApiError:
    return ApiError(
        502,
        "The model answered in text twice although the request requires a tool call "
        "(tool_choice required, several tools: the editor's models take that only as an "
        "instruction). Try again, or name one tool in tool_choice.",
        type="server_error",
        code="tool_call_missing",
    )
