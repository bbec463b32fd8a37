"""The input text the editor counts (`countInput`) is the server's `input_text`, byte for byte.

tests/fixtures/count_input/input_text.json holds a request and the text the server counts for
it; the VS Code extension's `inputText` is held to the same file (editor-client/src/test/
inputCount.test.ts), so the editor and the server refuse the same inputs.
"""

from __future__ import annotations

import json
from pathlib import Path

from bridge.core.backend import ChatRequest, message_list
from bridge.core.token_limits import input_text
from headless_editor.simulated_model import SimulatedModel

FIXTURE = Path(__file__).parent / "fixtures" / "count_input" / "input_text.json"


def test_the_fixture_is_what_the_server_counts() -> None:
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    raw = fixture["request"]
    chat = ChatRequest.model_validate({**raw, "messages": message_list(raw["messages"])})
    assert input_text(chat) == fixture["inputText"]
    assert SimulatedModel().count_tokens(fixture["inputText"]) > 0
