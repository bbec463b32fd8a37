"""The measurement switch MAESTRO_BRIDGE_SAVINGS_OFF (bridge/core/savings_off.py): each named
saving turns off where it is implemented, and nothing changes without it."""

from __future__ import annotations

import pytest

from bridge.anthropic.convert import system_texts
from bridge.anthropic.tools import plan_tools
from bridge.core.parts import ChatMessage, TextPart
from bridge.core.savings_off import ENV, off
from bridge.core.turn_notes import HEADER, with_turn_notes
from bridge.responses.tools import plan_tools as responses_plan_tools

BILLING = "x-anthropic-billing-header: cc_version=2.1.330.572; cc_entrypoint=sdk-cli;\nYou are"
DEFERRED = {"name": "Later", "input_schema": {"type": "object"}, "defer_loading": True}
NOW = {"name": "Now", "input_schema": {"type": "object"}}


def test_unset_keeps_every_saving(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    assert not off("billing_header")
    assert system_texts(BILLING) == ["You are"]
    assert [t.name for t in plan_tools([NOW, DEFERRED], None).tools] == ["Now"]
    messages = [ChatMessage(role="user", content=[TextPart(value="hi")])]
    assert with_turn_notes(messages, ["JSON"])[0] is messages[0]


def test_each_saving_turns_off_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "billing_header")
    assert system_texts(BILLING) == [BILLING]
    assert [t.name for t in plan_tools([NOW, DEFERRED], None).tools] == ["Now"]
    monkeypatch.setenv(ENV, "deferred_tools")
    assert system_texts(BILLING) == ["You are"]
    assert [t.name for t in plan_tools([NOW, DEFERRED], None).tools] == ["Now", "Later"]
    monkeypatch.setenv(ENV, " turn_notes_last ")
    messages = [ChatMessage(role="user", content=[TextPart(value="hi")])]
    first = with_turn_notes(messages, ["JSON"])[0]
    assert isinstance(first.content[0], TextPart) and first.content[0].value == HEADER


def test_all_turns_every_saving_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "all")
    assert system_texts(BILLING) == [BILLING]
    search = {"type": "tool_search", "execution": "client"}
    later = {"type": "function", "name": "later", "parameters": {}, "defer_loading": True}
    names = [t.name for t in responses_plan_tools([search, later], None).tools]
    assert "later" in names
