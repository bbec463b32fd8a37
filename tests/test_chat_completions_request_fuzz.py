"""Any JSON in any place of a Chat Completions request: a plan or a 400, never another exception."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.chat.plan import parse_completion_request, plan_completion
from bridge.core.backend import ModelInfo
from bridge.core.errors import ApiError

MODEL = ModelInfo(id="sim-echo")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)
PART_TYPES = ["text", "image_url", "file", "refusal", "input_audio", "weird"]
PART_KEYS = ["text", "image_url", "file", "refusal", "input_audio"]
IMAGE_URLS = st.sampled_from(
    [
        "https://example.com/a.png",
        "data:image/png;base64,iVBORw0KGgo=",
        "data:image/png;base64,???",
        "data:,x",
    ]
)
parts = st.fixed_dictionaries(
    {"type": st.sampled_from(PART_TYPES)},
    optional={
        key: st.fixed_dictionaries({"url": IMAGE_URLS}) | json_values
        if key == "image_url"
        else json_values
        for key in PART_KEYS
    },
)
content = st.text(max_size=5) | st.lists(parts, max_size=3) | json_values
tool_calls = st.lists(
    st.fixed_dictionaries(
        {"id": st.sampled_from(["a", "b"]) | json_values},
        optional={
            "type": st.sampled_from(["function", "custom"]) | json_values,
            "function": st.fixed_dictionaries(
                {"name": st.just("f") | json_values},
                optional={"arguments": st.sampled_from(["{}", '{"x": 1}', "[", "3"]) | json_values},
            )
            | json_values,
            "custom": json_values,
        },
    ),
    max_size=2,
)
ANY_MESSAGE = st.fixed_dictionaries(
    {
        "role": st.sampled_from(
            ["system", "developer", "user", "assistant", "tool", "function", "x"]
        )
    },
    optional={
        "content": content,
        "tool_calls": tool_calls | json_values,
        "tool_call_id": st.sampled_from(["a", "b"]) | json_values,
        "name": st.just("f") | json_values,
        "refusal": json_values,
        "function_call": json_values,
    },
)
TEXT_PARTS = st.lists(
    st.fixed_dictionaries({"type": st.just("text"), "text": st.text(max_size=5)})
    | st.fixed_dictionaries(
        {"type": st.just("image_url"), "image_url": st.fixed_dictionaries({"url": IMAGE_URLS})}
    )
    | st.fixed_dictionaries({"type": st.just("file"), "file": st.just({"file_data": "aGk="})}),
    max_size=2,
)
GOOD_CONTENT = st.text(max_size=5) | TEXT_PARTS
CALL = st.fixed_dictionaries(
    {
        "id": st.sampled_from(["a", "b"]),
        "type": st.just("function"),
        "function": st.fixed_dictionaries(
            {"name": st.just("f"), "arguments": st.sampled_from(["{}", '{"x": 1}', "[", "3"])}
        ),
    }
)
GOOD_MESSAGE = (
    st.fixed_dictionaries(
        {"role": st.sampled_from(["system", "developer", "user"]), "content": GOOD_CONTENT}
    )
    | st.fixed_dictionaries(
        {"role": st.just("assistant")},
        optional={
            "content": st.none() | GOOD_CONTENT,
            "tool_calls": st.lists(CALL, max_size=2),
            "refusal": st.text(max_size=3),
            "function_call": st.just({"name": "g", "arguments": "{}"}),
        },
    )
    | st.fixed_dictionaries(
        {
            "role": st.just("tool"),
            "tool_call_id": st.sampled_from(["a", "b", "c"]),
            "content": GOOD_CONTENT,
        }
    )
    | st.fixed_dictionaries({"role": st.just("function"), "name": st.sampled_from(["g", "h"])})
)
# Mostly well-formed conversations (to reach the conversion), some with a wrong message.
good_messages = st.lists(GOOD_MESSAGE, min_size=1, max_size=5)
messages = good_messages | st.lists(GOOD_MESSAGE | ANY_MESSAGE, max_size=4)
TOOL = st.fixed_dictionaries(
    {"type": st.sampled_from(["function", "custom", "web_search"]) | json_values},
    optional={
        "function": st.fixed_dictionaries(
            {"name": st.just("f") | json_values},
            optional={"parameters": json_values, "description": json_values},
        )
        | json_values,
        "custom": json_values,
    },
)
TOOL_CHOICE = st.sampled_from(["none", "auto", "required", "x"]) | st.fixed_dictionaries(
    {"type": st.sampled_from(["function", "custom", "allowed_tools", "x"]) | json_values},
    optional={"function": json_values, "allowed_tools": json_values, "name": json_values},
)
RESPONSE_FORMAT = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "json_object", "json_schema", "x"]) | json_values},
    optional={
        "json_schema": st.fixed_dictionaries({}, optional={"schema": json_values}) | json_values
    },
)
TOP_KEYS = [
    "stream",
    "stream_options",
    "max_tokens",
    "max_completion_tokens",
    "temperature",
    "top_p",
    "reasoning_effort",
    "stop",
    "parallel_tool_calls",
    "n",
    "logprobs",
    "top_logprobs",
    "audio",
    "modalities",
    "functions",
    "function_call",
    "seed",
    "metadata",
]
GOOD_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "stream": st.booleans(),
    "stream_options": st.just({"include_usage": True}),
    "max_tokens": st.integers(1, 100),
    "max_completion_tokens": st.integers(1, 100),
    "temperature": st.floats(0, 2),
    "reasoning_effort": st.sampled_from(["low", "high", "minimal", "nope"]),
    "stop": st.text(max_size=3) | st.lists(st.text(max_size=3), max_size=3),
    "n": st.just(1),
}
wild_bodies = st.fixed_dictionaries(
    {"model": st.just("m") | json_values, "messages": messages},
    optional={
        **{key: GOOD_VALUES.get(key, st.nothing()) | json_values for key in TOP_KEYS},
        "tools": st.lists(TOOL, max_size=3) | json_values,
        "tool_choice": TOOL_CHOICE | json_values,
        "response_format": RESPONSE_FORMAT | json_values,
    },
)
good_bodies = st.fixed_dictionaries(
    {"model": st.just("m"), "messages": good_messages},
    optional={
        **GOOD_VALUES,
        "tools": st.lists(TOOL, max_size=3),
        "tool_choice": TOOL_CHOICE,
        "response_format": RESPONSE_FORMAT,
    },
)
# Half the bodies well-formed at the top, so that fuzzing reaches the conversion and the plan.
bodies = good_bodies | wild_bodies


def plan_or_400(body: Any) -> None:
    try:
        plan_completion(parse_completion_request(body), MODEL)
    except ApiError as exc:
        assert exc.status == 400, exc.message
        assert exc.message


@settings(max_examples=400, deadline=None)
@given(bodies)
def test_any_body_plans_or_is_a_400(body: dict[str, Any]) -> None:
    plan_or_400(body)


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_any_json_value_as_the_whole_body(body: Any) -> None:
    plan_or_400(body)
