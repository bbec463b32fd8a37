"""Any JSON in any place of a Gemini request: a plan or a 400, never another exception."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.core.backend import ModelInfo
from bridge.core.errors import ApiError
from bridge.gemini.count import count_request
from bridge.gemini.plan import parse_generate_request, plan_generate

MODEL = ModelInfo(id="sim-echo")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)
DATA = st.sampled_from(["iVBORw0KGgoAAAAA", "aGk=", "aGk", "a-_b", "%%", "", "=" * 5])
MIMES = st.sampled_from(["image/png", "image/jpeg", "text/plain", "application/pdf", "", "x"])
blob = st.fixed_dictionaries(
    {"data": DATA | json_values}, optional={"mimeType": MIMES | json_values}
)
call = st.fixed_dictionaries(
    {"name": st.sampled_from(["f", "g"]) | json_values},
    optional={"id": st.sampled_from(["c1", "c2", ""]) | json_values, "args": json_values},
)
result = st.fixed_dictionaries(
    {"name": st.sampled_from(["f", "g"]) | json_values},
    optional={
        "id": st.sampled_from(["c1", "c2"]) | json_values,
        "response": st.just({"output": "x"}) | json_values,
        "parts": st.lists(st.fixed_dictionaries({}, optional={"inlineData": blob}), max_size=2)
        | json_values,
    },
)
part = st.fixed_dictionaries(
    {},
    optional={
        "text": st.text(max_size=5) | json_values,
        "inlineData": blob | json_values,
        "inline_data": blob,
        "fileData": st.fixed_dictionaries({"fileUri": st.just("gs://x")}) | json_values,
        "functionCall": call | json_values,
        "functionResponse": result | json_values,
        "executableCode": json_values,
        "codeExecutionResult": json_values,
        "thought": st.booleans() | json_values,
        "thoughtSignature": st.just("skip_thought_signature_validator") | json_values,
    },
)
content = st.fixed_dictionaries(
    {"parts": st.lists(part, max_size=3) | json_values},
    optional={"role": st.sampled_from(["user", "model", "function", "x"]) | json_values},
)
openapi_schema = st.recursive(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["STRING", "INTEGER", "object", "X"]) | json_values},
        optional={"nullable": json_values, "enum": json_values, "example": json_values},
    ),
    lambda inner: st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(["OBJECT", "ARRAY", "TYPE_UNSPECIFIED"]),
            "properties": st.dictionaries(st.text(max_size=3), inner, max_size=2) | json_values,
            "items": inner | json_values,
            "anyOf": st.lists(inner, max_size=2) | json_values,
            "required": json_values,
            "propertyOrdering": json_values,
            "nullable": st.booleans(),
        },
    ),
    max_leaves=6,
)
declaration = st.fixed_dictionaries(
    {"name": st.sampled_from(["f", "g", ""]) | json_values},
    optional={
        "description": json_values,
        "parameters": openapi_schema | json_values,
        "parametersJsonSchema": openapi_schema | json_values,
    },
)
tool: st.SearchStrategy[dict[str, Any]] = st.fixed_dictionaries(
    {}, optional={"functionDeclarations": st.lists(declaration, max_size=2) | json_values}
) | st.just({"googleSearch": {}})
function_config = st.fixed_dictionaries(
    {},
    optional={
        "mode": st.sampled_from(["AUTO", "ANY", "NONE", "VALIDATED", "x"]) | json_values,
        "allowedFunctionNames": st.lists(st.sampled_from(["f", "g", "h"])) | json_values,
    },
)
generation_config = st.fixed_dictionaries(
    {},
    optional={
        "maxOutputTokens": st.integers(-1, 10) | json_values,
        "temperature": st.floats(-1, 3, allow_nan=False) | json_values,
        "topP": json_values,
        "candidateCount": st.integers(0, 2) | json_values,
        "stopSequences": st.lists(st.text(max_size=3), max_size=3) | json_values,
        "responseMimeType": st.sampled_from(["application/json", "text/x.enum", "text/plain"])
        | json_values,
        "responseSchema": openapi_schema | json_values,
        "responseJsonSchema": openapi_schema | json_values,
        "responseModalities": json_values,
        "thinkingConfig": st.fixed_dictionaries(
            {},
            optional={
                "includeThoughts": json_values,
                "thinkingBudget": st.integers(-2, 40000) | json_values,
                "thinkingLevel": st.sampled_from(["LOW", "HIGH", "x"]) | json_values,
            },
        )
        | json_values,
        "logprobs": json_values,
        "speechConfig": json_values,
    },
)
bodies = st.fixed_dictionaries(
    {"contents": st.lists(content, max_size=4) | json_values},
    optional={
        "systemInstruction": content | st.text(max_size=4) | json_values,
        "tools": st.lists(tool, max_size=2) | json_values,
        "toolConfig": st.fixed_dictionaries({"functionCallingConfig": function_config})
        | json_values,
        "generationConfig": generation_config | json_values,
        "cachedContent": json_values,
        "safetySettings": json_values,
    },
)


def plans_or_400(raw: Any) -> None:
    try:
        plan = plan_generate(parse_generate_request(raw), "gemini-x", MODEL, False)
    except ApiError as error:
        assert error.status == 400 and error.message
        return
    plan.chat.model_dump_json()  # what goes to the editor is serialisable


@settings(max_examples=400, deadline=None)
@given(bodies)
def test_any_generate_body_plans_or_is_a_400(raw: dict[str, Any]) -> None:
    plans_or_400(raw)


@settings(max_examples=100, deadline=None)
@given(json_values)
def test_any_json_plans_or_is_a_400(raw: Any) -> None:
    plans_or_400(raw)


@settings(max_examples=150, deadline=None)
@given(bodies | json_values, st.booleans())
def test_any_count_body_is_a_request_or_a_400(raw: Any, nested: bool) -> None:
    try:
        count_request({"generateContentRequest": raw} if nested else raw, MODEL)
    except ApiError as error:
        assert error.status == 400 and error.message


SCHEMA_KEYS = st.sampled_from(
    [
        "type",
        "nullable",
        "enum",
        "anyOf",
        "any_of",
        "items",
        "properties",
        "required",
        "example",
        "propertyOrdering",
        "defs",
        "ref",
        "format",
        "minItems",
        "$defs",
        "x",
    ]
)
schema_like = st.recursive(
    json_values,
    lambda inner: (
        st.dictionaries(SCHEMA_KEYS, inner | st.sampled_from(["STRING", True]), max_size=4)
        | st.lists(inner, max_size=2)
    ),
    max_leaves=10,
)


@settings(max_examples=400, deadline=None)
@given(schema_like)
def test_any_schema_converts_or_is_a_400(raw: Any) -> None:
    for schema_field in ("responseSchema", "responseJsonSchema"):
        plans_or_400(
            {
                "contents": [{"parts": [{"text": "hi"}]}],
                "generationConfig": {"responseMimeType": "application/json", schema_field: raw},
            }
        )
    plans_or_400(
        {
            "contents": [{"parts": [{"text": "hi"}]}],
            "tools": [{"functionDeclarations": [{"name": "f", "parameters": raw}]}],
        }
    )
