"""What the bridge does for Copilot 0.67's models: effort levels, thinking for Claude, the
output limit, >128 tools with tool search, Retry-After from the message, utility models kept
out of the lists (sources named in each module under bridge/core/copilot/)."""

from __future__ import annotations

import pytest

from bridge.core.backend import ChatMessage, ChatTool, ModelInfo, TextPart
from bridge.core.chat_request import RequestOptions, editor_chat
from bridge.core.copilot.internal_models import offered
from bridge.core.copilot.tool_search import supports_tool_search
from bridge.core.editor_failures import DEFAULT_RETRY_AFTER, classify, retry_after_seconds
from bridge.core.errors import ApiError, from_editor
from bridge.core.models import listed_models, resolve_model
from bridge.core.reasoning import model_effort
from bridge.core.tool_count import check_tool_count

HI = [ChatMessage(role="user", content=[TextPart(value="hi")])]


def tools(count: int) -> list[ChatTool]:
    return [ChatTool(name=f"t{i}", inputSchema={"type": "object"}) for i in range(count)]


def chat(model: ModelInfo, **options: object) -> tuple[dict[str, object], dict[str, object]]:
    request = editor_chat(model, HI, [], "auto", RequestOptions(**options), None, "test")  # type: ignore[arg-type]
    return request.modelOptions, request.modelConfiguration


# --------------------------------------------------------------------------- effort


@pytest.mark.parametrize(
    ("asked", "level"),
    [
        ("minimal", "low"),
        ("LOW", "low"),
        ("medium", "medium"),
        ("high", "high"),
        ("xhigh", "high"),
        ("max", "high"),
        ("none", None),
        ("galaxy", None),
        (None, None),
    ],
)
def test_an_effort_becomes_a_level_every_model_takes(asked: str | None, level: str | None) -> None:
    assert model_effort(asked) == level


def test_claude_gets_thinking_enabled_with_an_effort() -> None:
    claude = ModelInfo(id="claude-sonnet-4.5", family="claude-sonnet-4.5")
    options, configuration = chat(claude, reasoning_effort="xhigh")
    assert options == {"_enableThinking": True} and configuration == {"reasoningEffort": "high"}
    assert chat(claude, reasoning_effort="none") == ({}, {})


def test_other_models_get_the_effort_without_the_thinking_switch() -> None:
    gpt = ModelInfo(id="gpt-5.5", family="gpt-5.5")
    assert chat(gpt, reasoning_effort="low") == ({}, {"reasoningEffort": "low"})


# --------------------------------------------------------------------------- output limit


def test_max_tokens_above_the_models_limit_is_clamped() -> None:
    model = ModelInfo(id="m", maxOutputTokens=16_000)
    assert chat(model, max_tokens=64_000)[0] == {"max_tokens": 16_000}
    assert chat(model, max_tokens=1_000)[0] == {"max_tokens": 1_000}


def test_without_the_models_limit_the_clients_goes_as_asked() -> None:
    assert chat(ModelInfo(id="m"), max_tokens=64_000)[0] == {"max_tokens": 64_000}


# --------------------------------------------------------------------------- 128 tools


@pytest.mark.parametrize(
    ("model_id", "family", "searches"),
    [
        ("claude-sonnet-4.5", "claude-sonnet-4.5", True),
        ("claude-opus-4.6", "claude-opus-4.6", True),
        ("claude-opus-5", "claude-opus-5", True),  # newer generations automatically
        ("claude-sonnet-4", "claude-sonnet-4", False),
        ("claude-sonnet-4-20250514", "claude-sonnet-4", False),
        ("claude-opus-4.1", "claude-opus-4.1", False),
        ("claude-haiku-4.5", "claude-haiku-4.5", False),
        ("claude-3.7-sonnet", "claude-3.7-sonnet", False),
        ("gpt-5.4", "gpt-5.4", True),
        ("gpt-5.5", "gpt-5.5", True),
        ("gpt-5.4-mini", "gpt-5.4-mini", False),
        ("gpt-4o", "gpt-4o", False),
        ("gemini-2.5-pro", "gemini-2.5-pro", False),
    ],
)
def test_tool_search_models_as_copilot_judges_them(
    model_id: str, family: str, searches: bool
) -> None:
    assert supports_tool_search(ModelInfo(id=model_id, family=family)) is searches


