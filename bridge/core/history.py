"""Tool-call history the model providers accept (pure functions over the editor's messages).

Providers behind the editor reject a history in which a tool call has no result right after it
("tool_use ids were found without tool_result blocks") or a result has no call before it ("No
tool call found for function call output"). Clients do send such histories: a cancelled call,
a trimmed conversation, a resumed session, an id reused. The rules, applied turn by turn:

- the results of an assistant turn's calls are looked for in the user messages that follow it
  (up to the next assistant message) and placed first in the first of them, in call order;
- a call without a result, and a result without its call, become labelled text in place, so
  the model still reads what happened; the label says whether the result's call is elsewhere
  in the conversation, or whether it is a further, different result of a call already answered;
- an exact repeat of a call (same id, name and input) in one turn, and an exact repeat of its
  result, are dropped; a call id that an earlier turn used already gets a suffix, so each
  call pairs with its own result;
- everything else keeps its order.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict, deque

from msgspec.structs import replace

from bridge.core.backend import ChatMessage, MessagePart, TextPart, ToolCallPart, ToolResultPart

log = logging.getLogger(__name__)


def normalise_tool_history(messages: list[ChatMessage]) -> list[ChatMessage]:
    """The same conversation with every tool call paired with its result (input not changed)."""
    if _already_paired(messages):
        return list(messages)  # what clients send nearly always: one pass, nothing built
    out: list[ChatMessage] = []
    used_ids = _CallIds()
    all_calls = _AllCalls(messages)
    index, count = 0, len(messages)
    while index < count:
        message = messages[index]
        calls = (
            [p for p in message.content if type(p) is ToolCallPart]
            if message.role == "assistant"
            else None
        )
        if calls:
            end = index + 1
            while end < count and messages[end].role == "user":
                end += 1
            followers = messages[index + 1 : end]
            if _paired_in_place(calls, followers, used_ids):
                out.append(message)  # nearly every turn: the rules below would change nothing
                out.extend(followers)
            else:
                out.extend(_turn(message, followers, used_ids, all_calls))
            index = end
        else:
            out.append(_without_tool_parts(message, all_calls))
            index += 1
    return [m for m in out if m.content]


def _already_paired(messages: list[ChatMessage]) -> bool:
    """True when the rules would change nothing in the whole conversation: every turn is as
    `_paired_in_place` takes it, no message outside a turn holds a call or a result, and none
    is empty. One loop over the parts: a long history is thousands of them, on every request."""
    used: set[str] = set()
    pending: list[ToolCallPart] | None = None  # calls whose results must open the next message
    in_turn = False  # in the user messages after an assistant message with calls
    for message in messages:
        content = message.content
        if not content:
            return False
        if message.role == "assistant":
            if pending is not None:
                return False  # calls with no user message after them
            calls: list[ToolCallPart] | None = None
            result_here = False
            for part in content:
                kind = type(part)
                if kind is ToolCallPart:
                    if calls is None:
                        calls = [part]  # type: ignore[list-item]
                    else:
                        calls.append(part)  # type: ignore[arg-type]
                elif kind is ToolResultPart:
                    result_here = True
            if calls is None and result_here:
                return False  # a result in a message outside a turn becomes text
            pending, in_turn = calls, calls is not None
            continue
        rest = content
        if pending is not None:
            count = len(pending)
            if len(content) < count:
                return False
            for call, result in zip(pending, content, strict=False):
                call_id = call.callId
                if (
                    type(result) is not ToolResultPart
                    or result.callId != call_id
                    or call_id in used  # an earlier turn's id, or one twice in this turn
                ):
                    return False
                used.add(call_id)
            pending = None
            if len(content) == count:
                continue  # nearly always: the results are the whole message
            rest = content[count:]
        for part in rest:
            kind = type(part)
            if kind is ToolResultPart or (kind is ToolCallPart and not in_turn):
                return False
    return pending is None


def _paired_in_place(
    calls: list[ToolCallPart], followers: list[ChatMessage], used_ids: _CallIds
) -> bool:
    """True (and the ids taken) when a turn already is what `_turn` makes of it: its calls'
    results open the next message in call order, one each, under ids not used before, and no
    other result follows. Any other turn goes through `_turn`."""
    if not followers:
        return False
    first = followers[0].content
    if len(first) < len(calls):
        return False
    used = used_ids.used
    ids = set()
    for call, result in zip(calls, first, strict=False):
        call_id = call.callId
        if type(result) is not ToolResultPart or result.callId != call_id or call_id in used:
            return False
        ids.add(call_id)
    if len(ids) != len(calls):  # an id twice in one turn: a repeat, or a call without result
        return False
    for part in first[len(calls) :]:
        if type(part) is ToolResultPart:
            return False
    for follower in followers[1:]:
        for part in follower.content:
            if type(part) is ToolResultPart:
                return False
    for call_id in ids:
        used_ids.unique(call_id)  # unused: each keeps its id, and is taken from now on
    return True


class _AllCalls:
    """The call ids of the whole conversation, gathered only when a label needs them."""

    def __init__(self, messages: list[ChatMessage]) -> None:
        self._messages = messages
        self._ids: set[str] | None = None

    def __contains__(self, call_id: str) -> bool:
        if self._ids is None:
            self._ids = {
                p.callId for m in self._messages for p in m.content if type(p) is ToolCallPart
            }
        return call_id in self._ids


def _turn(
    assistant: ChatMessage, followers: list[ChatMessage], used_ids: _CallIds, all_calls: _AllCalls
) -> list[ChatMessage]:
    """One assistant message with calls, and the user messages after it."""
    waiting: dict[str, deque[ToolResultPart]] = defaultdict(deque)
    for follower in followers:
        for part in follower.content:
            if isinstance(part, ToolResultPart):
                waiting[part.callId].append(part)

    assistant_parts: list[MessagePart] = []
    paired: list[ToolResultPart] = []
    taken: set[int] = set()  # id() of the result parts that found their call
    # By the client's call id, as hashable keys: a list to search made n results cost n * n.
    paired_contents: dict[str, set[tuple[str, ...]]] = defaultdict(set)
    calls_seen: dict[str, ToolCallPart] = {}
    for part in assistant.content:
        if not isinstance(part, ToolCallPart):
            assistant_parts.append(part)
            continue
        earlier = calls_seen.get(part.callId)
        if earlier is not None and (earlier.name, earlier.input) == (part.name, part.input):
            log.info("Dropping a repeated tool call with call id %s", part.callId)
            continue
        calls_seen[part.callId] = part
        if not waiting[part.callId]:
            assistant_parts.append(TextPart(value=call_as_text(part)))
            continue
        result = waiting[part.callId].popleft()
        taken.add(id(result))
        paired_contents[part.callId].add(_content_key(result))
        new_id = used_ids.unique(part.callId)
        if new_id == part.callId:  # nearly always: the parts as they are (nothing changes them)
            assistant_parts.append(part)
            paired.append(result)
        else:
            assistant_parts.append(replace(part, callId=new_id))
            paired.append(replace(result, callId=new_id))

    rest: list[ChatMessage] = []
    for follower in followers:
        parts: list[MessagePart] = []
        for part in follower.content:
            if not isinstance(part, ToolResultPart):
                parts.append(part)
            elif id(part) in taken:
                continue
            elif _content_key(part) in paired_contents.get(part.callId, ()):
                log.info("Dropping a repeated tool result for call id %s", part.callId)
            elif part.callId in paired_contents:
                parts.extend(result_as_parts(part, FURTHER_RESULT))
            else:
                parts.extend(result_as_parts(part, _where(part, all_calls)))
        rest.append(ChatMessage(role="user", content=parts, name=follower.name))
    if paired:
        if rest:
            rest[0] = ChatMessage(
                role="user", content=[*paired, *rest[0].content], name=rest[0].name
            )
        else:  # cannot happen: results come from the followers
            rest.append(ChatMessage(role="user", content=list(paired)))
    return [ChatMessage(role="assistant", content=assistant_parts, name=assistant.name), *rest]


def _content_key(result: ToolResultPart) -> tuple[str, ...]:
    """A result's content as a hashable value: equal keys exactly when the contents are equal."""
    key: list[str] = []
    for part in result.content:
        if isinstance(part, TextPart):
            key += ("text", part.value)
        else:
            key += ("data", part.mimeType, part.data)
    return tuple(key)


