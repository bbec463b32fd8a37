"""Token limits the editor's API does not enforce for us: the context window and max_output_tokens.

Both are measured with the editor's own token counter (`Backend.count_tokens`), the only count
that matches the model. Counting costs a round trip to the editor, so a free upper bound goes
first: a token is at least one UTF-8 byte for every tokenizer in use (byte-level BPE), so text
of N bytes has at most N tokens, and text shorter than the limit in bytes is never counted.

- Input: a request whose text may exceed the model's `maxInputTokens` is counted once by the
  editor as it starts the chat (`countInput`, docs/protocol.md), before the model is asked;
  too long -> 400 `context_length_exceeded` instead of a doomed request. Images are not text:
  each adds an estimate from its pixel size (bridge/core/image_tokens.py, 85 to 1,600
  tokens), to the free bound and to the count alike.
- Output: `max_output_tokens` goes to the editor as the model option `max_tokens`, and
  the bridge enforces it as parts stream, since providers may ignore the option. Text is
  counted only when the tokens counted so far plus the bytes since could pass the limit (a
  few counts per answer). The part that crosses the limit is cut at the longest prefix that
  fits (text and thinking; a tool call cannot be cut and is dropped), and the response ends
  `incomplete` with reason `max_output_tokens`. Reasoning counts toward the limit, as in
  OpenAI's API. Counting a text in pieces can differ from counting it whole by a token at a
  seam (for BPE tokenizers, almost always upwards: the cut comes early rather than late).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable

from msgspec.structs import replace

from bridge.core.backend import (
    INPUT_TOO_LONG,
    Backend,
    ChatRequest,
    CountInput,
    EditorError,
    ModelInfo,
    ResponsePart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)
from bridge.core.counted_text import counted_text
from bridge.core.errors import ApiError
from bridge.core.image_tokens import messages_image_tokens

log = logging.getLogger(__name__)

Counter = Callable[[str], Awaitable[int]]
_PYTHON_TEXT = json.JSONEncoder(ensure_ascii=False).encode  # the spaced form of an output call


def input_text(chat: ChatRequest) -> str:
    """What the model reads, as text for the token counter: messages, then the tools."""
    return counted_text(chat.messages, chat.tools)[0]


async def chat_input_tokens(backend: Backend, chat: ChatRequest) -> int:
    """The whole input's tokens: the editor's count of its text, plus the images' estimate
    (the count the editor made as the chat started, when it made one)."""
    counted = chat.counted_input
    if counted is not None:
        return counted
    text_tokens = await backend.count_tokens(chat.model, input_text(chat))
    return text_tokens + messages_image_tokens(chat.messages)


def _bytes(text: str) -> int:
    # isascii() reads a flag CPython keeps: an ASCII text is not encoded (0.5 MB: ~1 ms) to
    # learn what its length already says.
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def limit_context(chat: ChatRequest, model: ModelInfo, param: str = "input") -> None:
    """Asks the editor to count the input and refuse it past the model's window
    (`chat.countInput`), when it may not fit: the editor counts as it starts the chat, so a
    long conversation is not sent to it twice (once as text to count). A refusal becomes a
    400 `context_length_exceeded` naming `param`, the dialect's input field
    (bridge/core/answer.py `input_too_long`)."""
    window = model.maxInputTokens
    if window <= 0:
        return  # unknown window
    if _more_characters(chat, window):
        images = messages_image_tokens(chat.messages)  # a long history: it may not fit
    else:
        text, images = counted_text(chat.messages, chat.tools)
        if _bytes(text) + images <= window:
            return  # it fits for certain
    chat.countInput = CountInput(maxTokens=window, imageTokens=images)
    chat.inputParam = param


def _more_characters(chat: ChatRequest, limit: int) -> bool:
    """Whether the messages' text has more than `limit` characters, summed only until it has:
    then it has more UTF-8 bytes too, and building the whole text to learn its size (0.7 ms
    at 4,000 items) is not needed."""
    total = 0
    for message in chat.messages:
        for part in message.content:
            kind = type(part)
            if kind is TextPart:
                total += len(part.value)  # type: ignore[union-attr]
            elif kind is ToolResultPart:
                for inner in part.content:  # type: ignore[union-attr]
                    if type(inner) is TextPart:
                        total += len(inner.value)
        if total > limit:
            return True
    return False


def count_input_asked(chat: ChatRequest) -> None:
    """Asks the editor for the input's count without a limit (Messages' `message_start`
    states it), when `limit_context` did not ask already."""
    if chat.countInput is None:
        images = messages_image_tokens(chat.messages)
        chat.countInput = CountInput(maxTokens=0, imageTokens=images)


async def enforce_count_input(count: Counter, chat: ChatRequest) -> None:
    """`countInput` for a backend that can only count text (an editor that does not count
    the chat's input itself): counted here before the chat is sent, refused past the limit
    as such an editor would. A count that fails lets the chat go, as the editor does."""
    asked = chat.countInput
    if asked is None:
        return
    try:
        tokens = await count(input_text(chat)) + asked.imageTokens
    except EditorError as exc:
        log.warning("The editor could not count the input tokens (%s); sending anyway", exc.code)
        return
    chat.counted_input = tokens
    if 0 < asked.maxTokens < tokens:
        raise input_refusal(tokens, asked.maxTokens)


def input_refusal(tokens: int, window: int) -> EditorError:
    """The editor's refusal of an input of `tokens` past `window` (docs/protocol.md)."""
    return EditorError(
        "Other",
        f"The input is {tokens} tokens, more than the {window} tokens the model can read.",
        INPUT_TOO_LONG,
        input_tokens=tokens,
    )


def input_too_long(chat: ChatRequest, tokens: int | None) -> ApiError:
    """The client's 400 for an input the editor refused (its count against the window)."""
    window = chat.countInput.maxTokens if chat.countInput is not None else 0
    shown = tokens if tokens is not None else window + 1
    return ApiError(
        400,
        f"The input is {shown} tokens, more than the {window} tokens the model "
        f"{chat.model!r} can read (its context window). Shorten the conversation or its "
        "tool outputs and try again.",
        param=chat.inputParam,
        code="context_length_exceeded",
    )


def part_text(part: ResponsePart) -> str:
    """The generated text of a part, as the token counter sees it ("" for data)."""
    if isinstance(part, (TextPart, ThinkingPart)):
        return part.value
    if isinstance(part, ToolCallPart):
        return f"{part.name} {_PYTHON_TEXT(part.input)}"  # a few per answer: the spaced form
    return ""


class OutputLimit:
    """Admits the model's parts until `limit` tokens; then cuts and reports `reached`.

    Text is counted only when the tokens counted so far plus the UTF-8 size of what came
    since could pass the limit; after each count the room left shrinks, so a long answer
    costs a handful of counts, not one per part.
    """

    def __init__(self, limit: int, count: Counter) -> None:
        self.limit = max(limit, 0)
        self._count = count
        self._tokens = 0  # counted tokens of the text before `_pending`
        self._pending: list[str] = []  # text admitted but not counted yet
        self._pending_bytes = 0
        self.reached = False
        self._broken = False  # the counter failed: leave the limit to the editor

    async def admit(self, parts: list[ResponsePart]) -> list[ResponsePart]:
        if self.reached:
            return []
        if self._broken:
            return parts
        texts = [part_text(p) for p in parts]
        size = sum(_bytes(t) for t in texts)
        if self._tokens + self._pending_bytes + size <= self.limit:
            self._pending.extend(texts)
            self._pending_bytes += size
            return parts
        try:
            return await self._admit_counted(parts, texts)
        except EditorError as exc:
            log.warning(
                "The editor could not count output tokens (%s); max_output_tokens is left to "
                "the editor",
                exc.code,
            )
            self._broken = True
            return parts

    async def _admit_counted(
        self, parts: list[ResponsePart], texts: list[str]
    ) -> list[ResponsePart]:
        pending, batch = "".join(self._pending), "".join(texts)
        self._pending, self._pending_bytes = [], 0
        together = await self._count(pending + batch) if pending + batch else 0
        if self._tokens + together <= self.limit:
            self._tokens += together
            return parts
        self._tokens += await self._count(pending) if pending else 0
        admitted: list[ResponsePart] = []
        for part, text in zip(parts, texts, strict=True):
            cost = await self._count(text) if text else 0
            if self._tokens + cost <= self.limit:
                self._tokens += cost
                admitted.append(part)
                continue
            self.reached = True
            cut = await self._cut(part, text)
            if cut is not None:
                admitted.append(cut)
            break
        return admitted

    async def _cut(self, part: ResponsePart, text: str) -> ResponsePart | None:
        """The longest prefix of a text or thinking part that still fits (None if nothing)."""
        if not isinstance(part, (TextPart, ThinkingPart)):
            return None  # a tool call cut short would be invalid JSON: it is dropped
        room = self.limit - self._tokens
        low, high = 0, len(text)  # text[:low] fits, text[:high + 1] does not
        while low < high:
            middle = (low + high + 1) // 2
            if await self._count(text[:middle]) <= room:
                low = middle
            else:
                high = middle - 1
        if low == 0:
            return None
        self._tokens += await self._count(text[:low])
        return replace(part, value=text[:low])
