"""`plan_generate` on a real Gemini CLI request mid tool loop, `count_request` (countTokens),
and `prepare_generate` (the path's model, the input count, the schema's checker).

The options, tools, formats, stops and the 400s of a plan: test_gemini_plan.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from counting_backend import CountingBackend
from test_gemini_plan import MODEL, body

from bridge.core.backend import TextPart, ToolCallPart, ToolResultPart
from bridge.core.errors import ApiError
from bridge.core.models import ModelNames
from bridge.gemini.count import count_request
from bridge.gemini.plan import parse_generate_request, plan_generate
from bridge.gemini.prepare import prepare_generate


def gemini_cli_body() -> dict[str, Any]:
    """A Gemini CLI request as it is sent mid tool loop (written by hand after its shape)."""
    call_id = "run_shell_command-1763900000000-0.5"
    return {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {"text": "<session_context>\nThis is the Gemini CLI.\n</session_context>"}
                ],
            },
            {"role": "user", "parts": [{"text": "Create hello.txt containing hi"}]},
            {
                "role": "model",
                "parts": [
                    {
                        "functionCall": {
                            "id": call_id,
                            "name": "run_shell_command",
                            "args": {"command": "echo hi > hello.txt"},
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
                            "id": call_id,
                            "name": "run_shell_command",
                            "response": {"output": "Command: echo hi > hello.txt\nExit Code: 0"},
                        }
                    }
                ],
            },
        ],
        "systemInstruction": {
            "role": "user",
            "parts": [{"text": "You are an interactive CLI agent."}],
        },
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "run_shell_command",
                        "description": "Runs a shell command.",
                        "parametersJsonSchema": {
                            "type": "object",
                            "properties": {
                                "command": {"type": "string", "description": "The command."},
                                "description": {"type": "string"},
                            },
                            "required": ["command"],
                        },
                    },
                    {
                        "name": "read_file",
                        "description": "Reads a file.",
                        "parametersJsonSchema": {
                            "type": "object",
                            "properties": {"file_path": {"type": "string"}},
                            "required": ["file_path"],
                        },
                    },
                ]
            }
        ],
        "generationConfig": {
            "temperature": 1,
            "topP": 0.95,
            "topK": 64,
            "thinkingConfig": {"includeThoughts": True, "thinkingLevel": "HIGH"},
        },
    }


def test_a_gemini_cli_request_mid_tool_loop() -> None:
    got = plan_generate(
        parse_generate_request(gemini_cli_body()), "gemini-3-pro-preview", MODEL, True
    )
    call_id = "run_shell_command-1763900000000-0.5"
    assert got.include_thoughts is True and got.stream is True
    assert got.chat.modelOptions == {"temperature": 1}
    assert got.chat.modelConfiguration == {"reasoningEffort": "high"}
    assert [t.name for t in got.chat.tools] == ["run_shell_command", "read_file"]
    roles = [m.role for m in got.chat.messages]
    assert roles == ["user", "user", "assistant", "user"]  # consecutive user contents: one
    assert got.chat.messages[0].content == [TextPart(value="You are an interactive CLI agent.")]
    assert got.chat.messages[2].content == [
        ToolCallPart(
            callId=call_id, name="run_shell_command", input={"command": "echo hi > hello.txt"}
        )
    ]
    assert got.chat.messages[3].content == [
        ToolResultPart(
            callId=call_id, content=[TextPart(value="Command: echo hi > hello.txt\nExit Code: 0")]
        )
    ]


def test_count_request_from_contents_or_a_whole_request() -> None:
    alone = count_request({"contents": [{"parts": [{"text": "hi"}]}]}, MODEL)
    assert alone.messages[0].content == [TextPart(value="hi")] and alone.tools == []
    whole = count_request(
        {"generateContentRequest": {"model": "models/x", **gemini_cli_body()}}, MODEL
    )
    assert [t.name for t in whole.tools] == ["run_shell_command", "read_file"]
    assert whole.messages[0].content == [TextPart(value="You are an interactive CLI agent.")]


@pytest.mark.parametrize(
    ("raw", "param"),
    [
        ({}, "contents"),
        ({"contents": [{"parts": [{"text": 1}]}]}, "contents[0].parts[0].text"),
        (
            {"generateContentRequest": {"contents": [{"role": "x", "parts": []}]}},
            "generateContentRequest.contents[0].role",
        ),
        ({"generateContentRequest": []}, "generateContentRequest"),
        ({"contents": [], "generateContentRequest": {"contents": []}}, "generateContentRequest"),
    ],
)
def test_count_request_errors_name_the_field(raw: dict[str, Any], param: str) -> None:
    with pytest.raises(ApiError) as caught:
        count_request(raw, MODEL)
    assert caught.value.status == 400 and caught.value.param == param


async def test_prepare_resolves_the_path_model_and_counts_the_input() -> None:
    backend = CountingBackend()
    got = await prepare_generate(backend, body(), "models/sim-echo", True, ModelNames())
    assert got.model == "sim-echo" and got.chat.model == "sim-echo" and got.stream is True
    assert got.chat.countInput is None  # it fits for certain: not counted
    small = CountingBackend(max_input_tokens=1)  # 2 bytes may not fit: the editor counts
    counted = await prepare_generate(small, body(), "sim-echo", False, ModelNames())
    assert counted.chat.countInput is not None and counted.chat.countInput.maxTokens == 1


async def test_prepare_an_unknown_model_is_a_404_and_a_long_input_names_contents() -> None:
    with pytest.raises(ApiError) as caught:
        await prepare_generate(CountingBackend(), body(), "models/nope", False, ModelNames())
    assert caught.value.status == 404
    long = {"contents": [{"parts": [{"text": "word " * 50}]}]}
    got = await prepare_generate(
        CountingBackend(max_input_tokens=10), long, "sim-echo", False, ModelNames()
    )
    assert got.chat.inputParam == "contents"  # what the editor's refusal becomes a 400 for


async def test_prepare_gives_a_schema_its_checker() -> None:
    raw = body(
        generationConfig={
            "responseMimeType": "application/json",
            "responseJsonSchema": {"type": "OBJECT", "properties": {"a": {"type": "STRING"}}},
        }
    )
    got = await prepare_generate(CountingBackend(), raw, "sim-echo", False, ModelNames())
    assert got.output_format is not None and got.output_format.checker is not None
