"""`parse_generate_request` + `plan_generate`: options, tools, formats, stops, the 400s."""

from __future__ import annotations

from typing import Any

import pytest

from bridge.core.backend import ModelInfo, TextPart
from bridge.core.errors import ApiError
from bridge.gemini.plan import JUSTIFICATION, GeminiPlan, parse_generate_request, plan_generate

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
    assert got.chat.modelOptions == {"maxOutputTokens": 50, "temperature": 0.5}


@pytest.mark.parametrize(
    ("raw", "param"),
    [
        ([], None),
        ({"contents": []}, "contents"),
        ({"contents": [{"parts": [{"text": 3}]}]}, "contents[0].parts[0].text"),
        ({"contents": [{"role": "x", "parts": [{"text": "a"}]}]}, "contents[0].role"),
        (body(generationConfig={"maxOutputTokens": 0}), "generationConfig.maxOutputTokens"),
        (body(generation_config={"temperature": "hot"}), "generationConfig.temperature"),
    ],
)
def test_bad_bodies_name_the_field(raw: Any, param: str | None) -> None:
    assert error(raw).param == param
