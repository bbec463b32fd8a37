"""Copilot's errors, as a real `maestro-bridge serve` answers them in every dialect.

The headless editor's scripted model throws exactly what GitHub Copilot's provider throws
(the `name` and message of microsoft/vscode-copilot-chat's languageModelAccess.ts and
chatMLFetcher.ts): before any output (as `sendRequest` rejects) the client gets the right
HTTP status in its dialect's envelope; after output began (while the stream is read) the
dialect's own failure, content-filter or length end. Every answer is checked against the
dialect's schema (tests/copilot_errors_http.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import BridgeServer, running_bridge_server
from copilot_errors_http import DIALECTS, Outcome, ask

HALF = "Half an answer"
QUOTA = (
    "You've exhausted your premium model quota. Please enable additional paid premium "
    "requests, upgrade to Copilot Pro+, or wait for your allowance to renew."
)
RATE_LIMITED = "Sorry, you have been rate-limited. Please wait 42 seconds before trying again."
BLOCKED = (
    "The extension has been temporarily blocked due to making too many requests. "
    "Please try again later."
)
NOT_SUPPORTED = "Request Failed: 400 " + json.dumps(
    {"error": {"message": "The requested model is not supported.", "code": "model_not_supported"}}
)
OFF_TOPIC = "filtered as off_topic by intent classifier: message was not programming related"
RAI = 'Filtered by Responsible AI Service\n\n{"error":{"message":"The prompt was filtered."}}'
TOO_BIG = "Request Failed: 413 " + json.dumps({"error": {"message": "Request body too large."}})
UPSTREAM_DOWN = "Request Failed: 500 " + json.dumps({"error": {"message": "Upstream broke."}})
BAD_TOOL = (
    'Invalid tool name "fs.read": only alphanumeric characters, hyphens, and underscores are '
    "allowed."
)

# name, code, message of each scripted failure: what Copilot throws.
FAILURES: dict[str, tuple[str, str, str]] = {
    "QUOTA": ("ChatQuotaExceeded", "Other", QUOTA),
    "RATE": ("ChatRateLimited", "Other", RATE_LIMITED),
    "BLOCKED": ("LanguageModelError", "Blocked", BLOCKED),
    "DENIED": ("LanguageModelError", "NoPermissions", "Access denied."),
    "UNSUPPORTED": ("Error", "Other", NOT_SUPPORTED),
    "OFFTOPIC": ("Error", "Other", OFF_TOPIC),
    "RAI": ("Error", "Other", RAI),
    "FILTERED": ("Error", "Other", "Response got filtered."),
    "TOKENS": ("Error", "Other", "Message exceeds token limit."),
    "TOOBIG": ("Error", "Other", TOO_BIG),
    "DOWN": ("Error", "Other", UPSTREAM_DOWN),
    "BADTOOL": ("Error", "Other", BAD_TOOL),
    "TOOLONG": ("Error", "Other", "Response too long."),
}

LENGTH_END = {"responses": "max_output_tokens", "chat": "length", "anthropic": "max_tokens"}
LENGTH_END["gemini"] = "MAX_TOKENS"
FILTER_END = {"responses": "content_filter", "chat": "content_filter", "anthropic": "refusal"}
FILTER_END["gemini"] = "SAFETY"
# The dialect's error code for a status: Anthropic's type, Google's status, OpenAI's code.
ANTHROPIC_TYPE = {400: "invalid_request_error", 403: "permission_error", 404: "not_found_error"}
ANTHROPIC_TYPE |= {413: "request_too_large", 429: "rate_limit_error", 502: "api_error"}
GOOGLE_STATUS = {400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND"}
GOOGLE_STATUS |= {413: "INVALID_ARGUMENT", 429: "RESOURCE_EXHAUSTED", 502: "UNAVAILABLE"}


def _rule(word: str, during: bool) -> dict[str, Any]:
    name, code, message = FAILURES[word]
    error = {"type": "error", "code": code, "name": name, "message": message}
    reply: list[dict[str, Any]] = [error]
    if during:  # output first; the pause lets it reach the client before the failure
        reply = [{"type": "text", "text": HALF}, {"type": "pause", "seconds": 0.3}, error]
    return {"match": f"{word}_{'DURING' if during else 'BEFORE'}", "reply": reply}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BridgeServer]:
    rules = [_rule(word, during) for word in FAILURES for during in (False, True)]
    path = tmp_path_factory.mktemp("copilot-errors") / "script.json"
    path.write_text(json.dumps({"rules": rules}), encoding="utf-8")
    with running_bridge_server("--script", str(path)) as running:
        yield running


def expected_code(dialect: str, status: int, openai_code: str) -> str:
    if dialect == "anthropic":
        return ANTHROPIC_TYPE[status]
    if dialect == "gemini":
        return GOOGLE_STATUS[status]
    return openai_code


def before(server: BridgeServer, dialect: str, word: str, status: int, code: str) -> Outcome:
    """Before any output, streamed or not: `status` in the dialect's envelope."""
    for stream in (False, True):
        outcome = ask(server, dialect, f"{word}_BEFORE", stream)
        assert outcome.status == status, (stream, outcome)
        assert outcome.error_code == expected_code(dialect, status, code), outcome
    return outcome


