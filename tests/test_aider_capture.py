"""What Aider sends, measured with the real Aider against a capture server, and the saved
capture (tests/fixtures/aider/) checked against it.

These facts are what the Chat Completions dialect must serve for Aider (aider-chat 0.86.2 with
its defaults); tests/fixtures/aider/README.md lists them. Should an Aider upgrade change them,
these tests say which one, and `python tests/record_aider.py` saves the new capture.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aider_cli import aider_or_skip
from aider_scenario import (
    AFTER,
    COMMIT_MESSAGE,
    GPT_41,
    PROMPT,
    SIM_ECHO,
    commit_subjects,
    committed_file,
)
from aider_trim import LONG_TEXT, is_placeholder, trim_request
from record_aider import AIDER_FIXTURES, CapturedRun, capture_run, fixture_path

# The only parameters Aider sends (litellm adds no others for these models).
EDIT_KEYS = {"model", "messages", "stream", "temperature"}
COMMIT_KEYS = {"model", "messages", "temperature"}


@pytest.fixture(scope="module")
def gpt_41_run(tmp_path_factory: pytest.TempPathFactory) -> CapturedRun:
    return capture_run(aider_or_skip(), tmp_path_factory.mktemp("aider-gpt-4.1"), GPT_41)


def roles(body: dict[str, Any]) -> list[str]:
    return [message["role"] for message in body["messages"]]


def saved(number: int) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(fixture_path(number).read_text(encoding="utf-8"))
    return loaded


def test_a_message_run_makes_an_edit_request_then_a_commit_message_request(
    gpt_41_run: CapturedRun,
) -> None:
    run = gpt_41_run.run
    assert run.returncode == 0, run.report
    paths = [(request["method"], request["path"]) for request in gpt_41_run.requests]
    assert paths == [("POST", "/v1/chat/completions")] * 2, run.report
    # The capture server's answers went through: the file changed, the commit was made.
    assert (gpt_41_run.workdir / "greeting.py").read_text(encoding="utf-8") == AFTER
    subjects = commit_subjects(gpt_41_run.workdir, gpt_41_run.home)
    assert subjects[0] == COMMIT_MESSAGE, subjects


def test_the_edit_request_streams_at_temperature_0_without_stream_options(
    gpt_41_run: CapturedRun,
) -> None:
    edit = gpt_41_run.requests[0]
    body = edit["body"]
    assert set(body) == EDIT_KEYS
    assert body["model"] == GPT_41.sent_name  # litellm drops the `openai/` prefix
    assert body["stream"] is True
    assert body["temperature"] == 0
    assert edit["headers"]["authorization"] == "<redacted>"  # the key is sent as a bearer
    assert edit["headers"]["user-agent"].startswith("OpenAI/Python ")


def test_the_edit_request_ends_with_the_format_rules_as_a_system_message(
    gpt_41_run: CapturedRun,
) -> None:
    body = gpt_41_run.requests[0]["body"]
    messages = body["messages"]
    assert roles(body)[0] == "system"
    assert roles(body)[-2:] == ["user", "system"]
    assert messages[-2]["content"] == PROMPT
    assert "SEARCH/REPLACE" in messages[-1]["content"]
    assert all(isinstance(message["content"], str) for message in messages)


def test_the_commit_message_request_goes_to_the_weak_model_without_streaming(
    gpt_41_run: CapturedRun,
) -> None:
    body = gpt_41_run.requests[1]["body"]
    assert set(body) == COMMIT_KEYS
    assert body["model"] == GPT_41.weak_model
    assert body["temperature"] == 0
    assert roles(body) == ["system", "user"]
    assert "# Diffs:" in body["messages"][1]["content"]


def test_an_unknown_model_name_gets_the_whole_format_and_is_its_own_weak_model(
    tmp_path: Path,
) -> None:
    captured = capture_run(aider_or_skip(), tmp_path, SIM_ECHO)
    assert captured.run.returncode == 0, captured.run.report
    edit, commit = (request["body"] for request in captured.requests)
    assert (edit["model"], commit["model"]) == ("sim-echo", "sim-echo")
    assert (edit.get("stream"), commit.get("stream")) == (True, None)
    # The whole format's rules follow the prompt in the same user message.
    assert roles(edit)[-1] == "user"
    assert edit["messages"][-1]["content"].startswith(PROMPT)
    assert committed_file(captured.workdir, captured.home) == AFTER


# ------------------------------------------------------------------ the saved capture


@pytest.mark.parametrize("number", [1, 2])
def test_the_saved_capture_is_trimmed(number: int) -> None:
    capture = saved(number)
    assert capture == trim_request(capture)
    for message in capture["body"]["messages"]:
        content = message["content"]
        assert len(content) <= LONG_TEXT or is_placeholder(content)


@pytest.mark.parametrize("number", [1, 2])
def test_the_saved_capture_has_the_shape_aider_sends_today(
    gpt_41_run: CapturedRun, number: int
) -> None:
    capture, live = saved(number), trim_request(gpt_41_run.requests[number - 1])
    assert (capture["method"], capture["path"]) == (live["method"], live["path"])
    assert sorted(capture["headers"]) == sorted(live["headers"])
    body, live_body = capture["body"], live["body"]
    assert {k: v for k, v in body.items() if k != "messages"} == {
        k: v for k, v in live_body.items() if k != "messages"
    }
    assert roles(body) == roles(live_body)


def test_only_the_captures_and_their_readme_are_saved() -> None:
    names = sorted(path.name for path in AIDER_FIXTURES.iterdir())
    assert names == ["README.md", "diff-gpt-4.1-1.json", "diff-gpt-4.1-2.json"]
