"""Any JSON in any place of a Messages request: a plan or a 400, never another exception."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.anthropic.plan import parse_messages_request, plan_messages
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
BLOCK_TYPES = [
    "text",
    "image",
    "document",
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "search_result",
    "tool_reference",
    "weird",
]
BLOCK_KEYS = [
    "text",
    "source",
    "id",
    "name",
    "input",
    "tool_use_id",
    "content",
    "is_error",
    "title",
]
SOURCE = st.fixed_dictionaries(
    {"type": st.sampled_from(["base64", "url", "text", "content", "file", "x"])},
    optional={
        "media_type": json_values,
        "data": json_values,
        "url": json_values,
        "content": json_values,
    },
)
blocks = st.fixed_dictionaries(
    {"type": st.sampled_from(BLOCK_TYPES)},
    optional={
        key: (SOURCE | json_values) if key == "source" else json_values for key in BLOCK_KEYS
    },
)
messages = st.lists(
    st.fixed_dictionaries(
        {
            "role": st.sampled_from(["user", "assistant", "system", "other"]),
            "content": st.text(max_size=5)
            | st.lists(
                blocks
                | st.fixed_dictionaries(
                    {"type": st.just("tool_result"), "tool_use_id": st.sampled_from(["a", "b"])},
                    optional={"content": st.lists(blocks, max_size=2) | json_values},
                ),
                max_size=3,
            ),
        }
    ),
    max_size=4,
)
TOP_KEYS = [
    "system",
    "tools",
    "tool_choice",
    "stop_sequences",
    "temperature",
    "top_p",
    "top_k",
    "thinking",
    "output_config",
    "output_format",
    "stream",
    "metadata",
]
bodies = st.fixed_dictionaries(
    {
        "model": st.just("m") | json_values,
        "max_tokens": st.just(64) | json_values,
        "messages": messages,
    },
    optional={key: json_values for key in TOP_KEYS},
)


def plan_or_400(body: Any) -> None:
    try:
        plan_messages(parse_messages_request(body), MODEL)
    except ApiError as exc:
        assert exc.status == 400, exc.message
        assert exc.message


@settings(max_examples=300, deadline=None)
@given(bodies)
def test_any_body_plans_or_is_a_400(body: dict[str, Any]) -> None:
    plan_or_400(body)


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_any_json_value_as_the_whole_body(body: Any) -> None:
    plan_or_400(body)
