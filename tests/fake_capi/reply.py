"""The answer of a FAKE of GitHub Copilot's cloud (CAPI): the project's simulated model's
reply, cut into the pieces a stream sends (the real cloud cannot be reached here).

The reply is what the headless editor's simulated model answers (sim_replies.default_reply,
or the first matching rule of a test's script, headless_editor/script.py), without its
Copilot re-enactment (the real Copilot now does that part). Thinking comes first when the
request asked for it (Anthropic `thinking`, a Responses `reasoning.effort` other than none).
The output stops at the request's max tokens, or at `[capi length N]`: a length finish.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from bridge.core.parts import ChatMessage, MessagePart, TextPart, ThinkingPart, ToolCallPart
from bridge.core.turn_notes import without_turn_note
from fake_capi.markers import Markers
from fake_capi.upstream import Upstream
from headless_editor.chat_types import request_json
from headless_editor.reply_steps import EchoRequest, Fail, Pause, Reply
from headless_editor.sim_replies import default_reply, thinking
from headless_editor.tokens import count_tool_call_tokens, split_tokens

if TYPE_CHECKING:
    from headless_editor.script import Script

CHUNK_TOKENS = 3  # tokens per streamed text delta

Finish = Literal["stop", "tool_calls", "length", "filter", "midstream", "drop"]


@dataclass(frozen=True)
class Text:
    value: str


@dataclass(frozen=True)
class Thought:
    value: str


@dataclass(frozen=True)
class Call:
    call: ToolCallPart


@dataclass(frozen=True)
class Wait:
    seconds: float


Piece = Text | Thought | Call | Wait


@dataclass
class Turn:
    pieces: list[Piece] = field(default_factory=list)
    finish: Finish = "stop"
    output_tokens: int = 0
    reasoning_tokens: int = 0
    error: str = ""  # the failure's message, for a midstream failure

    @property
    def text(self) -> str:
        return "".join(p.value for p in self.pieces if isinstance(p, Text))

    @property
    def calls(self) -> list[ToolCallPart]:
        return [p.call for p in self.pieces if isinstance(p, Call)]


def answer(upstream: Upstream, markers: Markers, script: Script | None = None) -> Turn:
    request = upstream.request
    matched = (
        script.match(_without_reminders(without_turn_note(request.messages)))
        if script is not None
        else None
    )
    reply: Reply = list(default_reply(request)) if matched is None else matched.reply
    if upstream.thinking:
        reply = thinking(without_turn_note(request.messages), reply) + reply
    limits = [n for n in (upstream.max_output, markers.length) if n is not None]
    if matched is not None and matched.rule.ignore_max_output_tokens:
        limits = [n for n in (markers.length,) if n is not None]
    turn = _cut(reply, min(limits) if limits else None, upstream)
    if turn.finish == "stop" and markers.filter:
        turn.finish = "filter"
    if turn.finish == "stop" and markers.midstream is not None:
        _fail_midway(turn, markers.midstream)
    if turn.finish == "stop" and turn.calls:
        turn.finish = "tool_calls"
    return turn


def _is_reminder(part: MessagePart) -> bool:
    text = part.value.strip() if isinstance(part, TextPart) else ""
    return text.startswith("<system-reminder>") and text.endswith("</system-reminder>")


def _without_reminders(messages: list[ChatMessage]) -> list[ChatMessage]:
    """The conversation without the `<system-reminder>` text blocks Claude Code puts after a
    turn's last input (a token count, MCP instructions): a test's script rule is keyed on
    that input, as a person reads the turn."""
    if not messages or messages[-1].role != "user":
        return messages
    content = list(messages[-1].content)
    while len(content) > 1 and _is_reminder(content[-1]):
        content.pop()
    return [*messages[:-1], ChatMessage(role="user", content=content)]


def _cut(reply: Reply, limit: int | None, upstream: Upstream) -> Turn:
    turn = Turn()
    for part in reply:
        if isinstance(part, Pause):
            turn.pieces.append(Wait(part.seconds))
            continue
        if isinstance(part, Fail):
            turn.finish, turn.error = "midstream", part.message
            return turn
        if isinstance(part, EchoRequest):
            part = TextPart(value=request_json(upstream.request))
        if isinstance(part, ToolCallPart):
            cost = count_tool_call_tokens(part.name, part.input)
            if limit is not None and turn.output_tokens + cost > limit:
                turn.finish = "length"
                return turn
            turn.output_tokens += cost
            turn.pieces.append(Call(part))
        elif isinstance(part, TextPart | ThinkingPart):
            pieces = split_tokens(part.value)
            room = len(pieces) if limit is None else max(0, limit - turn.output_tokens)
            kept = pieces[:room]
            turn.output_tokens += len(kept)
            for i in range(0, len(kept), CHUNK_TOKENS):
                chunk = "".join(kept[i : i + CHUNK_TOKENS])
                turn.pieces.append(
                    Thought(chunk) if isinstance(part, ThinkingPart) else Text(chunk)
                )
            if isinstance(part, ThinkingPart):
                turn.reasoning_tokens += len(kept)
            if len(kept) < len(pieces):
                turn.finish = "length"
                return turn
    return turn


def _fail_midway(turn: Turn, how: str) -> None:
    """Keep the first half of the text (at least one delta), then fail."""
    texts = [i for i, p in enumerate(turn.pieces) if isinstance(p, Text)]
    keep = texts[max(0, len(texts) // 2 - 1)] + 1 if texts else 0
    turn.pieces = turn.pieces[:keep]
    turn.finish = "drop" if how == "drop" else "midstream"
    turn.error = "The fake CAPI's stream failed midway ([capi midstream])"