class _CallIds:
    """The call ids given out so far; a reused id gets the first free suffix `_2`, `_3`...

    Each id remembers the last suffix it got, so that one id reused n times costs n steps,
    not n * n / 2 (10,000 calls with one id took 3 s of the event loop).
    """

    def __init__(self) -> None:
        self.used: set[str] = set()
        self._last_suffix: dict[str, int] = {}

    def unique(self, call_id: str) -> str:
        # Suffixes below the remembered one were all taken, and `used` only grows.
        n = self._last_suffix.get(call_id, 1)
        new_id = call_id if n == 1 else f"{call_id}_{n}"
        while new_id in self.used:
            n += 1
            new_id = f"{call_id}_{n}"
        self._last_suffix[call_id] = n
        self.used.add(new_id)
        return new_id


def _without_tool_parts(message: ChatMessage, all_calls: _AllCalls) -> ChatMessage:
    """A message outside a tool turn: its calls or results cannot pair with anything."""
    for part in message.content:
        if type(part) is ToolCallPart or type(part) is ToolResultPart:
            break
    else:
        return message
    parts: list[MessagePart] = []
    for part in message.content:
        if isinstance(part, ToolResultPart):
            parts.extend(result_as_parts(part, _where(part, all_calls)))
        elif isinstance(part, ToolCallPart):
            parts.append(TextPart(value=call_as_text(part)))
        else:
            parts.append(part)
    return ChatMessage(role=message.role, content=parts, name=message.name)


def call_as_text(call: ToolCallPart) -> str:
    arguments = json.dumps(call.input, ensure_ascii=False)
    return (
        f"[Tool call {call.name} (call id {call.callId}) with input {arguments}; "
        "its result is not in the conversation.]"
    )


# Why a result could not be paired, as its label says it ("Result of tool call ID, ...").
NO_CALL = "whose call is not in the conversation"
CALL_ELSEWHERE = "whose call is elsewhere in the conversation, not right before it"
FURTHER_RESULT = "a further, different result of a call whose first result is above"


def _where(result: ToolResultPart, all_calls: _AllCalls) -> str:
    return CALL_ELSEWHERE if result.callId in all_calls else NO_CALL


def result_as_parts(result: ToolResultPart, reason: str = NO_CALL) -> list[MessagePart]:
    """A result that cannot be paired with its call: a label, then its text and images."""
    label = TextPart(value=f"[Result of tool call {result.callId}, {reason}:]")
    return [label, *result.content]
