"""The classification of editor failures (bridge/core/editor_failures.py) and the HTTP error
each one becomes (bridge/core/errors.py), with the names and messages Copilot throws."""

from __future__ import annotations

import json

import pytest
from pygls.exceptions import JsonRpcException

from bridge.anthropic.errors import anthropic_error_body
from bridge.core.backend import ChatMessage, EditorError, TextPart
from bridge.core.editor_failures import classify, retry_after_seconds
from bridge.core.errors import ApiError, from_editor, from_failure_code
from headless_editor.reply_steps import Fail
from headless_editor.script import Script
from lsp.editor_backend import editor_error


def _request_failed(status: int, message: str, code: str = "") -> str:
    return f"Request Failed: {status} " + json.dumps({"error": {"message": message, "code": code}})


@pytest.mark.parametrize(
    ("code", "name", "message", "kind"),
    [
        ("Other", "ChatQuotaExceeded", "You've exhausted your premium model quota.", "quota"),
        ("Other", "ChatRateLimited", "Sorry, you have been rate-limited.", "rate_limited"),
        ("Blocked", "LanguageModelError", "The extension has been blocked.", "rate_limited"),
        ("NoPermissions", "LanguageModelError", "No consent.", "no_permissions"),
        ("NotFound", "LanguageModelError", "No model.", "not_found"),
        ("Other", "Error", "Response too long.", "too_long"),
        ("Other", "Error", "Message exceeds token limit.", "context_length"),
        ("Other", "Error", "Response got filtered.", "content_filter"),
        ("Other", "Error", "Model declined to respond.", "content_filter"),
        (
            "Other",
            "Error",
            "filtered as off_topic by intent classifier: not code",
            "content_filter",
        ),
        ("Other", "Error", "Filtered by Responsible AI Service\n\n{}", "content_filter"),
        (
            "Other",
            "Error",
            _request_failed(400, "nope", "model_not_supported"),
            "model_not_supported",
        ),
        ("Other", "Error", _request_failed(413, "too big"), "upstream"),
        ("Other", "Error", 'Invalid tool name "a.b": only alphanumeric...', "invalid_request"),
        ("Other", "Error", "Cannot have more than 128 tools per request.", "invalid_request"),
        ("Other", "Error", "Invalid JSON for tool call", "other"),  # the model's fault
        ("Unavailable", "", "The editor is gone.", "unavailable"),
        ("Timeout", "", "Too slow.", "timeout"),
        ("Other", "", "Something else.", "other"),
    ],
)
def test_each_copilot_failure_is_classified(code: str, name: str, message: str, kind: str) -> None:
    assert classify(code, name, message).kind == kind  # type: ignore[arg-type]


def test_the_name_wins_over_the_code_and_the_message() -> None:
    # A LanguageModelError renamed ChatQuotaExceeded: VS Code may also call it Blocked.
    assert classify("Blocked", "ChatQuotaExceeded", "Response too long.").kind == "quota"


@pytest.mark.parametrize(
    ("message", "seconds"),
    [
        ("Sorry, you have been rate-limited. Please wait 42 seconds before trying again.", 42),
        ("Please try again in 2 minutes.", 120),
        ("Retry after 7s", 7),
        ("Rate limit exceeded", 10),
        ("Please try again later.", 10),
        ("Please wait a moment before trying again.", 10),
    ],
)
def test_retry_after_is_read_from_the_message(message: str, seconds: int) -> None:
    assert retry_after_seconds(message) == seconds


def test_quota_is_429_insufficient_quota_without_retry_after() -> None:
    error = from_editor("Other", "Quota Exceeded", "ChatQuotaExceeded")
    assert (error.status, error.type, error.code) == (
        429,
        "insufficient_quota",
        "insufficient_quota",
    )
    assert error.headers == {}
    assert "quota" in error.message and "Quota Exceeded" in error.message


def test_rate_limits_carry_retry_after() -> None:
    limited = from_editor("Other", "Please wait 30 seconds.", "ChatRateLimited")
    assert (limited.status, limited.headers) == (429, {"Retry-After": "30"})
    assert from_editor("Blocked", "Busy.").headers == {"Retry-After": "10"}


def test_upstream_statuses() -> None:
    rejected = from_editor("Other", _request_failed(422, "Unprocessable."))
    assert (rejected.status, rejected.message) == (422, "Unprocessable.")
    broken = from_editor("Other", _request_failed(503, "Down."))
    assert (broken.status, broken.message) == (502, "Down.")
    # Copilot's own sign-in, not the client's key: never a 401 that makes a client re-login.
    assert from_editor("Other", _request_failed(401, "Bad token.")).status == 403
    assert from_editor("Other", "Request Failed: 400 ").status == 400  # CAPI's blank 400
    assert from_editor("Other", "Invalid request: no messages.").status == 400


def test_model_not_supported_says_to_enable_it() -> None:
    error = from_editor("Other", _request_failed(400, "Not supported.", "model_not_supported"))
    assert error.status == 404 and error.code == "model_not_supported"
    assert "Copilot Chat" in error.message and "Not supported." in error.message


def test_context_length_is_worded_as_anthropic_words_it() -> None:
    error = from_editor("Other", "Message exceeds token limit.")
    assert (error.status, error.code) == (400, "context_length_exceeded")
    plain = anthropic_error_body(error)["error"]
    assert plain["type"] == "invalid_request_error"
    error.overflow = (130001, 128000)
    wording = anthropic_error_body(error)["error"]["message"]
    assert wording == "prompt is too long: 130001 tokens > 128000 maximum"


def test_failure_codes_of_a_failed_response_map_back_to_their_status() -> None:
    for code, status in [
        ("insufficient_quota", 429),
        ("rate_limit_exceeded", 429),
        ("context_length_exceeded", 400),
        ("content_filter", 400),
        ("model_not_supported", 404),
        ("permission_denied", 403),
        ("editor_error", 502),
    ]:
        error = from_failure_code(code, "m")
        assert isinstance(error, ApiError) and error.status == status, code


def test_the_language_server_keeps_the_error_name() -> None:
    exc = JsonRpcException(message="Quota.", code=-32000, data={"code": "Other", "name": "X"})
    assert isinstance(editor_error(exc), EditorError)
    assert (editor_error(exc).code, editor_error(exc).name) == ("Other", "X")
    older = JsonRpcException(message="Busy.", code=-32003, data={"code": "Blocked"})
    assert (editor_error(older).code, editor_error(older).name) == ("Blocked", "")


def test_a_script_error_names_the_error_copilot_throws() -> None:
    script = Script.model_validate(
        {"rules": [{"match": "x", "reply": [{"type": "error", "name": "ChatRateLimited"}]}]}
    )
    reply = script.reply_for([ChatMessage(role="user", content=[TextPart(value="x")])])
    assert reply == [Fail("Other", "The scripted model failed.", "ChatRateLimited")]