def during(server: BridgeServer, dialect: str, word: str, status: int, code: str) -> Outcome:
    """After output began: the stream ends with the dialect's failure, the text before kept."""
    outcome = ask(server, dialect, f"{word}_DURING", stream=True)
    assert outcome.status == 200 and outcome.end == "failed", outcome
    assert outcome.error_code == expected_code(dialect, status, code), outcome
    if dialect != "anthropic":  # its error event ends the stream without the message
        assert outcome.text == HALF
    return outcome


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_spent_quota_is_429_insufficient_quota_without_retry_advice(
    server: BridgeServer, dialect: str
) -> None:
    outcome = before(server, dialect, "QUOTA", 429, "insufficient_quota")
    assert "retry-after" not in outcome.headers
    assert "quota" in outcome.error_message and QUOTA in outcome.error_message
    if dialect in ("responses", "chat"):
        assert outcome.raw["error"]["type"] == "insufficient_quota"  # what OpenAI sends
    if dialect == "gemini":  # no RetryInfo: Gemini CLI would wait and retry on it
        assert "details" not in outcome.raw["error"]
    assert "quota" in during(server, dialect, "QUOTA", 429, "insufficient_quota").error_message


@pytest.mark.parametrize("dialect", DIALECTS)
def test_rate_limits_are_429_with_retry_after(server: BridgeServer, dialect: str) -> None:
    limited = before(server, dialect, "RATE", 429, "rate_limit_exceeded")
    assert limited.headers["retry-after"] == "42"  # the wait Copilot's message names
    blocked = before(server, dialect, "BLOCKED", 429, "rate_limit_exceeded")
    assert blocked.headers["retry-after"] == "10"  # none named: the default
    if dialect == "gemini":
        delays = [d.get("retryDelay") for d in limited.raw["error"]["details"]]
        assert "42s" in delays
    during(server, dialect, "RATE", 429, "rate_limit_exceeded")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_no_permission_is_403_saying_how_to_grant(server: BridgeServer, dialect: str) -> None:
    outcome = before(server, dialect, "DENIED", 403, "permission_denied")
    assert "Authorize Model Access" in outcome.error_message


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_model_not_supported_is_404_saying_to_enable_it(
    server: BridgeServer, dialect: str
) -> None:
    outcome = before(server, dialect, "UNSUPPORTED", 404, "model_not_supported")
    assert "The requested model is not supported" in outcome.error_message
    assert "Copilot Chat" in outcome.error_message


@pytest.mark.parametrize("dialect", DIALECTS)
def test_content_filters_are_400_before_output_and_the_dialects_filter_end_after(
    server: BridgeServer, dialect: str
) -> None:
    for word in ("OFFTOPIC", "RAI", "FILTERED"):
        outcome = before(server, dialect, word, 400, "content_filter")
        assert "content filter" in outcome.error_message
    for stream in (True, False):
        outcome = ask(server, dialect, "FILTERED_DURING", stream)
        assert outcome.status == 200 and outcome.end == FILTER_END[dialect], outcome
        assert outcome.text == HALF
    if dialect == "anthropic":
        assert outcome.raw["stop_details"]["type"] == "refusal"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_token_limit_is_400_context_length_exceeded(server: BridgeServer, dialect: str) -> None:
    outcome = before(server, dialect, "TOKENS", 400, "context_length_exceeded")
    if dialect == "anthropic":  # Anthropic's words, which Claude Code reads to compact
        found = re.fullmatch(
            r"prompt is too long: (\d+) tokens > (\d+) maximum", outcome.error_message
        )
        assert found is not None, outcome.error_message
        assert int(found[2]) == 128000 and int(found[1]) > 128000  # sim-echo's window
    else:
        assert "128000" in outcome.error_message
    during(server, dialect, "TOKENS", 400, "context_length_exceeded")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_an_upstream_rejection_keeps_its_status_and_message(
    server: BridgeServer, dialect: str
) -> None:
    too_big = before(server, dialect, "TOOBIG", 413, "upstream_error")
    assert too_big.error_message.endswith("Request body too large.")
    down = before(server, dialect, "DOWN", 502, "editor_error")  # the service's fault
    assert down.error_message == "Upstream broke."
    before(server, dialect, "BADTOOL", 400, "invalid_request_error")  # never a 502
    during(server, dialect, "TOOBIG", 413, "upstream_error")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_response_too_long_ends_the_answer_length_limited(
    server: BridgeServer, dialect: str
) -> None:
    for stream in (True, False):
        cut = ask(server, dialect, "TOOLONG_DURING", stream)
        assert cut.status == 200 and cut.end == LENGTH_END[dialect], cut
        assert cut.text == HALF  # the text kept
        empty = ask(server, dialect, "TOOLONG_BEFORE", stream)
        assert empty.status == 200 and empty.end == LENGTH_END[dialect], empty
        assert empty.text == ""
