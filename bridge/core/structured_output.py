"""Structured output (`text.format` json_schema / json_object) through an editor without it.

The editor's API has no constrained decoding, so the bridge does what it can:
- the format goes to the model as an instruction message, which every model reads (Copilot
  passes no response-format option to its models);
- the final text is checked (JSON, an object, valid against the schema); a mismatch is logged
  and the answer is still returned as the model wrote it. Clients that parse (the SDKs'
  `responses.parse`) then see the problem themselves, as they would with a refusal.

Schemas are checked with `jsonschema`, the reference implementation: SDK-made schemas use
`$defs`/`$ref`, `anyOf` and `additionalProperties`, which a hand-written subset would get wrong.
The check is bounded (bridge/core/schema_check.py) and runs off the event loop: a schema built to be
slow (a catastrophic `pattern`, a `$ref` loop) costs at most `answerCheckSeconds` of one worker
thread, then the answer is returned "not checked". The schema itself is validated the same way
(`checked_format`); one that could never be checked (a `$ref` loop that never reaches into the
value) is a 400 at request time.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import importlib
import json
import logging
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from bridge.core.errors import ApiError, invalid_request
from bridge.core.limits import DEFAULT_ANSWER_CHECK_SECONDS
from bridge.core.unchecked import Unchecked

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

    from bridge.core.schema_check import SafeSchema

log = logging.getLogger(__name__)
T = TypeVar("T")

DEFAULT_CHECK_SECONDS = DEFAULT_ANSWER_CHECK_SECONDS
# Checks run here, not in the loop's default executor: a flood of slow checks waits its turn
# (and times out as "not checked") without starving anything else. Two: the machine's cores.
_CHECKS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="answer-check")
# The checker's module, with jsonschema and regex: imported by a checking thread when the first
# check comes (they cost start-up time and memory, and only some requests need them).
_SCHEMA_CHECK = "bridge.core.schema_check"


@dataclass(frozen=True)
class OutputFormat:
    kind: str  # "json_schema" or "json_object"
    name: str = "response"
    schema: dict[str, Any] | None = None
    strict: bool = False
    # Where the client put the schema: a 400 about it names this field.
    param: str = field(default="text.format.schema", compare=False)
    checker: SafeSchema | None = field(default=None, compare=False, repr=False)

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
    name = fmt.get("name")
    return OutputFormat(
        "json_schema",
        name=name if isinstance(name, str) and name else "response",
        schema=schema,
        strict=fmt.get("strict") is True,
    )


async def checked_format(
    fmt: OutputFormat | None, seconds: float = DEFAULT_CHECK_SECONDS
) -> OutputFormat | None:
    """`fmt` with its schema's checker; 400 for a schema that is invalid or never checkable.

    Validating a schema is costly too (about 0.5 ms a subschema against the 2020-12
    metaschema: a big body would hold the loop for minutes), so it runs like an answer's
    check: off the loop, within `seconds`. A schema too big for that is taken unvalidated,
    and its answers are not checked."""
    if fmt is None or fmt.schema is None:
        return fmt
    try:
        checker = await _off_the_loop(
            functools.partial(_checker, param=fmt.param), fmt.schema, seconds
        )
    except Unchecked as exc:
        log.warning("Structured output %r: the schema was not validated (%s)", fmt.name, exc)
        return fmt
    return dataclasses.replace(fmt, checker=checker)


def _unusable_schema(reason: str, param: str) -> ApiError:
    return invalid_request(f"`{param}` {reason}.", param=param, code="invalid_value")


@functools.cache
def _metaschema(cls: type[Validator]) -> SafeSchema:
    from bridge.core.schema_check import SafeSchema

    # With the draft's format checker, as `check_schema` does (`format: regex`...).
    return SafeSchema(cls.META_SCHEMA, format_checker=cls.FORMAT_CHECKER)


def _checker(schema: dict[str, Any], deadline: float, param: str) -> SafeSchema:
    """The schema's bounded checker (blocking); 400 for a schema that is never checkable or
    invalid; Unchecked when validating it ran out of time."""
    from jsonschema.validators import validator_for

    from bridge.core.schema_check import SafeSchema

    try:
        checker = SafeSchema(schema)
        metaschema = _metaschema(validator_for(schema))
    except Exception:  # jsonschema reads `$schema` and `$id` before any check: not strings
        raise _unusable_schema(
            "is not a valid JSON Schema: `$schema` or `$id` is unusable", param
        ) from None
    # First the probe: bounded by steps, its verdict does not depend on the machine's load.
    never = _never_checkable(checker, deadline)
    if never is not None:
        raise _unusable_schema(
            f"cannot be checked: {never} (a `$ref` loop that never reaches into the value, or "
            "a `$ref` chain too long)",
            param,
        )
    try:
        error = metaschema.first_error(schema, deadline)
    except Unchecked as exc:
        if exc.too_deep:
            raise _unusable_schema("is nested too deeply to be checked", param) from None
        raise
    if error is not None:
        raise _unusable_schema(f"is not a valid JSON Schema: {error.message}", param)
    return checker


def _never_checkable(checker: SafeSchema, deadline: float) -> str | None:
    try:
        return checker.probe(deadline)
    except Exception:  # not a valid schema: the metaschema check says why
        return None


async def _off_the_loop(work: Callable[[Any, float], T], subject: Any, seconds: float) -> T:
    """`work(subject, deadline)` in a checking thread; Unchecked when it takes too long.

    The deadline starts now, so time spent queued behind other checks counts too; the work
    gives up by itself at the deadline, the grace covers its last step."""
    loop = asyncio.get_running_loop()
    if _SCHEMA_CHECK not in sys.modules:  # the first check: not counted against its time
        await loop.run_in_executor(_CHECKS, importlib.import_module, _SCHEMA_CHECK)
    deadline = time.monotonic() + seconds
    future = loop.run_in_executor(_CHECKS, work, subject, deadline)
    try:
        return await asyncio.wait_for(future, seconds + 0.5)
    except asyncio.TimeoutError:
        raise Unchecked("the check ran out of time") from None


def problem(fmt: OutputFormat, text: str, deadline: float) -> str | None:
    """Why `text` does not meet the format, or None when it does (blocking); raises Unchecked
    past the deadline (time.monotonic()) or a bound."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return f"the answer is not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
    except RecursionError:
        raise Unchecked("the answer is nested too deeply to be read") from None
    if fmt.kind == "json_object":
        return None if isinstance(value, dict) else "the answer is JSON but not an object"
    assert fmt.schema is not None
    from bridge.core.schema_check import SafeSchema

    # No checker: the schema was not validated in time (or not asked to be); bounded all the same.
    checker = fmt.checker or SafeSchema(fmt.schema)
    error = checker.first_error(value, deadline)
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
    try:
        found = await _off_the_loop(functools.partial(problem, fmt), text, seconds)
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
