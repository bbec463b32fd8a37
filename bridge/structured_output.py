"""Structured output (`text.format` json_schema / json_object) through an editor without it.

The editor's API has no constrained decoding, so the bridge does what it can:
- the format goes to the model twice: as the model option `responseFormat` (in OpenAI's chat
  shape, for providers that pass options through) and as an instruction message, which every
  model reads;
- the final text is checked (JSON, an object, valid against the schema); a mismatch is logged
  and the answer is still returned as the model wrote it. Clients that parse (the SDKs'
  `responses.parse`) then see the problem themselves, as they would with a refusal.

Schemas are checked with `jsonschema`, the reference implementation: SDK-made schemas use
`$defs`/`$ref`, `anyOf` and `additionalProperties`, which a hand-written subset would get wrong.
The check is bounded (bridge/schema_check.py) and runs off the event loop: a schema built to be
slow (a catastrophic `pattern`, a `$ref` loop) costs at most `answerCheckSeconds` of one worker
thread, then the answer is returned "not checked". A schema that could never be checked (a `$ref`
loop that never reaches into the value) is a 400 at request time.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for

from bridge.errors import ApiError, invalid_request
from bridge.schema_check import SafeSchema, Unchecked
from bridge.settings import DEFAULT_ANSWER_CHECK_SECONDS

log = logging.getLogger(__name__)

DEFAULT_CHECK_SECONDS = DEFAULT_ANSWER_CHECK_SECONDS
# Checks run here, not in the loop's default executor: a flood of slow checks waits its turn
# (and times out as "not checked") without starving anything else. Two: the machine's cores.
_CHECKS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="answer-check")


@dataclass(frozen=True)
class OutputFormat:
    kind: str  # "json_schema" or "json_object"
    name: str = "response"
    schema: dict[str, Any] | None = None
    strict: bool = False
    checker: SafeSchema | None = field(default=None, compare=False, repr=False)

    def model_option(self) -> dict[str, Any]:
        """`response_format` as OpenAI's chat API spells it: what providers would understand."""
        if self.kind == "json_object":
            return {"type": "json_object"}
        return {
            "type": "json_schema",
            "json_schema": {"name": self.name, "schema": self.schema, "strict": self.strict},
        }

    def instruction(self) -> str:
        if self.kind == "json_object":
            return (
                "Answer with one JSON object and nothing else: no prose, no Markdown code fences."
            )
        schema = json.dumps(self.schema, ensure_ascii=False, separators=(",", ":"))
        return (
            "Answer with one JSON value and nothing else (no prose, no Markdown code fences) "
            f"that is valid against this JSON Schema, named {self.name!r}:\n{schema}"
        )


def output_format(text: dict[str, Any] | None) -> OutputFormat | None:
    """The requested structured format, or None for plain text; 400 when it is unusable."""
    fmt = (text or {}).get("format")
    if not isinstance(fmt, dict) or fmt.get("type") in (None, "text"):
        return None
    kind = fmt.get("type")
    if kind == "json_object":
        return OutputFormat("json_object")
    if kind != "json_schema":
        raise invalid_request(
            f"Unsupported `text.format.type` {kind!r}: use text, json_schema or json_object.",
            param="text.format.type",
            code="invalid_value",
        )
    schema = fmt.get("schema")
    if not isinstance(schema, dict):
        raise invalid_request(
            "`text.format` of type json_schema needs a `schema` object.",
            param="text.format.schema",
            code="missing_required_parameter",
        )
    checker = _checker(schema)
    name = fmt.get("name")
    return OutputFormat(
        "json_schema",
        name=name if isinstance(name, str) and name else "response",
        schema=schema,
        strict=fmt.get("strict") is True,
        checker=checker,
    )


def _unusable_schema(reason: str) -> ApiError:
    return invalid_request(
        f"`text.format.schema` {reason}.", param="text.format.schema", code="invalid_value"
    )


def _checker(schema: dict[str, Any]) -> SafeSchema:
    """The schema's bounded checker; 400 for a schema that is invalid or never checkable."""
    try:
        validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        raise _unusable_schema(f"is not a valid JSON Schema: {exc.message}") from None
    except RecursionError:  # the request's depth limit keeps this far away; to be sure
        raise _unusable_schema("is nested too deeply to be checked") from None
    checker = SafeSchema(schema)
    never = checker.probe()
    if never is not None:
        raise _unusable_schema(
            f"cannot be checked: {never} (a `$ref` loop that never reaches into the value, or "
            "a `$ref` chain too long)"
        )
    return checker


def problem(fmt: OutputFormat, text: str, deadline: float) -> str | None:
    """Why `text` does not meet the format, or None when it does; raises Unchecked past the
    deadline (time.monotonic()) or a bound. Blocking: run it off the event loop."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return f"the answer is not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
    except RecursionError:
        raise Unchecked("the answer is nested too deeply to be read") from None
    if fmt.kind == "json_object":
        return None if isinstance(value, dict) else "the answer is JSON but not an object"
    assert fmt.checker is not None
    error = fmt.checker.first_error(value, deadline)
    if error is None:
        return None
    where = "/".join(str(step) for step in error.absolute_path) or "(the top level)"
    # The keyword and place only: the message itself quotes the model's output.
    return f"the answer does not match the schema: `{error.validator}` fails at {where}"


async def check_answer(
    fmt: OutputFormat, text: str, seconds: float = DEFAULT_CHECK_SECONDS
) -> bool | None:
    """Log when the final answer breaks the format: True when it meets it, False when not,
    None when it could not be checked within `seconds` (or a bound): the answer is the
    model's either way. The event loop only waits, and not past `seconds`."""
    deadline = time.monotonic() + seconds  # from now: time spent queued counts too
    loop = asyncio.get_running_loop()
    try:
        # A little grace: the worker gives up itself at the deadline, with its own reason.
        found = await asyncio.wait_for(
            loop.run_in_executor(_CHECKS, problem, fmt, text, deadline), seconds + 0.5
        )
    except asyncio.TimeoutError:
        _not_checked(fmt, "the check ran out of time")
        return None
    except Unchecked as exc:
        _not_checked(fmt, str(exc))
        return None
    except Exception:  # the check is advice: it never costs the client the answer
        log.warning("Structured output %r not checked: the check failed", fmt.name)
        log.debug("The check's failure", exc_info=True)
        return None
    if found is None:
        return True
    log.warning("Structured output %r: %s; the answer is returned as is", fmt.name, found)
    log.debug("The answer that broke the format: %s", text)
    return False


def _not_checked(fmt: OutputFormat, reason: str) -> None:
    log.warning(
        "Structured output %r not checked: %s; the answer is returned as is", fmt.name, reason
    )
