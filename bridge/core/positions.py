"""Where an item sits in its list: for the few params a dialect's conversion names.

A history's conversion loops over thousands of contents and parts; counting positions as it
goes (`enumerate`) costs every one of them, while only a rare part names its param. Each list
is indexed once, the first time one of its items is asked for, so any number of rare parts
still costs one pass per list.
"""

from __future__ import annotations

from collections.abc import Sequence


class Positions:
    def __init__(self) -> None:
        self._indexes: dict[int, dict[int, int]] = {}  # by id() of the list, of the item

    def __call__(self, items: Sequence[object], item: object) -> int:
        """The index of `item` (that object: the first place it is at) in `items`."""
        indexes = self._indexes.get(id(items))
        if indexes is None:
            indexes = {}
            for index, each in enumerate(items):
                indexes.setdefault(id(each), index)
            self._indexes[id(items)] = indexes
        return indexes[id(item)]
