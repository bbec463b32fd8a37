"""A decoded create body with only the keys wire.py's Structs declare: the fallback for a body
whose decode refused a key (a field of a client nobody has captured yet).

The Structs refuse unknown keys so that a decode proves nothing went unread. A body with other
keys is decoded to dicts and lists instead, copied here without those keys, and converted to
the same Structs. A dropped value is never read, so it is checked here against the depth limit
as the exact path would count it.

The plan of which keys each object may hold is read from the Structs' own type information,
once, on the first body that needs it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

import msgspec.inspect as mi

from bridge.core.request_limits import json_depth_exceeded


class TooDeep(Exception):
    """A dropped value nests past the depth limit: the exact path answers."""


@dataclass
class _Object:
    """What an object decoded as a Struct may hold, and the plan of each declared field."""

    known: frozenset[str]
    fields: dict[str, _Plan] = field(default_factory=dict)


@dataclass
class _Choice:
    """A union: the Struct an object's tag names (else the untagged one), and lists' plan."""

    tag_field: str | None = None
    by_tag: dict[Any, _Object] = field(default_factory=dict)
    untagged: _Object | None = None
    items: _Plan | None = None


_Plan = _Object | _Choice | None  # None: a free-form or scalar value, kept as it is


def known_only(body: Any, of: type, untagged: type, limit: int) -> Any:
    """`body` (decoded JSON) with only the keys the Struct `of` declares, at every depth.

    An object with no tag where the union expects one is read as the Struct `untagged` (a
    message without `type`). Raises TooDeep when a dropped value nests past `limit` (the
    whole body being level 1)."""
    return _copy(body, _plan(of, untagged), 1, limit)


def _copy(value: Any, plan: _Plan, level: int, limit: int) -> Any:
    if plan is None:
        return value
    if type(value) is list:
        items = plan.items if isinstance(plan, _Choice) else None
        if items is None:
            return value
        return [_copy(one, items, level + 1, limit) for one in value]
    if type(value) is not dict:
        return value
    if isinstance(plan, _Choice):
        chosen = plan.untagged
        if plan.tag_field is not None and plan.tag_field in value:
            tag = value[plan.tag_field]
            chosen = plan.by_tag.get(tag) if type(tag) is str else None
        if chosen is None:
            return value  # a tag no Struct names, or no object here: the conversion refuses it
        plan = chosen
    kept: dict[str, Any] = {}
    for key, one in value.items():
        if key in plan.known:
            kept[key] = _copy(one, plan.fields.get(key), level + 1, limit)
        elif json_depth_exceeded(one, limit - level):
            raise TooDeep(key)
    return kept


@cache
def _plan(of: type, untagged: type) -> _Plan:
    choice = _plan_of(mi.type_info(of))
    assert isinstance(choice, _Object)
    _set_untagged(choice, _plan_of(mi.type_info(untagged)))
    return choice


def _set_untagged(plan: _Plan, untagged: _Plan) -> None:
    """The union of tagged items gets `untagged` for an object without its tag."""
    if isinstance(plan, _Object):
        for one in plan.fields.values():
            _set_untagged(one, untagged)
    elif isinstance(plan, _Choice):
        if plan.by_tag and isinstance(untagged, _Object):
            plan.untagged = untagged
        _set_untagged(plan.items, untagged)


def _plan_of(info: mi.Type) -> _Plan:
    if isinstance(info, mi.StructType):
        known = {f.encode_name for f in info.fields}
        if info.tag_field is not None:
            known.add(info.tag_field)
        plan = _Object(frozenset(known))
        for one in info.fields:
            inner = _plan_of(one.type)
            if inner is not None:
                plan.fields[one.encode_name] = inner
        return plan
    members = info.types if isinstance(info, mi.UnionType) else (info,)
    choice = _Choice()
    for member in members:
        if isinstance(member, mi.StructType):
            if member.tag_field is None:
                choice.untagged = _object(member)
            else:
                choice.tag_field = member.tag_field
                choice.by_tag[member.tag] = _object(member)
        elif isinstance(member, mi.ListType):
            choice.items = _plan_of(member.item_type)
    if not choice.by_tag and choice.untagged is None and choice.items is None:
        return None
    return choice


def _object(info: mi.StructType) -> _Object:
    plan = _plan_of(info)
    assert isinstance(plan, _Object)
    return plan