def test_more_than_128_tools_go_to_a_tool_search_model_only() -> None:
    check_tool_count(tools(200), ModelInfo(id="claude-opus-4.5", family="claude-opus-4.5"))
    editor_chat(
        ModelInfo(id="gpt-5.5", family="gpt-5.5"),
        HI,
        tools(200),
        "auto",
        RequestOptions(),
        None,
        "test",
    )
    with pytest.raises(ApiError) as caught:
        check_tool_count(tools(129), ModelInfo(id="gpt-4o", family="gpt-4o"))
    assert caught.value.code == "too_many_tools" and "'gpt-4o'" in caught.value.message


# --------------------------------------------------------------------------- Retry-After


@pytest.mark.parametrize(
    ("message", "seconds"),
    [
        ("Sorry, you have been rate-limited. Please wait 42 seconds before trying again.", 42),
        ("You've hit the rate limit for this model. Please try again in 1 minute 30 seconds.", 90),
        ("Rate limit exceeded. Retry after 2 minutes.", 120),
        ("Retry-After: 12", 12),
        ("please try again in 3 hours and 5 minutes", 3 * 3600 + 300),
        ("Upstream provider rate limit hit", DEFAULT_RETRY_AFTER),  # Copilot's 503 wording
        ("user_global_rate_limited", DEFAULT_RETRY_AFTER),  # the code when CAPI gave no message
        ("Sorry, you have been rate-limited. Please wait a moment before trying again.", 10),
    ],
)
def test_retry_after_is_what_the_message_says(message: str, seconds: int) -> None:
    assert retry_after_seconds(message) == seconds
    error = from_editor("Other", message, "ChatRateLimited")
    assert (error.status, error.headers["Retry-After"]) == (429, str(seconds))


@pytest.mark.parametrize(
    "message",
    [
        "You've exhausted your premium model quota. Please enable additional paid premium "
        "requests, upgrade to Copilot Pro+, or wait for your allowance to renew.",
        "Quota Exceeded\n\nServer Error: over the limit\nError Code: quota_exceeded",
        "Quota Exceeded",
    ],
)
def test_copilots_quota_wordings_are_insufficient_quota(message: str) -> None:
    error = from_editor("Other", message, "ChatQuotaExceeded")
    assert (error.status, error.code) == (429, "insufficient_quota")
    assert "Retry-After" not in error.headers


def test_a_core_only_model_is_not_found() -> None:
    failure = classify(
        "Other", "Error", "Model copilot-dictation-cleanup-nano is only available to VS Code core."
    )
    assert failure.kind == "not_found"


# --------------------------------------------------------------------------- model list

MODELS = [
    ModelInfo(id="auto", family="gpt-5-mini"),
    ModelInfo(id="gpt-5.5", family="gpt-5.5"),
    ModelInfo(id="auto", family="gpt-5-mini"),
    ModelInfo(id="copilot-utility-small", family="copilot-utility-small"),
    ModelInfo(id="copilot-utility", family="copilot-utility"),
    ModelInfo(id="copilot-dictation-cleanup-nano", family="copilot-dictation-cleanup-nano"),
    ModelInfo(id="claude-sonnet-4.5", family="claude-sonnet-4.5"),
]


def test_lists_hold_each_id_once_no_utility_model_and_auto_last() -> None:
    assert [m.id for m in offered(MODELS)] == ["gpt-5.5", "claude-sonnet-4.5", "auto"]
    assert [e["id"] for e in listed_models(MODELS)] == ["gpt-5.5", "claude-sonnet-4.5", "auto"]


def test_a_utility_model_named_exactly_still_resolves_but_no_other_spelling_lands_on_it() -> None:
    assert resolve_model("copilot-utility", MODELS).id == "copilot-utility"
    with pytest.raises(ApiError) as caught:
        resolve_model("copilot-utility-2", MODELS)
    assert "copilot-utility," not in caught.value.message  # the 404 lists only what is offered
