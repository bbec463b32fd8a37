"""`bridge.core.typed_body`: the fast path's bound on a body's JSON values is never below the
count the exact path makes (`request_limits.json_shape`), so no body over the limit slips by."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.core.limits import Limits
from bridge.core.request_limits import json_shape
from bridge.core.typed_body import TypedBody, most_values

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(value=values, compact=st.booleans())
def test_the_bound_is_never_below_the_count(value: object, compact: bool) -> None:
    separators = (",", ":") if compact else (", ", ": ")
    raw = json.dumps(value, separators=separators).encode()
    assert most_values(raw) >= json_shape(value, 10**6, 10**9)[1]


def test_a_big_body_of_few_values_takes_the_fast_path_and_many_values_do_not() -> None:
    limits = Limits(maxJsonValues=1000)
    typed = TypedBody(list[str])
    few = json.dumps(["x" * 3000]).encode()  # above 2 x 1,000 bytes, one value
    assert typed.decode(few, limits) == ["x" * 3000]
    many = json.dumps(["a"] * 1500).encode()  # 1,501 values: the exact path must count them
    assert typed.decode(many, limits) is None


def test_bytes_that_are_not_utf8_in_a_field_nobody_reads_take_the_exact_path() -> None:
    import msgspec

    class Body(msgspec.Struct):
        model: str

    typed = TypedBody(Body)
    assert typed.decode(b'{"model":"m","extra":"\xc3\xa9"}', Limits()) == Body(model="m")
    assert typed.decode(b'{"model":"m","extra":"\xff\xfe"}', Limits()) is None
