"""The Messages fast path held to the exact path and to the conversion before it: the helpers
of tests/test_anthropic_fast_path*.py."""

from __future__ import annotations

import json
from typing import Any

from anthropic_reference import reference_plan

from bridge.anthropic.body import fast_body
from bridge.anthropic.plan import MessagesPlan, parse_messages_request, plan_messages
from bridge.anthropic.protocol import MessagesRequest
from bridge.anthropic.wire import MessagesBody
from bridge.core.backend import ModelInfo
from bridge.core.errors import ApiError
from bridge.core.limits import Limits
from bridge.core.request_limits import check_request_shape
from bridge.core.strict_json import JsonInputError, decode
from bridge.core.validation_errors import json_object

MODEL = ModelInfo(id="sim-echo")
LIMITS = Limits()


def raw_of(body: Any) -> bytes:
    return json.dumps(body, ensure_ascii=False).encode()


def exact(raw: bytes, limits: Limits = LIMITS) -> MessagesBody | ApiError:
    """Today's path: read_json, check_request_shape, pydantic (or its 400)."""
    try:
        try:
            body = decode(raw)
        except JsonInputError as exc:
            return ApiError(400, exc.message, param=exc.param, code=exc.code)
        check_request_shape(body, limits, items="messages")
        return parse_messages_request(body)
    except ApiError as exc:
        return exc


Planned = dict[str, Any] | tuple[str | None, str | None, str]


def comparable(plan: MessagesPlan) -> dict[str, Any]:
    """The plan with its chat request's fields (its rebuild closure is made anew each time)."""
    return {**vars(plan), "chat": vars(plan.chat)}


def planned(request: MessagesBody) -> Planned:
    try:
        return comparable(plan_messages(request, MODEL))
    except ApiError as exc:
        return exc.param, exc.code, exc.message


def reference(body: dict[str, Any]) -> Planned:
    """The plan as it was made before the fast path, from the same (valid) body."""
    try:
        return comparable(reference_plan(MessagesRequest.model_validate(json_object(body)), MODEL))
    except ApiError as exc:
        return exc.param, exc.code, exc.message


def assert_same_as_before(raw: bytes) -> MessagesBody | None:
    """The fast path reads `raw` as the exact path does (or leaves it to it), and the plan is
    the one the conversion before it made. The fast path's result, if it took the body."""
    fast, slow = fast_body(raw, LIMITS), exact(raw)
    if isinstance(slow, ApiError):
        assert fast is None, slow.message
        return None
    if fast is not None:
        assert fast == slow
    assert planned(slow) == reference(json.loads(raw))
    return fast
