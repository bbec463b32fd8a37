"""`Unchecked`, apart from the checker that raises it (bridge/core/schema_check.py): callers
catch it without importing jsonschema and regex, which only a structured request needs."""

from __future__ import annotations


class Unchecked(Exception):
    """The value could not be checked within the bounds; the message says why (no content).

    `too_deep`: the schema recurses past schema_check.MAX_DEPTH for this value (the same for
    every try).
    """

    def __init__(self, reason: str, *, too_deep: bool = False) -> None:
        super().__init__(reason)
        self.too_deep = too_deep
