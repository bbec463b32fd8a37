"""The Claude Code fixtures carry no text of Claude Code's (tests/claude_code_trim.py).

Its prompts and tool descriptions are Anthropic's copyright: the saved captures keep their
shape and sizes only. The checks on the saved files stop a re-recording that skipped the
trimming, or a trimming rule that misses a new kind of text, from bringing prose back.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from claude_code_trim import (
    LONG_TEXT,
    is_placeholder,
    placeholder,
    trim_long_strings,
    trim_request,
)
from fixture_files import CLAUDE_CODE, claude_code_captures
from record_claude_code import OUR_TEXTS, summarise_stdout

SAVED_LIMIT = 300  # no string in a fixture is longer, but placeholders
BILLING = "x-anthropic-billing-header: cc_version=9.9.9.abc; cc_entrypoint=sdk-cli;"
PROSE = "You are a helpful agent. " * 20  # 500 characters standing in for Claude Code's text


def strings(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string in a JSON value, with where it is (`body.tools[1].description`)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from strings(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings(item, f"{path}[{index}]")
    elif isinstance(value, str):
        yield path, value


def is_token_list(path: str, text: str) -> bool:
    """A header value without spaces (the `anthropic-beta` list grows with each release)."""
    return path.startswith("headers.") and not any(c.isspace() for c in text)


def captured(body: dict[str, Any]) -> dict[str, Any]:
    return {"method": "POST", "path": "/v1/messages?beta=true", "headers": {}, "body": body}


def schema_with_descriptions() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            # A property named `description`: its schema stays a schema.
            "description": {"type": "string", "description": "What the command does."},
            "mode": {"type": "string", "enum": ["fast", "slow"], "description": "How."},
            "steps": {
                "type": "array",
                "items": {"type": "object", "properties": {"n": {"description": "Deep."}}},
            },
        },
        "required": ["description", "mode"],
    }


# ----------------------------------------------------------------- the trimming itself


def test_system_texts_become_placeholders_and_the_billing_line_stays() -> None:
    request = captured(
        {
            "system": [
                {"type": "text", "text": BILLING},
                {"type": "text", "text": "Short.", "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": PROSE, "cache_control": {"type": "ephemeral"}},
            ]
        }
    )
    system = trim_request(request)["body"]["system"]
    assert system == [
        {"type": "text", "text": BILLING},
        {
            "type": "text",
            "text": "[Claude Code text, 6 characters, not reproduced]",
            "cache_control": {"type": "ephemeral"},
        },
        {"type": "text", "text": placeholder(PROSE), "cache_control": {"type": "ephemeral"}},
    ]
    assert trim_request(captured({"system": PROSE}))["body"]["system"] == placeholder(PROSE)


def test_system_messages_are_replaced_and_the_user_prompt_stays() -> None:
    reminder = f"<system-reminder>\n{PROSE}\n</system-reminder>"
    long_prompt = "Write a long poem. " * 20  # ours, however long
    body = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": reminder},
                    {"type": "text", "text": long_prompt},
                ],
            },
            {"role": "system", "content": [{"type": "text", "text": "# Environment\nshort"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash"}]},
            {"role": "system", "content": "# Environment\nshort"},
            {"role": "user", "content": [{"type": "tool_result", "content": "x" * 250}]},
        ]
    }
    messages = trim_request(captured(body), ours={long_prompt})["body"]["messages"]
    assert messages[0]["content"] == [
        {"type": "text", "text": f"<system-reminder>\n{placeholder(PROSE)}\n</system-reminder>"},
        {"type": "text", "text": long_prompt},
    ]
    assert messages[1]["content"] == [{"type": "text", "text": placeholder("# Environment\nshort")}]
    assert messages[2] == body["messages"][2]
    assert messages[3]["content"] == placeholder("# Environment\nshort")
    assert messages[4]["content"][0]["content"] == placeholder("x" * 250)  # over LONG_TEXT


def test_tool_descriptions_go_and_schema_shapes_stay() -> None:
    tool = {"name": "Bash", "description": "Runs.", "input_schema": schema_with_descriptions()}
    trimmed = trim_request(captured({"tools": [tool, {"name": "X", "defer_loading": True}]}))
    bash, other = trimmed["body"]["tools"]
    assert bash["name"] == "Bash" and bash["description"] == placeholder("Runs.")
    properties = bash["input_schema"]["properties"]
    assert properties["description"] == {
        "type": "string",
        "description": placeholder("What the command does."),
    }
    assert properties["mode"]["enum"] == ["fast", "slow"]
    assert properties["mode"]["description"] == placeholder("How.")
    assert properties["steps"]["items"]["properties"]["n"] == {"description": placeholder("Deep.")}
    assert bash["input_schema"]["required"] == ["description", "mode"]
    assert other == {"name": "X", "defer_loading": True}


def test_headers_and_short_facts_stay_and_the_input_is_not_changed() -> None:
    request = captured({"model": "claude-opus-5-5", "max_tokens": 128000, "stream": True})
    request["headers"] = {"anthropic-beta": ",".join(["some-beta-2026-01-01"] * 20)}
    before = copy.deepcopy(request)
    assert trim_request(request) == before
    with_prose = captured({"metadata": {"note": PROSE}})
    trimmed = trim_request(with_prose)
    assert trimmed["body"]["metadata"]["note"] == placeholder(PROSE)
    assert with_prose["body"]["metadata"]["note"] == PROSE


def test_trimming_twice_changes_nothing_more() -> None:
    request = captured(
        {
            "system": [{"type": "text", "text": BILLING}, {"type": "text", "text": PROSE}],
            "messages": [
                {"role": "user", "content": f"<system-reminder>{PROSE}</system-reminder>"},
                {"role": "system", "content": PROSE},
            ],
            "tools": [{"name": "T", "description": PROSE, "input_schema": {"description": "d"}}],
        }
    )
    once = trim_request(request)
    assert trim_request(once) == once
    left = {text for _, text in strings(once["body"]) if not is_placeholder(text)}
    assert left == {BILLING, "text", "user", "system", "T"}


def test_a_json_stdout_is_saved_as_an_object() -> None:
    result = {"type": "result", "result": "done", "is_error": False}
    run = summarise_stdout({"exit_code": 0, "stdout": json.dumps(result)})
    assert run == {"exit_code": 0, "stdout_json": result}
    assert summarise_stdout({"stdout": "hello\n"}) == {"stdout": "hello\n"}
    assert summarise_stdout({"stdout": "12"}) == {"stdout": "12"}  # JSON, not an object


# ----------------------------------------------------------------- the saved fixtures


def fixture_files() -> list[str]:
    return sorted(path.name for path in CLAUDE_CODE.glob("*.json"))


@pytest.mark.parametrize("name", fixture_files())
def test_no_long_text_is_left_in_a_fixture(name: str) -> None:
    saved = json.loads((CLAUDE_CODE / name).read_text(encoding="utf-8"))
    long = [
        f"{path}: {len(text)} characters"
        for path, text in strings(saved)
        if len(text) > SAVED_LIMIT and not is_placeholder(text) and not is_token_list(path, text)
    ]
    assert long == [], "run `python tests/record_claude_code.py --trim-existing`"


def test_the_saved_captures_are_what_trimming_gives() -> None:
    """A capture saved untrimmed, or with text a rule now catches, differs from its trimmed
    self even where every string is short (a tool description of 80 characters)."""
    captures = claude_code_captures()
    assert len(captures) >= 10
    for name, capture in captures.items():
        assert trim_request(capture, OUR_TEXTS) == capture, name
    runs = json.loads((CLAUDE_CODE / "runs.json").read_text(encoding="utf-8"))
    for scenario, run in runs.items():
        assert summarise_stdout(run) == run, scenario


def test_the_facts_the_trimming_keeps_are_there() -> None:
    for name, capture in claude_code_captures().items():
        body = capture["body"]
        assert body["system"][0]["text"].startswith("x-anthropic-billing-header: cc_version=")
        assert [is_placeholder(block["text"]) for block in body["system"]] == [False, True, True]
        assert "Bash" in {tool["name"] for tool in body["tools"]}, name
        prompts = [
            block["text"]
            for message in body["messages"]
            if message["role"] == "user" and isinstance(message["content"], list)
            for block in message["content"]
            if block.get("type") == "text"
        ]
        assert set(prompts) & OUR_TEXTS, name  # the scenario's prompt, as typed
    assert LONG_TEXT < SAVED_LIMIT
    assert trim_long_strings({"a": [PROSE]}, frozenset()) == {"a": [placeholder(PROSE)]}
