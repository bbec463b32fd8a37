"""Every dialect through the real GitHub Copilot provider (Copilot Chat 0.67, built into
code-server) and a fake of its cloud (tests/fake_capi/, tests/copilot_host.py):

    client -> bridge -> lsp -> extension -> vscode.lm -> Copilot 0.67 -> fake CAPI

Each test asserts on what reached the fake cloud (what Copilot made of the bridge's request)
as well as on what came back to the client. Fails when Copilot does not come up, and under $CI
when code-server is missing (skipped elsewhere, as every VS Code test is).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from copilot_cloud import nonce, upstream
from copilot_host import copilot_fixtures
from dialect_calls import DIALECTS, Dialect, Outcome, body_for, call
from fake_capi import FakeCapi, Recorded
from vscode_host import VSCodeHost

pytestmark = pytest.mark.timeout(600)

capi, vscode = copilot_fixtures()

# One model per upstream API Copilot speaks: OpenAI chat, Responses, Anthropic Messages, and
# Gemini (which Copilot serves over the chat API).
FAMILIES = {
    "gpt-4.1": "/chat/completions",
    "gpt-5-mini": "/responses",
    "claude-sonnet-4.5": "/v1/messages",
    "gemini-2.5-pro": "/chat/completions",
}
COPILOT_SYSTEM_PROMPT = "Keep your answers short and impersonal."


def root(host: VSCodeHost) -> str:
    return host.base_url.removesuffix("/v1")


def system_text(request: Recorded) -> str:
    """The system prompt Copilot sent, in whichever API shape."""
    body: dict[str, Any] = request.body
    if "system" in body:  # Messages
        system = body["system"]
        return system if isinstance(system, str) else "".join(b["text"] for b in system)
    if "input" in body:  # Responses
        first = body["input"][0]
        if first.get("role") in ("system", "developer"):
            content = first["content"]
            return content if isinstance(content, str) else "".join(c["text"] for c in content)
        return str(body.get("instructions") or "")
    first = body["messages"][0]
    assert first["role"] == "system", body["messages"]
    content = first["content"]
    return content if isinstance(content, str) else "".join(c["text"] for c in content)


def ask(
    host: VSCodeHost, dialect: Dialect, model: str, text: str, *, stream: bool, **options: Any
) -> Outcome:
    return call(
        root(host), dialect, body_for(dialect, model, text, **options), stream=stream, model=model
    )


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("model", list(FAMILIES))
@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_dialect_reaches_every_family(
    vscode: VSCodeHost, capi: FakeCapi, dialect: Dialect, model: str, stream: bool
) -> None:
    marker = nonce()
    outcome = ask(vscode, dialect, model, f"Hello {marker}", stream=stream)
    assert outcome.status == 200, f"{outcome}\n{vscode.diagnostics()}"
    assert outcome.text == f"You said: Hello {marker}", outcome
    assert outcome.finish == "stop", outcome
    assert outcome.usage["input"] > 0 and outcome.usage["output"] > 0, outcome
    # Copilot's stateful marker (Responses-API models) is the bridge's to drop.
    assert "stateful_marker" not in outcome.reply.text and "\\resp_" not in outcome.reply.text
    sent = upstream(capi, marker)
    assert sent.path == FAMILIES[model], sent.path
    assert sent.body["model"] == model
    assert COPILOT_SYSTEM_PROMPT in system_text(sent)
    assert (sent.header("x-onbehalf-extension-id") or "").startswith("maestro.maestro-bridge/")


# What each failure of Copilot's cloud becomes, in every dialect: the status, and a word of the
# dialect's error body that says what happened. One model per upstream API Copilot speaks.
ERROR_MODELS = ("gpt-4.1", "gpt-5-mini", "claude-sonnet-4.5")
CAPI_FAILURES = {
    "[capi 400]": (400, "the fake CAPI was asked to refuse"),
    "[capi 400 blank]": (400, "answered 400"),
    "[capi 402]": (429, "quota"),
    "[capi 429 7]": (429, ""),
    "[capi filter]": (400, "content filter"),
    # A cloud stream that fails part-way: Copilot 0.67 reports none of the answer's text
    # before the failure, so the client gets the error before any output, streaming or not.
    "[capi midstream]": (502, ""),
    "[capi midstream drop]": (502, "other side closed"),
}


@pytest.mark.parametrize("marker", list(CAPI_FAILURES))
@pytest.mark.parametrize("dialect", DIALECTS)
def test_each_cloud_failure_has_its_status_in_each_dialect(
    vscode: VSCodeHost, capi: FakeCapi, dialect: Dialect, marker: str
) -> None:
    status, words = CAPI_FAILURES[marker]
    for model in ERROR_MODELS:
        for stream in (False, True):
            outcome = ask(vscode, dialect, model, f"Fail {nonce()} {marker}", stream=stream)
            assert outcome.status == status, f"{model}: {outcome}"
            assert words in json.dumps(outcome.error), f"{model}: {outcome}"
            if marker.startswith("[capi 429"):
                assert int(outcome.reply.headers["retry-after"]) >= 1, outcome.reply.headers


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_prompt_over_the_window_is_the_dialects_context_error(
    vscode: VSCodeHost, capi: FakeCapi, dialect: Dialect
) -> None:
    """CAPI refuses a prompt over the model's limit with `model_max_prompt_tokens_exceeded`;
    each dialect answers with the error its clients act on (Claude Code compacts on Anthropic's
    "prompt is too long", the OpenAI SDKs know `context_length_exceeded`)."""
    for model in ERROR_MODELS:
        outcome = ask(vscode, dialect, model, f"Too long {nonce()} [capi context]", stream=True)
        assert outcome.status == 400, outcome
        error = outcome.error or {}
        if dialect == "messages":
            assert error["error"]["type"] == "invalid_request_error", outcome
            assert error["error"]["message"].startswith("prompt is too long: "), outcome
        elif dialect == "gemini":
            assert error["error"]["status"] == "INVALID_ARGUMENT", outcome
            assert "exceeds the maximum number of tokens" in error["error"]["message"], outcome
        else:
            assert error["error"]["code"] == "context_length_exceeded", outcome


@pytest.mark.parametrize("dialect", DIALECTS)
def test_an_answer_cut_at_the_output_limit_ends_as_length_limited(
    vscode: VSCodeHost, capi: FakeCapi, dialect: Dialect
) -> None:
    """Copilot 0.67 passes on the partial text of a `length` finish with no error; the bridge
    still tells the client the answer was cut (finish `length`, stop `max_tokens`...)."""
    for model in ERROR_MODELS:
        marker = nonce()
        # The echo is ~50 tokens; a reasoning model thinks ~40 of its limit away first.
        limit = 60 if model == "gpt-5-mini" else 20
        prompt = f"Cut {marker} short: " + "one two three four five six seven " * 4
        outcome = ask(vscode, dialect, model, prompt, stream=True, max_tokens=limit)
        assert outcome.status == 200, outcome
        assert outcome.finish == "length", f"{model}: {outcome}"
        assert outcome.text, (model, outcome)
        assert f"You said: {prompt}".startswith(outcome.text), (model, outcome.text)
        sent = upstream(capi, marker).body
        assert sent.get("max_tokens", sent.get("max_output_tokens")) == limit, sent
