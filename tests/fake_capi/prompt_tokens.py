"""The prompt of a request to a FAKE of GitHub Copilot's cloud (CAPI), as tokens.

The real cloud cannot be reached here, and its o200k tokenizer is not available offline, so
this FAKE counts with the project's deterministic estimate (headless_editor/tokens.py: a word
piece of at most 4 characters or one punctuation mark is a token). The prompt is read in the
order a provider reads it (tools, then system, then the conversation), each block rendered as
canonical JSON (sorted keys, `cache_control` left out) and cut into tokens, so two requests
share a token prefix exactly when they share that prefix of blocks. A block marked with
`cache_control` (Anthropic; `copilot_cache_control` in chat bodies) is a cache breakpoint: the
token count up to its end is kept in `breakpoints`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from fake_capi.catalogue import CHAT, MESSAGES
from headless_editor.tokens import PIECE

_MARKS = ("cache_control", "copilot_cache_control")


@dataclass
class Prompt:
    units: list[str] = field(default_factory=list)
    breakpoints: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)  # the token count at each block's end

    @property
    def tokens(self) -> int:
        return len(self.units)

    def block(self, kind: str, value: Any) -> None:
        marked = isinstance(value, dict) and any(key in value for key in _MARKS)
        if isinstance(value, dict):
            value = {k: v for k, v in value.items() if k not in _MARKS}
        text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
        pieces = PIECE.findall(text) or [""]
        pieces[0] = f"<{kind}>" + pieces[0]  # the block's kind rides on its first token
        self.units.extend(pieces)
        self.ends.append(len(self.units))
        if marked:
            self.breakpoints.append(len(self.units))


def prompt_of(body: dict[str, Any], api: str) -> Prompt:
    prompt = Prompt()
    for tool in body.get("tools") or []:
        prompt.block("tool", tool)
    if api == MESSAGES:
        system = body.get("system")
        for block in [system] if isinstance(system, str) else system or []:
            prompt.block("system", block)
        for message in body.get("messages") or []:
            _message(prompt, message)
    elif api == CHAT:
        for message in body.get("messages") or []:
            _message(prompt, message)
    else:
        if isinstance(body.get("instructions"), str):
            prompt.block("instructions", body["instructions"])
        items = body.get("input")
        for item in [{"role": "user", "content": items}] if isinstance(items, str) else items or []:
            prompt.block("item", item)
    return prompt


def _message(prompt: Prompt, message: Any) -> None:
    if not isinstance(message, dict):
        prompt.block("message", message)
        return
    role = str(message.get("role", ""))
    content = message.get("content")
    rest = {k: v for k, v in message.items() if k not in ("role", "content", *_MARKS)}
    if isinstance(content, list):
        for block in content:
            prompt.block(role, block)
    elif content is not None:
        prompt.block(role, {"type": "text", "text": content, **_marks_of(message)})
    if rest:
        prompt.block(role, rest)


def _marks_of(message: dict[str, Any]) -> dict[str, Any]:
    return {k: message[k] for k in _MARKS if k in message}
