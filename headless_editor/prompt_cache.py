"""The simulated models' prompt cache: how many of a request's input tokens a provider's cache
would serve, from the longest common prefix (in tokens) with a recent request to the same model.

The rendered input is the request as a provider reads it, in order: the tools first (names,
descriptions, schemas: providers put them before the conversation), Copilot's system prompt,
then every message, its role and every part. Each unit of the rendering is one token as
`tokens.py` counts it, so a request's units are exactly its `prompt_tokens`; a role, a call id
or an image's bytes ride on the token they come with, so any change there breaks the prefix as
it would break a real cache.

The prefix is found exact to the token, which makes a test of prefix stability sharp: one token
changed inside the history shows up as the whole rest of the prompt uncached. What a provider
bills of it (OpenAI's 128-token steps after 1,024, Anthropic's breakpoints, ...) is the model's
`CachePolicy` (cache_billing.py); the default policy bills the exact prefix.

Memory is bounded: per model the last `MAX_ENTRIES` prompts, at most `MAX_CHARS` characters
in all (the oldest go first); there are only as many models as the editor offers.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass

from bridge.core.parts import (
    ChatMessage,
    DataPart,
    MessagePart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from headless_editor.cache_billing import EXACT, CachePolicy, billed
from headless_editor.chat_types import ChatTool
from headless_editor.message_memo import MessageMemo
from headless_editor.tokens import IMAGE_TOKENS, PIECE, data_text

MAX_ENTRIES = 32
MAX_CHARS = 64 * 1024 * 1024  # of one model's stored renderings
_END = "\x00"  # ends every unit in the stored string; escaped inside units
_STEP = 4096  # characters compared at once before the exact search


def _escaped(unit: str) -> str:
    # Injective, and never produces _END: a unit's end is exactly where its _END is.
    return unit.replace("\x01", "\x01\x01").replace(_END, "\x01\x02")


class _Units:
    """The rendering as it is built: one escaped unit per token, a pending marker carried onto
    the next token (so markers cost no token but still take part in the prefix)."""

    def __init__(self) -> None:
        self.chunks: list[str] = []
        self.marker = ""

    def mark(self, marker: str) -> None:
        self.marker += f"\x01<{marker}>"

    def text(self, text: str) -> None:
        for piece in PIECE.findall(text):
            self.token(piece)

    def token(self, token: str) -> None:
        self.chunks.append(self.marker + _escaped(token) + _END)
        self.marker = ""

    def joined(self) -> str:
        return "".join(self.chunks)


@dataclass(frozen=True)
class Rendering:
    """A request's input as the provider reads it: `text` holds one `_END`-terminated unit per
    token; `head_tokens` of them are the tools and system prompt (Copilot's first breakpoint)."""

    text: str
    head_tokens: int
    tokens: int


def rendering(messages: list[ChatMessage], tools: list[ChatTool], system: str = "") -> Rendering:
    """The rendering of a request, its parts remembered per message (message_memo.py): an
    agent's next request costs what it added, not its whole history again."""
    head_text, head_tokens = _head_of((tools, system))
    pieces = [head_text]
    tokens = head_tokens
    for message in messages:
        text, count = _message_of(message)
        pieces.append(text)
        tokens += count
    return Rendering("".join(pieces), head_tokens, tokens)


def rendered(messages: list[ChatMessage], tools: list[ChatTool], system: str = "") -> str:
    """The request's input as the provider reads it, one `_END`-terminated unit per token."""
    return rendering(messages, tools, system).text


def _with_count(units: _Units) -> tuple[str, int]:
    # A marker still pending (a part without tokens) ends the piece: joined with the next
    # piece it lands on that piece's first token, as in one rendering of the whole request.
    return units.joined() + units.marker, len(units.chunks)


def _head(value: tuple[list[ChatTool], str]) -> tuple[str, int]:
    """What comes before the conversation: the tools, then the system prompt."""
    tools, system = value
    units = _Units()
    for tool in tools:
        units.mark("tool")
        units.text(tool.name)
        units.text(tool.description)
        if tool.inputSchema is not None:
            # Sorted as tokens.py counts it; the order a client wrote stays the client's.
            units.text(json.dumps(tool.inputSchema, sort_keys=True, ensure_ascii=False))
    if system:
        units.mark("system")
        units.text(system)
    return _with_count(units)


def _message(message: ChatMessage) -> tuple[str, int]:
    units = _Units()
    units.mark(f"{message.role}:{message.name or ''}")
    for part in message.content:
        _part(units, part)
    return _with_count(units)


_head_of = MessageMemo(_head)
_message_of = MessageMemo(_message)


def _part(units: _Units, part: MessagePart) -> None:
    if isinstance(part, TextPart):
        units.mark("text")
        units.text(part.value)
    elif isinstance(part, DataPart):
        _data(units, part)
    elif isinstance(part, ToolCallPart):
        units.mark(f"call:{part.callId}")
        units.text(part.name)
        units.text(json.dumps(part.input, sort_keys=True, ensure_ascii=False))
    elif isinstance(part, ThinkingPart):  # an earlier thought given back
        units.mark("thinking")
        units.text(part.value)
    else:
        units.mark(f"result:{part.callId}")
        for item in part.content:
            _part(units, item)


def _data(units: _Units, part: DataPart) -> None:
    if part.mimeType.startswith("image/"):
        # Imported for the first image: hashlib loads OpenSSL's libcrypto (~3 MiB of the idle
        # headless editor's memory, docs/benchmarks.md), which nothing else here needs.
        import hashlib

        digest = hashlib.sha256(part.data.encode("ascii", "replace")).hexdigest()[:16]
        units.mark(f"image:{part.mimeType}")
        for index in range(IMAGE_TOKENS):
            units.token(f"{digest}:{index}")
        return
    units.mark(f"data:{part.mimeType}")
    units.text(data_text(part))


def common_prefix_chars(a: str, b: str) -> int:
    """How many leading characters `a` and `b` share (compared in C, a block at a time)."""
    limit = min(len(a), len(b))
    start = 0
    while start + _STEP <= limit and a[start : start + _STEP] == b[start : start + _STEP]:
        start += _STEP
    low, high = start, min(limit, start + _STEP)
    while low < high:  # the longest equal prefix lies in [low, high]
        middle = (low + high + 1) // 2
        if a[start:middle] == b[start:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def common_prefix_tokens(a: str, b: str) -> int:
    """The whole units (tokens) two renderings share from the start."""
    return a.count(_END, 0, common_prefix_chars(a, b))


class PromptCache:
    """The recent renderings of each model's requests, for the tokens a cache would serve."""

    def __init__(self) -> None:
        # Per model: recent renderings, each with its breakpoints (tokens before each).
        self._recent: dict[str, deque[tuple[str, tuple[int, ...]]]] = {}
        self._chars: dict[str, int] = {}

    def cached_tokens(
        self,
        model: str,
        messages: list[ChatMessage],
        tools: list[ChatTool],
        policy: CachePolicy = EXACT,
        system: str = "",
    ) -> int:
        """The tokens of this request the cache serves under `policy`, from what a recent one
        shares from the start; remembers this one."""
        return self.cached(model, rendering(messages, tools, system), policy)

    def cached(self, model: str, prompt: Rendering, policy: CachePolicy = EXACT) -> int:
        """`cached_tokens` for a request already rendered."""
        text = prompt.text
        # Breakpoints as Copilot sets them: after the tools and system prompt, and at the end.
        breakpoints = (prompt.head_tokens, prompt.tokens)
        recent = self._recent.setdefault(model, deque())
        best = max(
            (billed(policy, common_prefix_tokens(text, old), points) for old, points in recent),
            default=0,
        )
        recent.append((text, breakpoints))
        self._chars[model] = self._chars.get(model, 0) + len(text)
        while len(recent) > MAX_ENTRIES or (len(recent) > 1 and self._chars[model] > MAX_CHARS):
            self._chars[model] -= len(recent.popleft()[0])
        if self._chars[model] > MAX_CHARS:  # one prompt larger than the whole budget
            self._chars[model] -= len(recent.popleft()[0])
        return best


def unit_count(text: str) -> int:
    """The tokens of a rendering (what the request's `prompt_tokens` counts)."""
    return text.count(_END)
