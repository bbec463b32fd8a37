"""The core's request bounds count Gemini's function declarations one tool each."""

from __future__ import annotations

import pytest

from bridge.core.errors import ApiError
from bridge.core.limits import Limits
from bridge.core.request_limits import check_request_shape


def declarations(count: int, key: str = "functionDeclarations") -> dict[str, object]:
    return {key: [{"name": f"f{index}"} for index in range(count)]}


@pytest.mark.parametrize("key", ["functionDeclarations", "function_declarations"])
def test_function_declarations_count_toward_the_tool_limit(key: str) -> None:
    limits = Limits(maxInputItems=5, maxTools=3, maxJsonDepth=16)  # 4 declarations: too many
    check_request_shape({"tools": [declarations(2, key), {"googleSearch": {}}]}, limits, "contents")
    with pytest.raises(ApiError) as info:
        check_request_shape({"tools": [declarations(4, key)]}, limits, "contents")
    assert info.value.status == 400 and info.value.param == "tools"
    assert info.value.code == "array_above_max_length"
