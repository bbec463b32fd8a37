"""bridge/core/positions.py: the index of the very item asked for, in any list it is asked about."""

from __future__ import annotations

from bridge.core.backend import TextPart
from bridge.core.positions import Positions


def test_an_item_is_found_by_identity_not_equality() -> None:
    first, second = TextPart(value="same"), TextPart(value="same")
    items = [TextPart(value="other"), first, second]
    position = Positions()
    assert position(items, second) == 2
    assert position(items, first) == 1


def test_each_list_has_its_own_indexes() -> None:
    shared = TextPart(value="x")
    one, two = [shared], [TextPart(value="y"), shared]
    position = Positions()
    assert position(one, shared) == 0
    assert position(two, shared) == 1


def test_an_item_listed_twice_is_at_its_first_place() -> None:
    item = TextPart(value="x")
    assert Positions()([TextPart(value="y"), item, item], item) == 1
