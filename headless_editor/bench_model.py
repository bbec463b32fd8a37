"""`sim-bench`: a model for benchmarks that streams as many parts as asked, as fast as it can.

The last user text holds the number of text parts wanted (`"20000"`); each part is one short
word. Like every simulated model it yields to the event loop between parts, as a real model
stream does; the editor sends parts that come turn after turn together (PartSender in
headless_editor/editor.py), as it would those of a real model that streams that fast.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
from collections.abc import AsyncIterator

from bridge.core.parts import DataPart, ResponsePart, TextPart
from headless_editor.chat_types import ChatRequest, ModelInfo

BENCH_MODEL = ModelInfo(
    id="sim-bench",
    name="Simulated benchmark load",
    vendor="maestro-sim",
    family="sim-bench",
    version="1",
    maxInputTokens=128000,
)
MAX_PARTS = 1_000_000
_WORD = "tok "
_NUMBER = re.compile(r"\d+")


def requested_parts(request: ChatRequest) -> int:
    """The first number in the last message's text: how many parts to stream (1 if none)."""
    text = ""
    if request.messages:
        text = " ".join(
            part.value for part in request.messages[-1].content if isinstance(part, TextPart)
        )
    found = _NUMBER.search(text)
    return min(int(found.group()), MAX_PARTS) if found else 1


async def bench_reply(request: ChatRequest) -> AsyncIterator[ResponsePart]:
    count = requested_parts(request)
    part = TextPart(value=_WORD)  # parts are never changed downstream: one serves for all
    for _ in range(count):
        await asyncio.sleep(0)  # a point where a cancelled request stops
        yield part
    usage = {"prompt_tokens": 1, "completion_tokens": count, "total_tokens": count + 1}
    yield DataPart(mimeType="usage", data=base64.b64encode(json.dumps(usage).encode()).decode())
