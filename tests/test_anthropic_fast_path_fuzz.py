"""The Messages fast path over generated bodies: any body is read as the exact path reads it
(or left to it) and planned as the conversion before it planned it; `within_depth` counts
nesting as the request limits do."""

from __future__ import annotations

import json
import random
from typing import Any

from anthropic_differential import assert_same_as_before, raw_of
from hypothesis import given, settings
from hypothesis import strategies as st
from test_anthropic_request_fuzz import bodies, json_values

from bridge.core.json_depth import _outside_long_strings, within_depth
from bridge.core.request_limits import json_depth_exceeded

# --------------------------------------------------------------------------- any body


@settings(max_examples=400, deadline=None)
@given(bodies)
def test_any_body_is_read_and_planned_as_before(body: dict[str, Any]) -> None:
    assert_same_as_before(raw_of(body))


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_any_json_value_is_read_as_before(body: Any) -> None:
    assert_same_as_before(raw_of(body))


# Bodies the API takes, of every shape the conversion knows (and keys it ignores): each one is
# read by the fast path or left to the exact path, and planned as before.
_ids = st.sampled_from(["c1", "c2", "c3"])
_text = st.sampled_from(["", " ", "hi", "x-anthropic-billing-header: v\nrest", "[a]{b}\\"])
_extra = st.dictionaries(st.sampled_from(["cache_control", "citations", "zz"]), json_values)
_source = st.fixed_dictionaries(
    {"type": st.sampled_from(["base64", "url", "text", "content", "file"])},
    optional={
        "media_type": st.sampled_from(["image/png", "text/plain"]),
        "data": st.sampled_from(["aGk=", "iVBORw0KGgo=", "!", "text"]) | st.lists(json_values),
        "url": st.just("http://x/" + "u" * 250),
        "file_id": st.just("file_1"),
        "content": _text | st.lists(json_values | st.fixed_dictionaries({"text": _text})),
    },
)


def _block(kind: str, **fields: Any) -> Any:
    return st.fixed_dictionaries({"type": st.just(kind), **fields}, optional={"zz": json_values})


_inner = st.one_of(
    _block("text", text=_text),
    _block("image", source=_source),
    _block("document", source=_source, title=st.none() | _text, context=st.none() | _text),
    _block("tool_reference", tool_name=st.sampled_from(["a", "b"]) | json_values),
    _block("thinking", thinking=_text),
    _block("redacted_thinking"),
    _block("search_result", title=_text, source=_text, content=st.lists(json_values)),
    _block(
        "tool_search_tool_result",
        content=st.fixed_dictionaries({"tool_references": st.lists(json_values) | json_values}),
    ),
)
_call = _block(
    "tool_use",
    id=_ids,
    name=st.sampled_from(["t", "u"]),
    input=st.dictionaries(st.text(max_size=3), json_values),
)
_result = _block(
    "tool_result",
    tool_use_id=_ids,
    content=_text
    | st.lists(
        _inner
        | _call
        | _block("tool_result", tool_use_id=_ids, content=st.lists(_inner, max_size=2)),
        max_size=3,
    ),
    is_error=st.none() | st.booleans(),
)
_message = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["user", "assistant", "system"]),
        "content": _text | st.lists(_inner | _call | _result, max_size=4),
    }
)
valid_bodies = st.fixed_dictionaries(
    {
        "model": st.just("m"),
        "max_tokens": st.just(64),
        "messages": st.lists(_message, min_size=1, max_size=6),
    },
    optional={
        "system": _text | st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": _text})),
        "tools": st.lists(
            st.fixed_dictionaries(
                {"name": st.sampled_from(["t", "u", "a", "b"])},
                optional={
                    "defer_loading": st.booleans(),
                    "type": st.sampled_from(["custom", "bash_1"]),
                },
            ),
            max_size=4,
        ),
        "tool_choice": st.fixed_dictionaries({"type": st.sampled_from(["auto", "any", "none"])}),
        "temperature": st.floats(0, 1),
        "thinking": st.fixed_dictionaries(
            {"type": st.sampled_from(["enabled", "disabled", "adaptive"])}
        ),
        "stream": st.booleans(),
        "metadata": json_values,
    },
)


@settings(max_examples=500, deadline=None)
@given(valid_bodies, _extra)
def test_any_valid_body_is_read_and_planned_as_before(body: dict[str, Any], extra: Any) -> None:
    assert_same_as_before(raw_of({**extra, **body}))


def _nested(rng: random.Random, depth: int) -> Any:
    if depth == 0:
        return rng.choice([1, "a[", '}]\\"{', "x\\\\", None, '\\n"', '\\\\\\"[', '"', "\\"])
    if rng.random() < 0.5:
        return [_nested(rng, depth - 1) for _ in range(rng.randint(0, 3))]
    keys = ["k", "[", ']\\"', '{"', "\\", '\\\\"']
    return {rng.choice(keys): _nested(rng, depth - 1) for _ in range(rng.randint(0, 3))}


def test_within_depth_counts_as_the_request_limits_do() -> None:
    rng = random.Random(7)
    walked = 0
    for _ in range(3000):
        value: Any = {"a": _nested(rng, rng.randint(0, 9))}
        if rng.random() < 0.5:  # long strings: read quote by quote
            value = {"pad": "x" * 40_000 + "\\" * rng.randint(0, 20), **value}
        raw = json.dumps(value, ensure_ascii=rng.random() < 0.5).encode()
        walked += _outside_long_strings(raw) is not None
        for limit in range(1, 12):
            assert within_depth(raw, limit) == (not json_depth_exceeded(value, limit)), raw
    assert walked > 500  # both ways were taken


@given(st.text(alphabet='[]{}"\\ ab', max_size=30), st.booleans())
def test_within_depth_on_brackets_inside_strings(text: str, long: bool) -> None:
    value = {"s": text * (2000 if long else 1), "l": [[text]]}
    raw = json.dumps(value).encode()
    assert within_depth(raw, 3) and not within_depth(raw, 2)
