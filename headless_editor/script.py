"""The `--script FILE` format: rules that make the simulated model answer as a test needs.

```json
{"rules": [{"match": "list the files",
            "reply": [{"type": "thinking", "text": "The user wants a listing."},
                      {"type": "text", "text": "Listing them."},
                      {"type": "tool_call", "name": "exec_command", "arguments": {"cmd": "ls"}}]}]}
```

The first rule whose `match` regex is found (`re.search`) in the text of the last input item
answers: the last message's text, or, when the conversation ends with tool results, the last
tool result's text. A `tool_call` whose
`arguments` is a string calls a custom tool (such as `apply_patch`), whose editor-side input
is `{"input": "<string>"}`. An `error` part makes the editor fail the request there, with a
`code` (VS Code's LanguageModelError code, default `Other`), a `message` and the `name` of the
error the provider throws (`{"type": "error", "name": "ChatQuotaExceeded", "message": ...}`:
what Copilot throws, for a test of how the bridge answers it); a rule
with `times` answers only that many times (then the next matching rule does), so a test can
fail a first request and answer its retry. A `request` part answers with the editor's chat
request as JSON text (what reached the editor: a test through a real `serve` reads it back).
"""

from __future__ import annotations

import copy
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from bridge.core.parts import (
    ChatMessage,
    EditorErrorCode,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from headless_editor.reply_steps import EchoRequest, Fail, Pause, Reply, last_item_text


class ScriptError(ValueError):
    """The script cannot be used; the message says why and where."""


class _Strict(BaseModel):
    # Scripts are written by hand: a misspelt key must be an error, not silently ignored.
    model_config = ConfigDict(extra="forbid")


class TextReply(_Strict):
    type: Literal["text"]
    text: str


class ThinkingReply(_Strict):
    type: Literal["thinking"]
    text: str


class ToolCallReply(_Strict):
    type: Literal["tool_call"]
    name: str = Field(min_length=1)
    arguments: dict[str, Any] | str = Field(default_factory=dict)


class PauseReply(_Strict):
    """Silence before the next part: a slow model (a test of keepalives and timeouts)."""

    type: Literal["pause"]
    seconds: float = Field(gt=0, le=300)


class RequestReply(_Strict):
    """The editor's chat request itself, as JSON text: what the bridge sent the editor."""

    type: Literal["request"]


class ErrorReply(_Strict):
    """The editor fails the request here, as VS Code does for a rate limit (`Blocked`), a
    refused consent (`NoPermissions`)...: before any part or mid-answer."""

    type: Literal["error"]
    code: EditorErrorCode = "Other"
    message: str = "The scripted model failed."
    # The Error.name the provider throws with (Copilot's `ChatQuotaExceeded`,
    # `ChatRateLimited`; `LanguageModelError` for VS Code's own codes); "" for none.
    name: str = ""


ReplyPart = Annotated[
    TextReply | ThinkingReply | ToolCallReply | PauseReply | ErrorReply | RequestReply,
    Field(discriminator="type"),
]


class Rule(_Strict):
    match: str
    reply: list[ReplyPart]
    # Like a provider that ignores the max_tokens option: the whole reply is sent.
    ignore_max_output_tokens: bool = False
    # Answer at most this many requests (counted per server), then let later rules answer.
    times: int | None = Field(default=None, ge=1)
    _pattern: re.Pattern[str] = PrivateAttr()
    _answered: int = PrivateAttr(default=0)

    @field_validator("match")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"invalid regular expression {value!r}: {exc}") from None
        return value

    def model_post_init(self, context: Any, /) -> None:
        self._pattern = re.compile(self.match)

    def matches(self, text: str) -> bool:
        return self._pattern.search(text) is not None

    def take(self, text: str) -> bool:
        """True when this rule answers `text` (counting the answer against `times`)."""
        if not self.matches(text) or (self.times is not None and self._answered >= self.times):
            return False
        self._answered += 1
        return True


class Script(_Strict):
    rules: list[Rule]

    def reply_for(self, messages: list[ChatMessage]) -> Reply | None:
        """The reply of the first rule that matches the last part, or None if none does."""
        found = self.match(messages)
        return None if found is None else found.reply

    def match(self, messages: list[ChatMessage]) -> Matched | None:
        """The first rule that matches the last part, with its reply; None if none does."""
        text = last_item_text(messages)
        for index, rule in enumerate(self.rules):
            if rule.take(text):
                return Matched(rule, _reply_parts(rule, index, turn=len(messages)))
        return None


@dataclass(frozen=True)
class Matched:
    rule: Rule
    reply: Reply


def load_script(path: str | os.PathLike[str]) -> Script:
    try:
        raw = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ScriptError(f"cannot read script {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ScriptError(f"script {path} is not UTF-8 text") from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ScriptError(
            f"script {path} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    try:
        return Script.model_validate(data)
    except ValidationError as exc:
        problems = "\n".join(
            f"  {_location(error['loc'])}: {_message(error['msg'])}" for error in exc.errors()
        )
        raise ScriptError(f"script {path} is invalid:\n{problems}") from None


def _reply_parts(rule: Rule, index: int, turn: int) -> Reply:
    parts: Reply = []
    calls = 0
    for reply in rule.reply:
        if isinstance(reply, TextReply):
            parts.append(TextPart(value=reply.text))
        elif isinstance(reply, ThinkingReply):
            parts.append(ThinkingPart(value=reply.text))
        elif isinstance(reply, PauseReply):
            parts.append(Pause(reply.seconds))
        elif isinstance(reply, ErrorReply):
            parts.append(Fail(reply.code, reply.message, reply.name))
        elif isinstance(reply, RequestReply):
            parts.append(EchoRequest())
        else:
            arguments = reply.arguments
            # The turn (message count) keeps ids unique when a rule fires again later in the
            # same conversation, without the model keeping any state.
            parts.append(
                ToolCallPart(
                    callId=f"call_script_{index}_{turn}_{calls}",
                    name=reply.name,
                    input={"input": arguments}
                    if isinstance(arguments, str)
                    else copy.deepcopy(arguments),
                )
            )
            calls += 1
    return parts


def _location(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(item) for item in loc) or "(top level)"


def _message(msg: str) -> str:
    return msg.removeprefix("Value error, ")
