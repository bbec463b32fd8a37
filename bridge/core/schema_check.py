"""Checking a value against a client's JSON Schema with bounded cost, never stalling the bridge.

`jsonschema` alone is not safe on schemas a client sends:
- `pattern` and `patternProperties` run Python's backtracking `re`: `^(a|a)+$` against 40
  characters takes hours, holding the GIL (a thread would not help);
- a `$ref` that loops without descending into the value (`{"$ref": "#"}`) or a long `$ref`
  chain recurses until RecursionError;
- a remote `$ref` is fetched from the network by jsonschema's default registry.

So the check uses jsonschema's validators extended with: regular expressions from the `regex`
package (the same syntax as `re`) with a timeout, matching without the GIL; every keyword
counted against a time budget and a nesting bound; a registry that retrieves nothing. Past a
bound the check raises `Unchecked`: the caller reports "not checked" instead of a verdict.
"""

from __future__ import annotations

import contextvars
import functools
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import attrs
import referencing
import referencing.exceptions
import regex
from jsonschema import FormatChecker, exceptions, validators
from jsonschema.protocols import Validator

# Re-exported: callers that check schemas import it from here.
from bridge.core.unchecked import Unchecked as Unchecked

# Keyword calls nested at once (each `$ref`, `properties`, `anyOf`... is one level): a recursive
# schema checks answers nested about 100 deep; schemas nested about 40 deep pass the metaschema
# (5 levels each). Well below where Python's recursion limit stops jsonschema (about 320
# levels), whose RecursionError can surface as a panic of its Rust dependency (rpds), which
# is no Exception: the bound must be ours.
MAX_DEPTH = 200
# Keyword calls for the request-time probe (`probe`): enough for any real schema's top level.
PROBE_STEPS = 20_000

Keyword = Callable[[Any, Any, Any, Any], Iterator[exceptions.ValidationError]]


@dataclass
class _Budget:
    deadline: float  # time.monotonic()
    max_steps: int | None = None
    pattern_properties: bool = False  # the schema uses `patternProperties` somewhere
    depth: int = 0
    steps: int = 0

    def enter(self) -> None:
        if self.depth >= MAX_DEPTH:
            raise Unchecked(
                f"the schema nests more than {MAX_DEPTH} levels for this value", too_deep=True
            )
        self.steps += 1
        if self.max_steps is not None and self.steps > self.max_steps:
            raise Unchecked(f"the schema needs more than {self.max_steps} steps")
        if time.monotonic() > self.deadline:
            raise Unchecked("the check ran out of time")
        self.depth += 1

    def leave(self) -> None:
        self.depth -= 1

    def seconds_left(self) -> float:
        return max(self.deadline - time.monotonic(), 0.001)


# The running check's budget (each check runs in one thread; keywords find it here).
_BUDGET: contextvars.ContextVar[_Budget] = contextvars.ContextVar("schema_check_budget")


