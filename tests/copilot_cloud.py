"""What the VS Code tests that run on the real Copilot provider (tests/copilot_host.py) read
from and tell the fake of Copilot's cloud (tests/fake_capi/): the requests that carry a test's
marker, their text and usage as the fake billed them, and a test's script of answers.

    client -> bridge -> lsp -> extension -> vscode.lm -> Copilot 0.67 -> fake CAPI
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Iterator
from typing import Any

from fake_capi import FakeCapi, Recorded
from fake_capi.prompt_tokens import prompt_of

from headless_editor.script import Script
from headless_editor.tokens import split_tokens

GPT = "gpt-4.1"  # upstream /chat/completions
RESPONSES_MODEL = "gpt-5-mini"  # upstream /responses
CLAUDE = "claude-sonnet-4.5"  # upstream /v1/messages
GEMINI = "gemini-2.5-pro"  # upstream /chat/completions


def nonce() -> str:
    return uuid.uuid4().hex[:10]


def sent_with(capi: FakeCapi, marker: str) -> list[Recorded]:
    """The model requests the fake cloud got whose body carries `marker`, oldest first."""
    return [r for r in capi.requests if r.body is not None and marker in json.dumps(r.body)]


def upstream(capi: FakeCapi, marker: str) -> Recorded:
    """The one model request the fake cloud got whose body carries `marker`."""
    found = sent_with(capi, marker)
    assert len(found) == 1, [r.path for r in capi.requests]
    return found[0]


def prompt_tokens(request: Recorded) -> int:
    """The prompt tokens the fake billed for `request` (its usage's input tokens)."""
    return prompt_of(request.body, request.path).tokens


def output_tokens(*texts: str) -> int:
    """The output tokens the fake bills for an answer of these texts."""
    return sum(len(split_tokens(text)) for text in texts)


def text_of(content: Any) -> str:
    """The text of a message's content in any upstream shape: a string, or a list of text
    parts/blocks (`text`, `input_text`, `output_text`)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


@contextlib.contextmanager
def scripted(capi: FakeCapi, rules: list[dict[str, Any]]) -> Iterator[FakeCapi]:
    """The fake cloud answering by these script rules (headless_editor/script.py; matched on
    the last input's text), then by its default again."""
    capi.script = Script.model_validate({"rules": rules})
    try:
        yield capi
    finally:
        capi.script = None


def call_rule(match: str, name: str, arguments: Any, text: str = "") -> dict[str, Any]:
    """Once, for a last input matching `match`: some text, then a call of tool `name`."""
    reply: list[dict[str, Any]] = [{"type": "text", "text": text or f"Calling {name}."}]
    reply.append({"type": "tool_call", "name": name, "arguments": arguments})
    return {"match": match, "times": 1, "reply": reply}


def text_rule(match: str, text: str, times: int | None = 1) -> dict[str, Any]:
    rule: dict[str, Any] = {"match": match, "reply": [{"type": "text", "text": text}]}
    if times is not None:
        rule["times"] = times
    return rule


def thinking_of(prompt: str) -> str:
    """The thinking the fake sends before a plain answer to `prompt` when Copilot asked for
    thinking (headless_editor/sim_replies.py `thinking`)."""
    snippet = " ".join(prompt.split())
    if len(snippet) > 40:
        snippet = snippet[:40] + "..."
    return f'Considering the request: "{snippet}". The plan: answer in text. Writing the reply now.'
