"""`contents` + `systemInstruction` -> editor messages: parts, images, thoughts, call pairing."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from bridge.core.backend import (
    ChatMessage,
    DataPart,
    MessagePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from bridge.core.errors import ApiError
from bridge.core.history import NO_CALL
from bridge.gemini.convert import editor_messages
from bridge.gemini.fields import validated
from bridge.gemini.protocol import GenerateContentRequest
from bridge.gemini.wire import TYPED

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
PNG_B64 = base64.b64encode(PNG).decode("ascii")
PNG_URLSAFE = base64.urlsafe_b64encode(b"\x89PNG\r\n\x1a\n" + b"\xfb\xff" * 8).decode().rstrip("=")


def convert(contents: list[Any], system: Any = None) -> list[ChatMessage]:
    body: dict[str, Any] = {"contents": contents}
    if system is not None:
        body["systemInstruction"] = system
    request = TYPED.from_validated(validated(body, GenerateContentRequest))
    return editor_messages(request.contents, request.system_instruction)


def user(*parts: MessagePart) -> ChatMessage:
    return ChatMessage(role="user", content=list(parts))


def model(*parts: MessagePart) -> ChatMessage:
    return ChatMessage(role="assistant", content=list(parts))


def text(value: str) -> TextPart:
    return TextPart(value=value)


def test_roles_and_text() -> None:
    got = convert(
        [
            {"parts": [{"text": "hi"}]},  # no role: the user
            {"role": "model", "parts": [{"text": "hello"}]},
            {"role": "user", "parts": [{"text": "a"}, {"text": "b"}]},
        ]
    )
    assert got == [user(text("hi")), model(text("hello")), user(text("a"), text("b"))]


def test_the_system_instruction_comes_first_as_a_user_message() -> None:
    got = convert([{"parts": [{"text": "hi"}]}], {"role": "user", "parts": [{"text": "Be brief"}]})
    assert got == [user(text("Be brief")), user(text("hi"))]
    assert convert([{"parts": [{"text": "hi"}]}], "Plain")[0] == user(text("Plain"))


def test_thought_parts_are_dropped() -> None:
    got = convert(
        [
            {"parts": [{"text": "q"}]},
            {
                "role": "model",
                "parts": [
                    {"text": "I should answer", "thought": True, "thoughtSignature": "c2ln"},
                    {"text": "answer", "thoughtSignature": "c2ln"},
                ],
            },
        ]
    )
    assert got == [user(text("q")), model(text("answer"))]


@pytest.mark.parametrize("key", ["inlineData", "inline_data"])
def test_inline_images_are_checked_by_their_bytes(key: str) -> None:
    got = convert([{"parts": [{key: {"mimeType": "image/jpeg", "data": PNG_B64}}]}])
    assert got == [user(DataPart(mimeType="image/png", data=PNG_B64))]


def test_url_safe_unpadded_base64_is_accepted() -> None:
    got = convert([{"parts": [{"inlineData": {"mimeType": "image/png", "data": PNG_URLSAFE}}]}])
    part = got[0].content[0]
    assert isinstance(part, DataPart) and part.mimeType == "image/png"
    assert base64.b64decode(part.data).startswith(b"\x89PNG")


def test_inline_text_files_are_read() -> None:
    data = base64.b64encode(b"print('hi')\n").decode()
    got = convert([{"parts": [{"inlineData": {"mimeType": "text/x-python", "data": data}}]}])
    assert got == [user(text("[file inline text/x-python:]\nprint('hi')\n"))]


def test_invalid_base64_names_the_field() -> None:
    with pytest.raises(ApiError) as caught:
        convert(
            [
                {"parts": [{"text": "a"}]},
                {"role": "model", "parts": [{"text": "b"}]},
                {"parts": [{"inlineData": {"mimeType": "image/png", "data": "%%%"}}]},
            ]
        )
    assert caught.value.status == 400
    assert caught.value.param == "contents[2].parts[0].inlineData.data"


def test_invalid_base64_names_its_place_after_equal_valid_parts() -> None:
    # Equal parts before it read fine: the param is where the bad one is, in a long history.
    image = {"inlineData": {"mimeType": "image/png", "data": PNG_B64}}
    bad = {"inlineData": {"mimeType": "image/png", "data": "%%%"}}
    history = [{"parts": [{"text": "a"}, image]}, {"role": "model", "parts": [{"text": "b"}]}] * 30
    response = {
        "functionResponse": {"name": "f", "response": {"output": "x"}, "parts": [image, bad]}
    }
    with pytest.raises(ApiError) as caught:
        convert([*history, {"parts": [image, {"text": "c"}, response]}])
    assert caught.value.param == "contents[60].parts[2].functionResponse.parts[1].inlineData.data"


def test_file_data_becomes_a_note() -> None:
    got = convert(
        [{"parts": [{"fileData": {"mimeType": "application/pdf", "fileUri": "gs://b/x.pdf"}}]}]
    )
    [note] = got[0].content
    assert isinstance(note, TextPart) and "gs://b/x.pdf" in note.value
    assert note.value.startswith("[file not included")


def test_code_execution_parts_become_text() -> None:
    got = convert(
        [
            {"parts": [{"text": "run"}]},
            {
                "role": "model",
                "parts": [
                    {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
                    {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1\n"}},
                ],
            },
        ]
    )
    assert got[1] == model(
        text("[code executed:]\n```python\nprint(1)\n```"),
        text("[code execution result (OUTCOME_OK):]\n1\n"),
    )


def call(name: str, args: dict[str, Any], call_id: str | None = None) -> dict[str, Any]:
    inner: dict[str, Any] = {"name": name, "args": args}
    if call_id is not None:
        inner["id"] = call_id
    return {"functionCall": inner}


def response(name: str, output: Any, call_id: str | None = None) -> dict[str, Any]:
    inner: dict[str, Any] = {"name": name, "response": {"output": output}}
    if call_id is not None:
        inner["id"] = call_id
    return {"functionResponse": inner}


def test_gemini_cli_replay_pairs_by_its_made_up_ids() -> None:
    """What Gemini CLI sends back: made-up ids, a synthetic thought signature, `{output}`."""
    got = convert(
        [
            {"role": "user", "parts": [{"text": "list the files"}]},
            {
                "role": "model",
                "parts": [
                    {
                        "functionCall": {
                            "id": "list_directory-1763900000000-a1b2c3",
                            "name": "list_directory",
                            "args": {"dir_path": "."},
                        },
                        "thoughtSignature": "skip_thought_signature_validator",
                    }
                ],
            },
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "list_directory-1763900000000-a1b2c3",
                            "name": "list_directory",
                            "response": {"output": "a.txt\nb.txt"},
                        }
                    }
                ],
            },
        ]
    )
    call_id = "list_directory-1763900000000-a1b2c3"
    assert got[1:] == [
        model(ToolCallPart(callId=call_id, name="list_directory", input={"dir_path": "."})),
        user(ToolResultPart(callId=call_id, content=[text("a.txt\nb.txt")])),
    ]


def test_calls_without_ids_pair_by_order_and_name() -> None:
    got = convert(
        [
            {"parts": [{"text": "go"}]},
            {
                "role": "model",
                "parts": [call("read", {"p": 1}), call("ls", {}), call("read", {"p": 2})],
            },
            # Responses in another order than the calls: each takes its name's first call.
            {"parts": [response("ls", "dir"), response("read", "one"), response("read", "two")]},
        ]
    )
    calls = [p for p in got[1].content if isinstance(p, ToolCallPart)]
    results = [p for p in got[2].content if isinstance(p, ToolResultPart)]
    assert [(c.name, c.input) for c in calls] == [
        ("read", {"p": 1}),
        ("ls", {}),
        ("read", {"p": 2}),
    ]
    by_id = {r.callId: r.content for r in results}
    assert by_id[calls[0].callId] == [text("one")]
    assert by_id[calls[1].callId] == [text("dir")]
    assert by_id[calls[2].callId] == [text("two")]
    assert len({c.callId for c in calls}) == 3


def test_a_response_without_id_pairs_with_a_call_that_has_one() -> None:
    got = convert(
        [
            {"parts": [{"text": "go"}]},
            {"role": "model", "parts": [call("ls", {}, "c1")]},
            {"parts": [response("ls", "dir")]},
        ]
    )
    assert got[2] == user(ToolResultPart(callId="c1", content=[text("dir")]))


def test_only_the_latest_model_turn_waits_for_responses() -> None:
    got = convert(
        [
            {"parts": [{"text": "go"}]},
            {"role": "model", "parts": [call("ls", {})]},  # never answered
            {"parts": [{"text": "never mind"}]},
            {"role": "model", "parts": [call("ls", {"all": True})]},
            {"parts": [response("ls", "dir")]},
        ]
    )
    assert isinstance(got[1].content[0], TextPart)  # the unanswered call, as text
    paired = got[3].content[0]
    assert isinstance(paired, ToolCallPart) and paired.input == {"all": True}
    result = got[4].content[0]
    assert isinstance(result, ToolResultPart) and result.callId == paired.callId


def test_an_unpaired_response_becomes_labelled_text() -> None:
    got = convert([{"parts": [response("ls", "dir", "gone")]}])
    assert got == [user(text(f"[Result of tool call gone, {NO_CALL}:]"), text("dir"))]


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        ({"output": "plain"}, "plain"),
        ({"error": "boom"}, "Error: boom"),
        ({}, ""),
        ({"output": {"rows": 2}}, '{"output": {"rows": 2}}'),
        ({"result": 1, "note": "x"}, '{"result": 1, "note": "x"}'),
    ],
)
def test_response_bodies_as_text(body: dict[str, Any], shown: str) -> None:
    got = convert(
        [
            {"parts": [{"text": "go"}]},
            {"role": "model", "parts": [call("f", {}, "c")]},
            {"parts": [{"functionResponse": {"id": "c", "name": "f", "response": body}}]},
        ]
    )
    assert got[2] == user(ToolResultPart(callId="c", content=[text(shown)]))


def test_images_in_a_function_response() -> None:
    got = convert(
        [
            {"parts": [{"text": "go"}]},
            {"role": "model", "parts": [call("shot", {}, "c")]},
            {
                "parts": [
                    {
                        "functionResponse": {
                            "id": "c",
                            "name": "shot",
                            "response": {"output": "taken"},
                            "parts": [{"inlineData": {"mimeType": "image/png", "data": PNG_B64}}],
                        }
                    }
                ]
            },
        ]
    )
    assert got[2] == user(
        ToolResultPart(
            callId="c", content=[text("taken"), DataPart(mimeType="image/png", data=PNG_B64)]
        )
    )


def test_images_in_a_model_turn_are_only_noted() -> None:
    got = convert(
        [
            {"parts": [{"text": "draw"}]},
            {
                "role": "model",
                "parts": [{"inlineData": {"mimeType": "image/png", "data": PNG_B64}}],
            },
        ]
    )
    [note] = got[1].content
    assert isinstance(note, TextPart) and "not included" in note.value
