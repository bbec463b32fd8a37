"""The editor counts a chat's input as the chat starts (`countInput`, docs/protocol.md).

Through the real language server and the headless editor in this process, in every dialect:
an input that cannot fit is refused before the model is asked, with the dialect's 400 naming
its input field, whether the editor counts (`countsChatInput`) or, an older editor, the server
counts for it first; and what the editor counted is what Messages' `message_start` states.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest
from recording_model import RecordingModel, running_editor

from bridge.core.backend import CountInput
from bridge.core.counted_text import counted_text
from headless_editor.tokens import count_tokens

TIMEOUT = aiohttp.ClientTimeout(total=60)
WINDOW = 128_000  # sim-echo's maxInputTokens
LONG = " a" * 150_000  # 150,000 of the simulated model's tokens
FITS = " a" * 70_000  # more bytes than the window, fewer tokens: counted, then sent


@dataclass(frozen=True)
class Dialect:
    path: str
    param: str
    headers: tuple[tuple[str, str], ...] = ()

    def body(self, text: str) -> dict[str, Any]:
        user = {"role": "user", "content": text}
        if self.path == "/responses":
            return {"model": "sim-echo", "input": text}
        if self.path == "/messages":
            return {"model": "sim-echo", "max_tokens": 64, "messages": [user]}
        if self.path == "/chat/completions":
            return {"model": "sim-echo", "messages": [user]}
        return {"contents": [{"role": "user", "parts": [{"text": text}]}]}


DIALECTS = {
    "responses": Dialect("/responses", "input"),
    "messages": Dialect("/messages", "messages", (("anthropic-version", "2023-06-01"),)),
    "chat": Dialect("/chat/completions", "messages"),
    "gemini": Dialect("/v1beta/models/sim-echo:generateContent", "contents"),
}


@dataclass(frozen=True)
class Running:
    url: str
    model: RecordingModel
    counts: bool  # the editor said it counts a chat's input (`countsChatInput`)


@pytest.fixture(params=[True, False], ids=["editor-counts", "older-editor"])
async def editor(request: pytest.FixtureRequest) -> AsyncIterator[Running]:
    async with running_editor({"countsChatInput": request.param}) as (url, model):
        yield Running(url, model, request.param)


async def post(url: str, dialect: Dialect, text: str) -> tuple[int, dict[str, Any]]:
    if dialect.path.startswith("/v1beta"):  # Gemini's own root, for Google's error envelope
        url = url.removesuffix("/v1")
    headers = dict(dialect.headers)
    async with (
        aiohttp.ClientSession(timeout=TIMEOUT) as http,
        http.post(url + dialect.path, json=dialect.body(text), headers=headers) as response,
    ):
        return response.status, json.loads(await response.read())


def error_of(name: str, body: dict[str, Any]) -> tuple[str, str | None, str]:
    """(code or status, the named field, message) from each dialect's error envelope."""
    error = body["error"]
    if name == "gemini":
        return error["status"], None, error["message"]
    if name == "messages":
        return error["type"], None, error["message"]
    return error["code"], error["param"], error["message"]


@pytest.mark.parametrize("name", list(DIALECTS))
async def test_an_input_that_cannot_fit_is_refused_before_the_model_is_asked(
    editor: Running, name: str
) -> None:
    model = editor.model
    dialect = DIALECTS[name]
    status, body = await post(editor.url, dialect, LONG)
    assert status == 400, body
    code, param, message = error_of(name, body)
    assert "150000 tokens" in message and f"{WINDOW} tokens" in message
    if name in ("responses", "chat"):
        assert (code, param) == ("context_length_exceeded", dialect.param)
    else:  # Anthropic's and Google's envelopes name no field
        assert code == {"messages": "invalid_request_error", "gemini": "INVALID_ARGUMENT"}[name]
    assert model.requests == []  # the model was never asked
    assert len(model.counted) == 1  # counted once, by the editor or for it


@pytest.mark.parametrize("name", list(DIALECTS))
async def test_an_input_that_fits_is_counted_once_and_answered(editor: Running, name: str) -> None:
    model = editor.model
    status, body = await post(editor.url, DIALECTS[name], FITS)
    assert status == 200, body
    (request,) = model.requests
    # Sent only to an editor that counts; an older one was asked `maestro/countTokens`.
    asked = CountInput(maxTokens=WINDOW, imageTokens=0) if editor.counts else None
    assert request.countInput == asked
    # Counted once, and not again for the usage (Messages' max_tokens counts the output too).
    assert model.counted.count(counted_text(request.messages, request.tools)[0]) == 1


async def test_message_start_states_the_editors_count() -> None:
    async with running_editor({"countsChatInput": True}) as (url, model):
        user = {"role": "user", "content": "hi"}
        body = {"model": "sim-echo", "max_tokens": 64, "messages": [user], "stream": True}
        headers = {"anthropic-version": "2023-06-01"}
        async with (
            aiohttp.ClientSession(timeout=TIMEOUT) as http,
            http.post(url + "/messages", json=body, headers=headers) as response,
        ):
            text = (await response.read()).decode()
        start = next(
            json.loads(line[6:])
            for line in text.splitlines()
            if line.startswith("data: ") and '"message_start"' in line
        )
        (request,) = model.requests
        assert request.countInput == CountInput(maxTokens=0, imageTokens=0)  # count, never refuse
        (counted,) = model.counted  # the editor's one count, as the chat started
        assert counted == counted_text(request.messages, request.tools)[0]
        assert start["message"]["usage"]["input_tokens"] == count_tokens(counted)
