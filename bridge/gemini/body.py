"""A `:generateContent` body as wire.py's Structs: decoded in one pass, or by the exact path.

The fast path decodes the bytes with msgspec (bridge/core/typed_body.py) and runs the checks
the exact path's `check_request_shape` would: items and tools within their limits, and the
free-form values (tool arguments and responses, tools, schemas) within `limits.maxJsonDepth`.
Anything else, or any check that would fail, goes to the exact path: `read_json` +
`check_request_shape` + pydantic (plan.parse_generate_request), which answers today's 400s and
hands what it accepts back as the same Structs. One conversion (plan.py) then reads either.
"""

from __future__ import annotations

import logging
from itertools import chain
from typing import Any

from aiohttp import web
from msgspec import UNSET

from bridge.core.key_names import shown_keys
from bridge.core.limits import Limits
from bridge.core.request_limits import check_request_shape
from bridge.core.typed_body import within_depth
from bridge.gemini.plan import parse_generate_request
from bridge.gemini.wire import (
    IGNORED_BODY_FIELDS,
    IGNORED_CONFIG_FIELDS,
    TYPED,
    GenerateContentRequest,
)
from bridge.http.json_body import read_json

log = logging.getLogger("bridge.gemini.options")  # where the exact path logs the same lines

# The deepest object the Structs nest themselves (the body is level 1):
# contents[i].parts[j].functionResponse.parts[k].inlineData.
FIXED_DEPTH = 9
# Bodies read by each path since start (the tests check which path a body took).
taken = {"fast": 0, "exact": 0}


async def generate_request(request: web.Request, limits: Limits) -> GenerateContentRequest:
    """The request's body as Structs; raises ApiError (400) as the exact path always did."""
    body = fast_request(await request.read(), limits)
    if body is not None:
        return body
    taken["exact"] += 1
    return exact_request(await read_json(request), limits)


def fast_request(raw: bytes, limits: Limits) -> GenerateContentRequest | None:
    """The body decoded by msgspec when the exact path would accept it as it is, else None."""
    body = TYPED.decode(raw, limits)
    if body is None or not fits(body, limits):
        return None
    taken["fast"] += 1
    if log.isEnabledFor(logging.DEBUG):
        log_ignored_fields(body)
    return body


def exact_request(body: Any, limits: Limits) -> GenerateContentRequest:
    """Today's path: the decoded JSON checked for its shape, then validated by pydantic."""
    check_request_shape(body, limits, items="contents")
    return parse_generate_request(body)


def _declared(tool: Any) -> int:
    """How many tools an entry of `tools` offers, as `check_request_shape` counts them."""
    if type(tool) is dict:
        for key in ("functionDeclarations", "function_declarations"):
            if type(tool.get(key)) is list:
                return len(tool[key])
    return 1


def fits(body: GenerateContentRequest, limits: Limits) -> bool:
    """True when `check_request_shape` would pass the body (it then need not run)."""
    if len(body.contents) > limits.maxInputItems or limits.maxJsonDepth < FIXED_DEPTH:
        return False
    tools = body.tools
    if tools is not None and (
        len(tools) > limits.maxTools or sum(map(_declared, tools)) > limits.maxTools
    ):
        return False
    # Free-form values by the level they sit at (the body is level 1); each list adds a level
    # above its values, hence `above` = level - 2.
    top = [body.tools, body.tool_config, body.safety_settings, body.labels]
    config = body.generation_config
    in_config = (
        [
            config.response_schema,
            config.response_json_schema,
            config.speech_config,
            config.enable_affective_dialog,
            config.routing_config,
            config.model_selection_config,
        ]
        if config is not None
        else []
    )
    instruction = body.system_instruction
    in_system = (
        free_values([instruction])
        if instruction is not None and type(instruction) is not str
        else []
    )
    return (
        within_depth(top, limits, 0)
        and within_depth(in_config, limits, 1)
        and _values_within_depth(in_system, limits, 4)
        and _values_within_depth(free_values(body.contents), limits, 5)
    )


_SCALARS = frozenset((str, int, float, bool, type(None)))


def free_values(contents: list[Any]) -> list[dict[str, Any]]:
    """The calls' arguments and the functions' responses in `contents` (free-form objects)."""
    found: list[dict[str, Any]] = []
    add = found.append
    for content in contents:
        for part in content.parts:
            call = part.function_call
            if call is not None and call.args:
                add(call.args)
            response = part.function_response
            if response is not None and response.response:
                add(response.response)
    return found


def _values_within_depth(values: list[dict[str, Any]], limits: Limits, above: int) -> bool:
    """`within_depth` for objects at one level; objects holding only scalars (nearly all tool
    arguments and responses) are one level deep, which FIXED_DEPTH allows already."""
    if set(map(type, chain.from_iterable(map(dict.values, values)))) <= _SCALARS:
        return True
    return within_depth(values, limits, above)


def log_ignored_fields(body: GenerateContentRequest) -> None:
    """options.log_ignored's line for a fast-path body (it holds no key the bridge does not
    know, so the ignored ones are those it declares)."""
    ignored = [name for attr, name in IGNORED_BODY_FIELDS if getattr(body, attr) is not UNSET]
    config = body.generation_config
    if config is not None:
        ignored += [
            f"generationConfig.{name}"
            for attr, name in IGNORED_CONFIG_FIELDS
            if getattr(config, attr) is not UNSET
        ]
    if ignored:
        log.debug("Accepted and ignored: %s", shown_keys(ignored))