def _bounded(keyword: Keyword) -> Keyword:
    """`keyword`, counted against the budget; its depth is the number of keyword calls that
    are running (resumed, not suspended at a `yield`), which is what uses the stack."""

    def bounded(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        budget = _BUDGET.get()
        budget.enter()
        running = True
        try:
            for error in keyword(validator, value, instance, schema):
                budget.leave()
                running = False
                yield error
                budget.enter()
                running = True
        finally:
            if running:
                budget.leave()

    return bounded


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> regex.Pattern[str]:
    try:
        return regex.compile(pattern)
    except (regex.error, OverflowError, RecursionError):
        raise Unchecked("a `pattern` is not a regular expression this check can run") from None


def _search(pattern: str, text: str) -> bool:
    try:
        found = _compiled(pattern).search(
            text, timeout=_BUDGET.get().seconds_left(), concurrent=True
        )
    except TimeoutError:
        raise Unchecked("a `pattern` took too long to match") from None
    return found is not None


# jsonschema's own `pattern`, `patternProperties` and `additionalProperties` (4.x), with
# `_search` instead of `re.search`.


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield exceptions.ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: dict[str, Any], instance: Any, schema: Any
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(
    validator: Any, additional: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = [
        key
        for key in instance
        if key not in properties and not any(_search(pattern, key) for pattern in patterns)
    ]
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        listed = ", ".join(repr(extra) for extra in sorted(extras))
        yield exceptions.ValidationError(f"Additional properties are not allowed ({listed})")


def _without_pattern_properties(keyword: Keyword) -> Keyword:
    """jsonschema's `unevaluatedProperties` runs `re` on `patternProperties` itself."""

    def unevaluated(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if _BUDGET.get().pattern_properties:
            raise Unchecked("`unevaluatedProperties` with `patternProperties` is not checked")
        yield from keyword(validator, value, instance, schema)

    return unevaluated


_REPLACED: dict[str, Keyword] = {
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
}


@functools.cache
def _safe_class(base: type[Validator]) -> type[Validator]:
    keywords: dict[str, Keyword] = {}
    for name, original in base.VALIDATORS.items():
        if original is None:  # not in the stubs' types, but said to be possible
            continue
        keyword: Keyword = _REPLACED.get(name) or original
        if name == "unevaluatedProperties":
            keyword = _without_pattern_properties(keyword)
        keywords[name] = _bounded(keyword)
    extended: type[Validator] = validators.extend(  # type: ignore[no-untyped-call]
        base, validators=keywords
    )
    _stay_bounded(extended)
    _SAFE_CLASSES.add(extended)
    return extended


_SAFE_CLASSES: set[type[Validator]] = set()


def _stay_bounded(cls: type[Validator]) -> None:
    """jsonschema picks the class for each subschema it enters from the subschema's own
    `$schema` (`evolve`): one naming a draft would run unbounded. Keep to our classes."""
    init_fields = [
        (field.name, field.alias or field.name)
        for field in attrs.fields(cls)  # type: ignore[arg-type]
        if field.init
    ]

    def bounded_evolve(self: Validator, **changes: Any) -> Validator:
        # jsonschema's own `evolve`, with our class for the draft it picks.
        schema = changes.setdefault("schema", self.schema)
        picked = validators.validator_for(schema, default=type(self))
        safe = picked if picked in _SAFE_CLASSES else _safe_class(picked)
        for name, alias in init_fields:
            if alias not in changes:
                changes[alias] = getattr(self, name)
        return safe(**changes)

    cls.evolve = bounded_evolve  # type: ignore[method-assign]


# No retrieval: a `$ref` to anything outside the schema (or jsonschema's bundled metaschemas)
# is unresolvable, and unchecked, instead of being fetched from the network.
_NO_RETRIEVAL: referencing.Registry[Any] = referencing.Registry()


@dataclass
class SafeSchema:
    """A client's schema (already valid against its metaschema), checked within bounds."""

    schema: dict[str, Any]
    format_checker: FormatChecker | None = None  # formats are checked only with one
    _validator: Validator = field(init=False, repr=False)
    _pattern_properties: bool = field(init=False, repr=False)

    def __post_init__(self) -> None:
        cls = _safe_class(validators.validator_for(self.schema))
        self._validator = cls(
            self.schema, registry=_NO_RETRIEVAL, format_checker=self.format_checker
        )
        # Any subschema may be evaluated (through `$ref`): look at the whole document.
        self._pattern_properties = '"patternProperties"' in json.dumps(self.schema)

    def first_error(
        self, value: Any, deadline: float, max_steps: int | None = None
    ) -> exceptions.ValidationError | None:
        """The most relevant error, or None when `value` is valid; raises Unchecked."""
        token = _BUDGET.set(_Budget(deadline, max_steps, self._pattern_properties))
        try:
            error: exceptions.ValidationError | None = exceptions.best_match(
                self._validator.iter_errors(value)
            )
            return error
        except Unchecked:
            raise
        except RecursionError:
            raise Unchecked("the schema nests too deeply for this value", too_deep=True) from None
        except referencing.exceptions.Unresolvable:
            raise Unchecked("a `$ref` points outside the schema") from None
        finally:
            _BUDGET.reset(token)

    def probe(self, deadline: float) -> str | None:
        """Why no value could ever be checked (a `$ref` loop that never reaches into the
        value, a `$ref` chain deeper than the bound), found by checking `null`; else None.

        Bounded by steps too, so that a big schema is not refused for want of time."""
        try:
            self.first_error(None, deadline, max_steps=PROBE_STEPS)
        except Unchecked as exc:
            # Only a verdict that holds for every value; anything else (a big schema, a
            # `$ref` elsewhere) is left to the answer's own check.
            return str(exc) if exc.too_deep else None
        return None
