"""Server-sent events framing, as the Responses clients parse it."""

from __future__ import annotations

import json
from typing import Any


def encode_events(events: list[dict[str, Any]]) -> bytes:
    """`event: <type>\\ndata: <json>\\n\\n` per event, `\\n` line ends, all in one buffer."""
    return "".join(
        f"event: {e['type']}\ndata: {json.dumps(e, ensure_ascii=False, separators=(',', ':'))}\n\n"
        for e in events
    ).encode()
