"""The `--script` file format: loading, its errors, and which rule answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bridge.core.backend import (
    ChatMessage,
    DataPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)
from headless_editor.reply_steps import Fail
from headless_editor.script import Script, ScriptError, load_script


def write(tmp_path: Path, content: Any) -> Path:
    path = tmp_path / "script.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def user(text: str) -> ChatMessage:
    return ChatMessage(role="user", content=[TextPart(value=text)])


def tool_output(call_id: str, text: str) -> ChatMessage:
    return ChatMessage(
        role="user",
        content=[
            ToolResultPart(callId=call_id, content=[TextPart(value=text)]),
        ],
    )


SCRIPT = {
    "rules": [
        {
            "match": r"list (the )?files",
            "reply": [
                {"type": "thinking", "text": "They want a listing."},
                {"type": "text", "text": "Listing them."},
                {"type": "tool_call", "name": "exec_command", "arguments": {"cmd": "ls -la"}},
            ],
        },
        {
            "match": r"patch",
            "reply": [
                {"type": "tool_call", "name": "apply_patch", "arguments": "*** Begin Patch\n"},
                {"type": "tool_call", "name": "exec_command"},
            ],
        },
        {"match": r"^total \d+", "reply": [{"type": "text", "text": "Saw the listing."}]},
        {"match": r"", "reply": [{"type": "text", "text": "Fallback."}]},
    ]
}


@pytest.fixture
def script(tmp_path: Path) -> Script:
    return load_script(write(tmp_path, SCRIPT))


def test_load_valid_script(script: Script) -> None:
    assert [rule.match for rule in script.rules] == [
        r"list (the )?files",
        "patch",
        r"^total \d+",
        "",
    ]


def test_load_accepts_str_path(tmp_path: Path) -> None:
    assert load_script(str(write(tmp_path, {"rules": []}))).rules == []


def test_first_matching_rule_answers_with_converted_parts(script: Script) -> None:
    reply = script.reply_for([user("please list files here")])
    assert reply == [
        ThinkingPart(value="They want a listing."),
        TextPart(value="Listing them."),
        ToolCallPart(callId="call_script_0_1_0", name="exec_command", input={"cmd": "ls -la"}),
    ]


def test_match_is_a_search_not_a_full_match(script: Script) -> None:
    reply = script.reply_for([user("Could you LIST THE FILES? no: list the files")])
    assert reply is not None and isinstance(reply[0], ThinkingPart)


def test_string_arguments_become_custom_tool_input(script: Script) -> None:
    reply = script.reply_for([user("apply the patch")])
    assert reply == [
        ToolCallPart(
            callId="call_script_1_1_0", name="apply_patch", input={"input": "*** Begin Patch\n"}
        ),
        ToolCallPart(callId="call_script_1_1_1", name="exec_command", input={}),
    ]


def test_matches_tool_output(script: Script) -> None:
    messages = [
        user("list files"),
        ChatMessage(
            role="assistant",
            content=[
                ToolCallPart(callId="call_script_0_1_0", name="exec_command", input={"cmd": "ls"}),
            ],
        ),
        tool_output("call_script_0_1_0", "total 12\ndrwxr-xr-x ."),
    ]
    assert script.reply_for(messages) == [TextPart(value="Saw the listing.")]


def test_tool_output_text_parts_are_joined(tmp_path: Path) -> None:
    script = load_script(
        write(
            tmp_path,
            {
                "rules": [
                    {"match": "ab", "reply": [{"type": "text", "text": "joined"}]},
                ]
            },
        )
    )
    message = ChatMessage(
        role="user",
        content=[
            ToolResultPart(
                callId="c",
                content=[
                    TextPart(value="a"),
                    DataPart(mimeType="image/png", data=""),
                    TextPart(value="b"),
                ],
            )
        ],
    )
    assert script.reply_for([message]) == [TextPart(value="joined")]


def test_only_the_last_input_item_is_matched(tmp_path: Path) -> None:
    script = load_script(
        write(
            tmp_path,
            {
                "rules": [
                    {"match": "secret", "reply": [{"type": "text", "text": "found"}]},
                ]
            },
        )
    )
    earlier = [
        user("the secret word"),
        ChatMessage(
            role="assistant",
            content=[
                TextPart(value="ok"),
            ],
        ),
    ]
    assert script.reply_for([*earlier, user("anything else")]) is None
    # One message is one input item, whichever of its parts holds the text.
    two_parts = ChatMessage(
        role="user",
        content=[
            TextPart(value="the secret"),
            TextPart(value="nothing"),
        ],
    )
    assert script.reply_for([two_parts]) == [TextPart(value="found")]
    # Grouped tool results are separate input items: only the last one counts.
    results = ChatMessage(
        role="user",
        content=[
            ToolResultPart(callId="a", content=[TextPart(value="secret")]),
            ToolResultPart(callId="b", content=[TextPart(value="plain")]),
        ],
    )
    assert script.reply_for([results]) is None


def test_no_match_gives_none(tmp_path: Path) -> None:
    script = load_script(
        write(
            tmp_path,
            {
                "rules": [
                    {"match": "^exact$", "reply": [{"type": "text", "text": "x"}]},
                ]
            },
        )
    )
    assert script.reply_for([user("not exact")]) is None
    assert script.reply_for([]) is None


def test_call_ids_differ_between_turns_and_repeat_between_runs(script: Script) -> None:
    first = script.reply_for([user("list files")])
    later_messages = [
        user("list files"),
        ChatMessage(role="assistant", content=[TextPart(value="Listing them.")]),
        user("list files"),
    ]
    later = script.reply_for(later_messages)
    assert first is not None and later is not None
    assert isinstance(first[-1], ToolCallPart) and isinstance(later[-1], ToolCallPart)
    assert first[-1].callId != later[-1].callId
    assert script.reply_for(later_messages) == later


def test_replies_are_fresh_copies(tmp_path: Path) -> None:
    script = load_script(
        write(
            tmp_path,
            {
                "rules": [
                    {
                        "match": "",
                        "reply": [
                            {
                                "type": "tool_call",
                                "name": "run",
                                "arguments": {"argv": ["ls"], "env": {"A": "1"}},
                            },
                        ],
                    }
                ]
            },
        )
    )
    first = script.reply_for([user("go")])
    assert first is not None and isinstance(first[0], ToolCallPart)
    first[0].input["argv"].append("/")
    first[0].input["env"]["A"] = "2"
    second = script.reply_for([user("go")])
    assert second is not None and isinstance(second[0], ToolCallPart)
    assert second[0].input == {"argv": ["ls"], "env": {"A": "1"}}


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ScriptError, match=r"cannot read script .*nope\.json"):
        load_script(tmp_path / "nope.json")


def test_directory_is_not_a_script(tmp_path: Path) -> None:
    with pytest.raises(ScriptError, match="cannot read script"):
        load_script(tmp_path)


def test_invalid_json(tmp_path: Path) -> None:
    with pytest.raises(ScriptError, match=r"not valid JSON: .*line 2, column"):
        load_script(write(tmp_path, '{"rules": [\n  oops]}'))


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    path.write_bytes(b'{"rules": "\xff"}')
    with pytest.raises(ScriptError, match="not UTF-8"):
        load_script(path)


def test_bad_regex_is_caught_at_load(tmp_path: Path) -> None:
    path = write(tmp_path, {"rules": [{"match": "(unclosed", "reply": []}]})
    with pytest.raises(ScriptError) as caught:
        load_script(path)
    message = str(caught.value)
    assert "rules.0.match" in message
    assert "invalid regular expression '(unclosed'" in message
    assert "Value error" not in message


@pytest.mark.parametrize(
    ("content", "where"),
    [
        ({"rules": [{"mach": "x", "reply": []}]}, "rules.0.mach"),
        ({"rules": [], "rule": []}, "rule"),
        ({"rules": [{"match": "x", "reply": [{"type": "txt", "text": "a"}]}]}, "rules.0.reply.0"),
        (
            {"rules": [{"match": "x", "reply": [{"type": "text", "txt": "a"}]}]},
            "rules.0.reply.0.text",
        ),
        (
            {"rules": [{"match": "x", "reply": [{"type": "tool_call", "arguments": {}}]}]},
            "rules.0.reply.0.tool_call.name",
        ),
        (
            {
                "rules": [
                    {"match": "x", "reply": [{"type": "tool_call", "name": "f", "arguments": 3}]}
                ]
            },
            "rules.0.reply.0.tool_call.arguments",
        ),
        ({"rules": [{"match": "x"}]}, "rules.0.reply"),
        ({}, "rules"),
        ([], "(top level)"),
    ],
)
def test_bad_structure_names_the_place(tmp_path: Path, content: Any, where: str) -> None:
    path = write(tmp_path, content)
    with pytest.raises(ScriptError) as caught:
        load_script(path)
    message = str(caught.value)
    assert message.startswith(f"script {path} is invalid:")
    assert f"  {where}" in message


def test_script_error_is_a_value_error() -> None:
    assert issubclass(ScriptError, ValueError)


def test_a_rule_with_times_answers_that_often_then_lets_the_next_rule_answer(
    tmp_path: Path,
) -> None:
    script = load_script(
        write(
            tmp_path,
            {
                "rules": [
                    {
                        "match": "hi",
                        "times": 2,
                        "reply": [{"type": "error", "code": "Blocked", "message": "Wait."}],
                    },
                    {"match": "hi", "reply": [{"type": "text", "text": "Hello."}]},
                ]
            },
        )
    )
    failing = [Fail("Blocked", "Wait.")]
    assert script.reply_for([user("hi")]) == failing
    assert script.reply_for([user("other")]) is None  # not counted: no match
    assert script.reply_for([user("hi")]) == failing
    assert script.reply_for([user("hi")]) == [TextPart(value="Hello.")]
    assert script.reply_for([user("hi")]) == [TextPart(value="Hello.")]


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        ({"match": "", "times": 0, "reply": []}, "rules.0.times"),
        ({"match": "", "reply": [{"type": "error", "code": "Busy"}]}, "rules.0.reply.0.error.code"),
        ({"match": "", "reply": [{"type": "error", "code": "Blocked", "x": 1}]}, "error.x"),
    ],
)
def test_bad_error_parts_and_times_are_named(
    tmp_path: Path, rule: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ScriptError, match=problem.replace(".", r"\.")):
        load_script(write(tmp_path, {"rules": [rule]}))
