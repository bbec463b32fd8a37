"""`parse_generate_request` + `plan_generate`: options, tools, formats, stops, the 400s.

A real Gemini CLI request, `count_request` and `prepare_generate`: test_gemini_plan_requests.py.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from bridge.core.backend import ChatTool, ModelInfo, TextPart
from bridge.core.errors import ApiError
from bridge.core.structured_output import OutputFormat
from bridge.core.turn_notes import HEADER
from bridge.gemini.plan import JUSTIFICATION, GeminiPlan, parse_generate_request, plan_generate
from bridge.gemini.tools import EMPTY_SCHEMA

MODEL = ModelInfo(id="sim-echo", maxInputTokens=100_000)


def body(**extra: Any) -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], **extra}


def plan(**extra: Any) -> GeminiPlan:
    return plan_generate(parse_generate_request(body(**extra)), "gemini-2.5-flash", MODEL, False)


def error(raw: Any) -> ApiError:
    with pytest.raises(ApiError) as caught:
        plan_generate(parse_generate_request(raw), "gemini-2.5-flash", MODEL, False)
    assert caught.value.status == 400
    assert caught.value.message
    return caught.value


def test_a_minimal_request() -> None:
    got = plan()
    assert got.model == "gemini-2.5-flash" and got.chat.model == "sim-echo"
    assert got.stream is False and got.stop_sequences == [] and got.include_thoughts is False
    assert got.output_format is None and got.chat.modelOptions == {}
    assert got.chat.tools == [] and got.chat.toolMode == "auto"
    assert got.chat.justification == JUSTIFICATION
    assert [m.role for m in got.chat.messages] == ["user"]
    assert got.chat.messages[0].content == [TextPart(value="hi")]


def test_the_stream_flag_comes_from_the_route() -> None:
    request = parse_generate_request(body())
    assert plan_generate(request, "gemini-2.5-flash", MODEL, True).stream is True


@pytest.mark.parametrize("key", ["systemInstruction", "system_instruction"])
def test_the_system_instruction_comes_first(key: str) -> None:
    got = plan(**{key: {"role": "system", "parts": [{"text": "Be brief."}]}})
    assert [m.content for m in got.chat.messages] == [
        [TextPart(value="Be brief.")],
        [TextPart(value="hi")],
    ]
    assert plan(**{key: "Be brief."}).chat.messages[0].content == [TextPart(value="Be brief.")]


@pytest.mark.parametrize(
    "config",
    [
        {"maxOutputTokens": 50, "temperature": 0.5},
        {"max_output_tokens": 50, "temperature": 0.5},
    ],
)
def test_max_output_tokens_and_temperature(config: dict[str, Any]) -> None:
    got = plan(generationConfig=config)
    assert got.chat.modelOptions == {"max_tokens": 50, "temperature": 0.5}


@pytest.mark.parametrize(
    ("raw", "param"),
    [
        ([], None),
        ({"contents": []}, "contents"),
        ({"contents": [], "systemInstruction": "Be brief."}, "contents"),
        ({"contents": [{"parts": [{"text": "x", "thought": True}]}]}, "contents"),
        ({"contents": [{"parts": [{"text": 3}]}]}, "contents[0].parts[0].text"),
        ({"contents": [{"role": "x", "parts": [{"text": "a"}]}]}, "contents[0].role"),
        (body(generationConfig={"maxOutputTokens": 0}), "generationConfig.maxOutputTokens"),
        (body(generation_config={"temperature": "hot"}), "generationConfig.temperature"),
    ],
)
def test_bad_bodies_name_the_field(raw: Any, param: str | None) -> None:
    assert error(raw).param == param


def declaration(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "description": f"the {name} tool", **extra}


def tools(*declarations: dict[str, Any], **extra: Any) -> list[dict[str, Any]]:
    return [{"functionDeclarations": list(declarations)}, *([extra] if extra else [])]


def test_function_declarations_become_tools() -> None:
    got = plan(
        tools=tools(
            declaration(
                "ls", parameters={"type": "OBJECT", "properties": {"d": {"type": "STRING"}}}
            ),
            declaration("pwd"),
            declaration("cat", parametersJsonSchema={"type": "object", "required": ["p"]}),
        )
    )
    assert got.chat.tools == [
        ChatTool(
            name="ls",
            description="the ls tool",
            inputSchema={"type": "object", "properties": {"d": {"type": "string"}}},
        ),
        ChatTool(name="pwd", description="the pwd tool", inputSchema=EMPTY_SCHEMA),
        ChatTool(
            name="cat",
            description="the cat tool",
            # Copilot's upstream wants `properties`, and `required` naming only those.
            inputSchema={"type": "object", "required": [], "properties": {}},
        ),
    ]
    assert got.chat.toolMode == "auto"


def test_hosted_tools_are_left_out_and_names_stay_unique() -> None:
    got = plan(
        tools=[
            {"googleSearch": {}},
            {"function_declarations": [declaration("a"), declaration("a", description="2nd")]},
            {"codeExecution": {}, "urlContext": {}},
        ]
    )
    assert [(t.name, t.description) for t in got.chat.tools] == [("a", "the a tool")]


@pytest.mark.parametrize(
    ("config", "names", "mode"),
    [
        ({"mode": "AUTO"}, ["a", "b"], "auto"),
        ({"mode": "VALIDATED"}, ["a", "b"], "auto"),
        # Copilot throws for required with several tools: auto plus an instruction.
        ({"mode": "any"}, ["a", "b"], "auto"),
        ({"mode": "NONE"}, [], "auto"),
        ({"mode": "ANY", "allowedFunctionNames": ["b"]}, ["b"], "required"),
        ({"allowed_function_names": ["a"]}, ["a"], "auto"),
    ],
)
def test_function_calling_config(config: dict[str, Any], names: list[str], mode: str) -> None:
    got = plan(
        tools=tools(declaration("a"), declaration("b")),
        toolConfig={"functionCallingConfig": config},
    )
    assert [t.name for t in got.chat.tools] == names and got.chat.toolMode == mode


def test_generation_config_options_and_thinking() -> None:
    got = plan(
        generationConfig={
            "topP": 0.9,
            "topK": 40,
            "seed": 7,
            "candidateCount": 1,
            "presencePenalty": 0.5,
            "frequencyPenalty": 0.25,
            "stopSequences": ["END"],
            "thinkingConfig": {"includeThoughts": True, "thinkingBudget": 8000},
        }
    )
    # Copilot's keys only (topP has no way through: docs/github-copilot.md); the effort in
    # modelConfiguration.
    assert got.chat.modelOptions == {
        "presence_penalty": 0.5,
        "frequency_penalty": 0.25,
        "stop": "END",
    }
    assert got.chat.modelConfiguration == {"reasoningEffort": "medium"}
    assert got.include_thoughts is True


@pytest.mark.parametrize(
    ("thinking", "effort"),
    [
        ({"thinkingLevel": "LOW"}, "low"),
        ({"thinking_level": "high"}, "high"),
        ({"thinkingLevel": "MINIMAL"}, "low"),  # the nearest level every model takes
        ({"thinkingBudget": 0}, None),  # no level turns reasoning off on every model
        ({"thinkingBudget": -1}, None),
        ({"thinkingBudget": 1024}, "low"),
        ({"thinkingBudget": 8192}, "medium"),
        ({"thinkingBudget": 30000}, "high"),
        ({"thinkingLevel": "galaxy"}, None),
    ],
)
def test_thinking_config_becomes_an_effort(thinking: dict[str, Any], effort: str | None) -> None:
    chat = plan(generationConfig={"thinkingConfig": thinking}).chat
    assert chat.modelConfiguration.get("reasoningEffort") == effort
    assert "reasoningEffort" not in chat.modelOptions


def test_stop_sequences() -> None:
    got = plan(generationConfig={"stopSequences": ["END", "", "END", "##"]})
    assert got.stop_sequences == ["END", "##"]


def test_json_with_a_response_schema() -> None:
    got = plan(
        generationConfig={
            "responseMimeType": "application/json",
            "responseSchema": {"type": "OBJECT", "properties": {"n": {"type": "INTEGER"}}},
        }
    )
    assert got.output_format == OutputFormat(
        "json_schema", schema={"type": "object", "properties": {"n": {"type": "integer"}}}
    )
    assert got.output_format is not None
    assert got.output_format.param == "generationConfig.responseSchema"
    assert "responseFormat" not in got.chat.modelOptions  # Copilot would drop it
    assert got.chat.messages[-1].content[0] == TextPart(value=HEADER)  # after the history
    note = got.chat.messages[-1].content[1]
    assert isinstance(note, TextPart) and "JSON Schema" in note.value


def test_json_with_a_response_json_schema_and_without_any() -> None:
    fmt = plan(
        generationConfig={
            "response_mime_type": "application/json",
            "response_json_schema": {"type": "OBJECT", "properties": {"x": {"type": "STRING"}}},
        }
    ).output_format
    assert fmt is not None and fmt.param == "generationConfig.responseJsonSchema"
    assert fmt.schema == {"type": "object", "properties": {"x": {"type": "string"}}}
    bare = plan(generationConfig={"responseMimeType": "application/json"}).output_format
    assert bare is not None and bare.kind == "json_object"
    assert plan(generationConfig={"responseMimeType": "text/plain"}).output_format is None


def test_an_enum_answer_is_asked_for_by_an_instruction() -> None:
    got = plan(
        generationConfig={
            "responseMimeType": "text/x.enum",
            "responseSchema": {"type": "STRING", "enum": ["red", "green"]},
        }
    )
    assert got.output_format is None
    assert got.chat.messages[0].content == [TextPart(value="hi")]
    note = got.chat.messages[-1].content  # after the history (bridge/core/turn_notes.py)
    assert note[0] == TextPart(value=HEADER)
    assert isinstance(note[1], TextPart) and note[1].value.endswith("red\ngreen")


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"generationConfig": {"candidateCount": 2}}, "generationConfig.candidateCount"),
        ({"generationConfig": {"responseLogprobs": True}}, "generationConfig.responseLogprobs"),
        ({"generationConfig": {"logprobs": 3}}, "generationConfig.logprobs"),
        (
            {"generationConfig": {"responseModalities": ["IMAGE"]}},
            "generationConfig.responseModalities",
        ),
        ({"generationConfig": {"speechConfig": {}}}, "generationConfig.speechConfig"),
        ({"cachedContent": "cachedContents/abc"}, "cachedContent"),
        (
            {"generationConfig": {"responseMimeType": "text/html"}},
            "generationConfig.responseMimeType",
        ),
        (
            {
                "generationConfig": {
                    "responseMimeType": "text/x.enum",
                    "responseSchema": {"type": "STRING"},
                }
            },
            "generationConfig.responseSchema",
        ),
        (
            {"generationConfig": {"responseSchema": {"type": "X"}}},
            "generationConfig.responseSchema.type",
        ),
        (
            {"generationConfig": {"responseSchema": {}, "responseJsonSchema": {}}},
            "generationConfig.responseSchema",
        ),
        (
            {"generationConfig": {"stopSequences": ["x" * 1001]}},
            "generationConfig.stopSequences[0]",
        ),
        (
            {"tools": [{"functionDeclarations": [{"description": "x"}]}]},
            "tools[0].functionDeclarations[0].name",
        ),
        (
            {"tools": tools(declaration("a", parameters={}, parametersJsonSchema={}))},
            "tools[0].functionDeclarations[0]",
        ),
        ({"tools": [{"functionDeclarations": {}}]}, "tools[0].functionDeclarations"),
        ({"tools": ["x"]}, "tools[0]"),
        (
            {
                "tools": tools(declaration("a")),
                "toolConfig": {"functionCallingConfig": {"mode": "SOME"}},
            },
            "toolConfig.functionCallingConfig.mode",
        ),
        (
            {
                "tools": tools(declaration("a")),
                "toolConfig": {
                    "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["a", "zz"]}
                },
            },
            "toolConfig.functionCallingConfig.allowedFunctionNames[1]",
        ),
        (
            {"toolConfig": {"functionCallingConfig": {"mode": "ANY"}}},
            "toolConfig.functionCallingConfig.mode",
        ),
    ],
)
def test_refused_and_bad_fields_are_named(extra: dict[str, Any], param: str) -> None:
    got = error(body(**extra))
    assert got.param == param
    assert f"`{param}" in got.message or param.split(".")[-1] in got.message


def test_ignored_fields_are_logged_by_name_only(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="bridge.gemini.options")
    plan(
        safetySettings=[{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
        labels={"team": "secret-value"},
        generationConfig={"seed": 3, "newThing": 1},
        futureField=True,
    )
    logged = caplog.text
    assert "safetySettings" in logged and "generationConfig.seed" in logged
    assert "futureField" in logged and "generationConfig.newThing" in logged
    assert "secret-value" not in logged
