"""The models `configure claude-code` writes, chosen from what the bridge lists: on a list
as GitHub Copilot offers it, on Anthropic's own ids, and on lists without Claude models."""

from __future__ import annotations

import pytest

from bridge.configure.bridge_models import ChoiceError, ListedModel
from bridge.configure.claude_choice import choose_claude_models, claude_family

# Model ids GitHub Copilot offers through VS Code's Language Model API (as published by
# projects that list them, e.g. copilot-api users' configurations), in no particular order.
COPILOT = [
    "gpt-4.1",
    "claude-3.5-sonnet",
    "claude-3.7-sonnet",
    "claude-3.7-sonnet-thought",
    "claude-sonnet-4",
    "claude-sonnet-4.5",
    "claude-opus-4",
    "claude-opus-41",
    "claude-haiku-4.5",
    "gemini-2.5-pro",
]


def listed(*ids: str, window: int | None = 128000) -> list[ListedModel]:
    return [ListedModel(model_id, None, window) for model_id in ids]


# --------------------------------------------------------------------------- the choice


@pytest.mark.parametrize(
    ("model_id", "family"),
    [
        ("claude-sonnet-4.5", "sonnet"),
        ("claude-3.7-sonnet-thought", "sonnet"),
        ("claude-opus-41", "opus"),
        ("claude-haiku-4-5-20251001", "haiku"),
        ("anthropic/claude-opus-4.5", "opus"),
        ("gpt-4.1", None),
        ("sonnet", None),  # not a Claude id
        ("sim-echo", None),
    ],
)
def test_claude_families_are_read_from_the_id(model_id: str, family: str | None) -> None:
    assert claude_family(model_id) == family


def test_copilots_list_gets_the_newest_of_each_family() -> None:
    choice = choose_claude_models(listed(*COPILOT), None)
    assert choice.family_models == {
        "opus": "claude-opus-41",  # 4.1, newer than claude-opus-4
        "sonnet": "claude-sonnet-4.5",  # newer than 4 and 3.7; plain over "-thought"
        "haiku": "claude-haiku-4.5",
    }
    assert choice.model == "claude-sonnet-4.5"  # 4.5 is newer than opus 4.1
    assert choice.context_window == 128000


def test_the_newer_of_opus_and_sonnet_is_the_main_model_and_sonnet_wins_a_tie() -> None:
    newer_opus = listed("claude-sonnet-4", "claude-opus-4.5", "claude-haiku-4.5")
    assert choose_claude_models(newer_opus, None).model == "claude-opus-4.5"
    tie = listed("claude-opus-4.5", "claude-sonnet-4.5")
    assert choose_claude_models(tie, None).model == "claude-sonnet-4.5"


def test_anthropic_ids_with_dates_are_ordered_by_version_not_date() -> None:
    models = listed(
        "claude-sonnet-4-5-20250929",
        "claude-3-7-sonnet-20250219",
        "claude-sonnet-4-20250514",
        "claude-opus-4-1-20250805",
        "claude-opus-5-128000",  # a size, not a minor version: opus 5
    )
    choice = choose_claude_models(models, None)
    assert choice.family_models["sonnet"] == "claude-sonnet-4-5-20250929"
    assert choice.family_models["opus"] == "claude-opus-5-128000"
    assert choice.family_models["haiku"] == "claude-opus-5-128000"  # none: the main model
    assert choice.model == "claude-opus-5-128000"


def test_without_claude_models_the_first_model_answers_every_family() -> None:
    choice = choose_claude_models(listed("gpt-4.1", "gpt-5-mini", window=None), None)
    assert choice.model == "gpt-4.1"
    assert set(choice.family_models.values()) == {"gpt-4.1"}
    assert choice.context_window is None


def test_model_is_taken_as_given_aliases_included() -> None:
    models = [*listed(*COPILOT), ListedModel("my-sonnet", "claude-sonnet-4.5", 64000)]
    choice = choose_claude_models(models, "my-sonnet")
    assert (choice.model, choice.context_window) == ("my-sonnet", 64000)
    assert choice.family_models["sonnet"] == "claude-sonnet-4.5"


def test_an_unknown_model_or_none_at_all_is_a_clear_error() -> None:
    with pytest.raises(ChoiceError, match=r"no model 'nope'\. Models: gpt-4\.1, claude-3\.5"):
        choose_claude_models(listed(*COPILOT), "nope")
    with pytest.raises(ChoiceError, match="offers no models"):
        choose_claude_models([], None)
