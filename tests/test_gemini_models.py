"""The editor's models as Gemini `Model`s, and the pages of `GET /v1beta/models`."""

from __future__ import annotations

import pytest

from bridge.core.backend import ModelInfo
from bridge.core.errors import ApiError
from bridge.core.models import ModelNames
from bridge.gemini.models import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    bare_name,
    model_page,
    page_offset,
    page_size,
    page_token,
)

MODELS = [
    ModelInfo(id="gpt-x", name="GPT X", vendor="copilot", version="2", maxInputTokens=1000),
    ModelInfo(id="claude-y", name="", vendor="", maxInputTokens=0),
    ModelInfo(id="gemini-z", name="Gemini Z", vendor="copilot", maxInputTokens=5000),
]


def test_models_are_google_model_objects_with_aliases() -> None:
    page = model_page(MODELS, ModelNames({"gemini-2.5-pro": "gemini-z"}), 10, 0)
    assert "nextPageToken" not in page
    first, second, _, alias = page["models"]
    assert first == {
        "name": "models/gpt-x",
        "baseModelId": "gpt-x",
        "version": "2",
        "displayName": "GPT X",
        "description": "gpt-x by copilot, through Maestro Bridge.",
        "supportedGenerationMethods": ["generateContent", "streamGenerateContent", "countTokens"],
        "inputTokenLimit": 1000,
    }
    # No window known: no limit made up; no name: the id; no version: Google's "001".
    assert "inputTokenLimit" not in second and second["displayName"] == "claude-y"
    assert second["version"] == "001"
    assert alias["name"] == "models/gemini-2.5-pro" and alias["inputTokenLimit"] == 5000
    assert "gemini-z" in alias["description"]


def test_pages_follow_the_token_to_the_end() -> None:
    names = ModelNames()
    seen: list[str] = []
    token: str | None = None
    for _ in range(5):
        page = model_page(MODELS, names, 2, page_offset(token))
        seen += [model["name"] for model in page["models"]]
        token = page.get("nextPageToken")
        if token is None:
            break
    assert seen == ["models/gpt-x", "models/claude-y", "models/gemini-z"]
    assert page_offset(page_token(2)) == 2 and page_offset(None) == 0 and page_offset("") == 0


@pytest.mark.parametrize("token", ["garbage", page_token(1)[:-2] + "!!", "bWFlc3Rybzp4"])
def test_a_token_the_bridge_did_not_give_is_a_400(token: str) -> None:
    with pytest.raises(ApiError) as raised:
        page_offset(token)
    assert raised.value.status == 400 and raised.value.param == "pageToken"


def test_page_size_defaults_caps_and_refusals() -> None:
    assert page_size(None) == page_size("") == page_size("0") == DEFAULT_PAGE_SIZE
    assert page_size("3") == 3 and page_size("100000") == MAX_PAGE_SIZE
    for bad in ("-1", "two", "1.5"):
        with pytest.raises(ApiError) as raised:
            page_size(bad)
        assert raised.value.status == 400 and raised.value.param == "pageSize"


def test_bare_name() -> None:
    assert bare_name("models/gemini-z") == "gemini-z" and bare_name("gemini-z") == "gemini-z"
