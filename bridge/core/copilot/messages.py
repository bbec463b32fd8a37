"""The conversation as Copilot renders it without losing anything (one walk, no copies of
what needs no change).

How Copilot turns `vscode.lm` messages into its upstream request (languageModelAccessPrompt.tsx)
decides what the bridge sends:
- an assistant message keeps only its first text part: its text parts are merged into one
  (paragraphs), where the first was;
- the tool messages answering an assistant's calls must come right after it: in a user message
  the tool results go first (bridge/core/history.py pairs them; a part order the client chose
  otherwise is fixed here too);
- empty text parts and empty messages are dropped (Claude's path drops them anyway, others
  reject them), an empty tool result says so in a short text;
- a conversation ending with an assistant turn gets "Please continue." from Copilot; the bridge
  ends it with its own user message asking to go on from that text (the client's prefill);
- tool calls in the history carry the editor's names for the tools (tool_names.py);
- images to a model without `imageInput` are a 400 (its upstream fails them), not a failure
  the user cannot read.
"""

from __future__ import annotations

from msgspec.structs import replace

from bridge.core.backend import (
    ChatMessage,
    DataPart,
    MessagePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from bridge.core.copilot.tool_names import ToolNames
from bridge.core.errors import invalid_request

CONTINUE = (
    "Continue your answer from exactly where the assistant's text above stops, without "
    "repeating any of it."
)
EMPTY_RESULT = "(the tool returned no output)"
TEXT_SEPARATOR = "\n\n"


def copilot_messages(
    messages: list[ChatMessage], names: ToolNames, model_id: str, image_input: bool
) -> list[ChatMessage]:
    """The messages Copilot renders as the client meant them (see the module's rules)."""
    out: list[ChatMessage] = []
    start, count = 0, len(messages)
    while start < count:
        # Runs of messages no rule changes are kept as they are, found in one loop (nearly
        # every message of a long history; for a model that takes images, else each message
        # is checked for images); the others are reshaped one at a time.
        end = _unchanged_from(messages, start, names) if image_input else start
        out += messages[start:end]
        if end == count:
            break
        message = messages[end]
        if message.role == "assistant":
            shaped = _assistant(message, names)
        else:
            shaped = _user(message, model_id, image_input)
        if shaped.content:
            out.append(shaped)
        start = end + 1
    if out and out[-1].role == "assistant":
        out.append(ChatMessage(role="user", content=[TextPart(value=CONTINUE)]))
    return out


def _unchanged_from(messages: list[ChatMessage], start: int, names: ToolNames) -> int:
    """The index of the first message from `start` on that a rule changes (or drops), or the
    messages' length: one loop over the parts, as `_assistant` and `_user` check them one
    message at a time for a model that takes images (a long history is thousands of them, on
    every request)."""
    known = names.to_editor
    for index in range(start, len(messages)):
        message = messages[index]
        content = message.content
        if not content:
            return index
        if message.role == "assistant":
            texts = 0
            for part in content:
                kind = type(part)
                if kind is TextPart:
                    texts += 1
                    if texts > 1 or not part.value:  # type: ignore[union-attr]
                        return index
                elif kind is ToolCallPart:
                    name = part.name  # type: ignore[union-attr]
                    if known.get(name) != name and names.editor(name) != name:
                        return index
            continue
        seen_other = False
        for part in content:
            kind = type(part)
            if kind is ToolResultPart:
                inner = part.content  # type: ignore[union-attr]
                if seen_other or not inner:
                    return index
                for piece in inner:
                    if type(piece) is TextPart and not piece.value:
                        return index
            else:
                seen_other = True
                if kind is TextPart and not part.value:  # type: ignore[union-attr]
                    return index
    return len(messages)


def _assistant(message: ChatMessage, names: ToolNames) -> ChatMessage:
    texts = 0
    change = False
    for part in message.content:
        if type(part) is TextPart:
            texts += 1
            change = change or not part.value
        elif type(part) is ToolCallPart:
            change = change or names.editor(part.name) != part.name
    if not change and texts <= 1:
        return message  # nearly always: nothing to do
    merged = TEXT_SEPARATOR.join(
        p.value for p in message.content if type(p) is TextPart and p.value
    )
    parts: list[MessagePart] = []
    placed = False
    for part in message.content:
        if type(part) is TextPart:
            if merged and not placed:
                parts.append(TextPart(value=merged))
            placed = True
        elif type(part) is ToolCallPart:
            name = names.editor(part.name)
            parts.append(part if name == part.name else replace(part, name=name))
        else:
            parts.append(part)
    return ChatMessage(role="assistant", content=parts, name=message.name)


def _user(message: ChatMessage, model_id: str, image_input: bool) -> ChatMessage:
    change = False
    seen_other = False  # a part that is not a tool result came before
    for part in message.content:
        if type(part) is ToolResultPart:
            change = change or seen_other or _result_needs_change(part)
            if not image_input:
                _no_images(part.content, model_id)
            continue
        seen_other = True
        if type(part) is TextPart:
            change = change or not part.value
        elif type(part) is DataPart and not image_input:
            _no_images([part], model_id)
    if not change:
        return message
    results: list[MessagePart] = []
    others: list[MessagePart] = []
    for part in message.content:
        if type(part) is ToolResultPart:
            results.append(_result(part))
        elif type(part) is not TextPart or part.value:
            others.append(part)
    return ChatMessage(role="user", content=[*results, *others], name=message.name)


def _result_needs_change(result: ToolResultPart) -> bool:
    if not result.content:
        return True
    for part in result.content:  # noqa: SIM110 (a loop, not any(): thousands per request)
        if type(part) is TextPart and not part.value:
            return True
    return False


def _result(result: ToolResultPart) -> ToolResultPart:
    if not _result_needs_change(result):
        return result
    kept: list[TextPart | DataPart] = [
        p for p in result.content if type(p) is not TextPart or p.value
    ]
    return replace(result, content=kept or [TextPart(value=EMPTY_RESULT)])


def _no_images(parts: list[TextPart | DataPart], model_id: str) -> None:
    if any(type(p) is DataPart and p.mimeType.startswith("image/") for p in parts):
        raise invalid_request(
            f"The model {model_id!r} does not accept images (the editor reports no image "
            "input for it). Choose a model with vision, or send the request without images.",
            code="invalid_value",
        )
