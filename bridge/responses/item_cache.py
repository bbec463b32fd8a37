"""Items this bridge emitted, kept so that `item_reference` input items can name them.

Clients that default to `store: true` (the Vercel AI SDK, and Mastra on top of it) send an
earlier answer back as `{"type": "item_reference", "id": "msg_AM-..."}` instead of the item
itself. The bridge keeps the output items it emitted in memory, bounded in bytes
(`limits.itemCacheBytes`, least recently used dropped first), and puts each referenced item
back in its reference's place before anything else reads the input: HTTP, WebSocket turns,
compaction and token counts alike. This keeps no conversation: responses,
`previous_response_id` and `conversation` stay unsupported over HTTP.

What is kept: each output item exactly as the client received it in
`response.output_item.done`, as compact JSON, except reasoning items, which keep only their
type and id: the editor takes no thinking in the history, so the text would never be read.

Only the bridge's own output is kept, never client input, so no client can plant an item
under an id. Item ids carry 62 random bits from `secrets` (bridge/core/ids.py): an item can be
named only by a client that received it, and what it names goes only into that client's
own request.
"""

from __future__ import annotations

import json
import logging
import sys
from collections import OrderedDict
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from aiohttp import web

from bridge.core.errors import invalid_request

if TYPE_CHECKING:  # a type only: mounting the dialect builds the cache without the events
    from bridge.responses.events import Event

log = logging.getLogger(__name__)

# Per entry beyond the key and value objects: the ordered dict's slot, hash and links.
_ENTRY_OVERHEAD = 100

_STORE_FALSE_HINT = (
    "Maestro Bridge resolves `item_reference` input items only for items it emitted itself, "
    "while they are in its memory (the least recently used go first when "
    "`limits.itemCacheBytes` is reached, and none survive a restart). Send the whole item in "
    "`input` instead: with the Vercel AI SDK (or Mastra), set "
    "`providerOptions.openai.store` to `false`."
)


def _kept(item: Event) -> Event:
    """What is kept of an output item: all of it, but only the marker of a reasoning item."""
    if item.get("type") == "reasoning":
        return {"type": "reasoning", "id": item["id"], "summary": []}
    return item


def _cost(item_id: str, blob: bytes) -> int:
    return sys.getsizeof(item_id) + sys.getsizeof(blob) + _ENTRY_OVERHEAD


class ItemCache:
    """Emitted output items by id: a least-recently-used cache bounded in bytes."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.used_bytes = 0  # what the kept entries cost, by _cost
        self._items: OrderedDict[str, bytes] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._items

    def remember(self, item: Event) -> None:
        """Keep an emitted item under its id, dropping the least recently used if need be."""
        item_id = item.get("id")
        if not isinstance(item_id, str) or not item_id:
            return
        blob = json.dumps(_kept(item), ensure_ascii=False, separators=(",", ":")).encode()
        self._forget(item_id)
        cost = _cost(item_id, blob)
        if cost > self.max_bytes:
            # Kept, it would push out everything else; a reference to it gets the 400.
            log.debug("Not keeping item %s: %d bytes exceed the item cache", item_id, cost)
            return
        self._items[item_id] = blob
        self.used_bytes += cost
        while self.used_bytes > self.max_bytes:
            self._forget(next(iter(self._items)))

    def get(self, item_id: str) -> Event | None:
        """A fresh copy of the item, marked as just used; None when it is not kept."""
        blob = self._items.get(item_id)
        if blob is None:
            return None
        self._items.move_to_end(item_id)
        item: Event = json.loads(blob)
        return item

    def _forget(self, item_id: str) -> None:
        blob = self._items.pop(item_id, None)
        if blob is not None:
            self.used_bytes -= _cost(item_id, blob)


ITEM_CACHE: web.AppKey[ItemCache] = web.AppKey("item_cache", ItemCache)


def is_reference(item: Any) -> bool:
    """An `item_reference` input item; its `type` is optional (a bare `{"id": ...}`)."""
    if not isinstance(item, dict):
        return False
    kind = item.get("type")
    return kind == "item_reference" or (kind is None and "role" not in item and "id" in item)


def _resolved(cache: ItemCache, index: int, reference: dict[str, Any]) -> Event:
    item_id = reference.get("id")
    param = f"input[{index}].id"
    if not isinstance(item_id, str) or not item_id:
        raise invalid_request(
            f"`{param}` must be the id of an item (a non-empty string).",
            param=param,
            code="invalid_value",
        )
    item = cache.get(item_id)
    if item is None:
        log.info("An item_reference names an item that is not kept: %s", item_id)
        raise invalid_request(
            f"Item with id {item_id!r} not found. {_STORE_FALSE_HINT}",
            param=param,
            code="item_not_found",
        )
    return item


def resolve_references(body: Any, cache: ItemCache) -> Any:
    """The request body with every `item_reference` in `input` replaced by the item it names.

    Raises ApiError (400) for a reference to an item that is not kept. A body without
    references is returned as it is.
    """
    if not isinstance(body, dict) or any(
        body.get(param) is not None for param in ("previous_response_id", "conversation")
    ):
        return body  # state the bridge does not keep: parsing rejects that, naming it, first
    items = body.get("input")
    if not isinstance(items, list) or not any(map(is_reference, items)):
        return body
    resolved = [
        _resolved(cache, index, item) if is_reference(item) else item
        for index, item in enumerate(items)
    ]
    return {**body, "input": resolved}


async def remembering(
    events: AsyncGenerator[list[Event], None], cache: ItemCache
) -> AsyncGenerator[list[Event], None]:
    """Pass a response's event batches on, keeping every finished output item on the way."""
    try:
        async for batch in events:
            for event in batch:
                if event["type"] == "response.output_item.done":
                    cache.remember(event["item"])
            yield batch
    finally:
        await events.aclose()  # closing early must still cancel the editor's request
