"""The side-by-side benchmark's client (bench/side_by_side.py): the same requests, in each
dialect, to any server that speaks it (the Maestro Bridge, Agent Maestro), bodies encoded once
before the clock starts, text deltas found in the raw bytes without parsing events.

The model is the scripted one of the VS Code host (`[bench N]`: N parts "w ", one per turn of
the event loop) or a real provider's (bench/copilot_overhead.py), whose text is anything.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import dataclass
from typing import Any

import aiohttp

from bench.conversation import history
from bench.dialect_bodies import BUILDERS

WORD = b"w "  # what the scripted model streams, once per part
ANTHROPIC = {"anthropic-version": "2023-06-01"}


@dataclass(frozen=True)
class Route:
    """How one server takes one dialect: the streaming request's path ({model} in it for
    Gemini) and the extra headers."""

    dialect: str
    path: str
    headers: dict[str, str]


# What marks one text delta, and the stream's proper end, per dialect. Responses repeats the
# whole text in its closing events, so its delta events count; in the others the scripted
# model's word does (Gemini merges the parts of a batch into one chunk's text).
PART = {"responses": re.compile(rb"event: response\.output_text\.delta\n")}
ANY_TEXT = {
    "responses": re.compile(rb"response\.output_text\.delta"),
    "messages": re.compile(rb'"text_delta"'),
    "chat": re.compile(rb'"content":\s*"[^"]'),
    "gemini": re.compile(rb'"text":\s*"[^"]'),
}
END = {
    "responses": b"response.completed",
    "messages": b"message_stop",
    "chat": b"[DONE]",
    "gemini": b"finishReason",
}


def short_body(dialect: str, model: str, text: str, parts: int = 1) -> dict[str, Any]:
    """A one-message streaming request for `parts` parts, with nothing else in it (Messages
    allows more output tokens than those parts take: the bridge ends a stream at the limit)."""
    if dialect == "responses":
        return {"model": model, "input": text, "stream": True}
    if dialect == "messages":
        return {
            "model": model,
            "max_tokens": 4 * parts + 4096,
            "messages": [{"role": "user", "content": text}],
            "stream": True,
        }
    if dialect == "chat":
        return {"model": model, "messages": [{"role": "user", "content": text}], "stream": True}
    return {"contents": [{"role": "user", "parts": [{"text": text}]}]}


def history_body(dialect: str, model: str, items: int) -> dict[str, Any]:
    """An agent's conversation of `items` items in the dialect's own shape (bench/history.py's
    bodies: system prompt, two tools, texts, tool calls and results) ending in `[bench 1]`."""
    body = BUILDERS[dialect](history(items, last="[bench 1]"))
    if dialect != "gemini":
        body["model"] = model
    return body


def encode(body: dict[str, Any]) -> bytes:
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()


@dataclass
class Result:
    ok: bool
    first: float = 0.0  # seconds from sending to the chunk with the first text delta
    total: float = 0.0  # seconds until the stream closed
    parts: int = 0  # scripted parts counted (0 when not counting)
    error: str = ""


async def stream(
    session: aiohttp.ClientSession,
    base: str,
    route: Route,
    model: str,
    data: bytes,
    parts: int | None,
) -> Result:
    """One streaming request; `parts` the scripted parts expected (None: any text will do)."""
    url = base + route.path.format(model=model)
    headers = {"Content-Type": "application/json", **route.headers}
    counter = PART.get(route.dialect)
    found = 0
    tail = b""
    first = 0.0
    ended = False
    started = time.perf_counter()
    try:
        async with session.post(url, data=data, headers=headers) as response:
            if response.status != 200:
                text = await response.text()
                return Result(False, error=f"{route.dialect}: HTTP {response.status}: {text[:300]}")
            async for chunk in response.content.iter_any():
                seen = tail + chunk
                if not first and ANY_TEXT[route.dialect].search(seen):
                    first = time.perf_counter() - started
                if parts is not None:
                    # Markers wholly inside the tail were counted with the previous chunk.
                    if counter is not None:
                        found += len(counter.findall(seen)) - len(counter.findall(tail))
                    else:
                        found += seen.count(WORD) - tail.count(WORD)
                ended = ended or END[route.dialect] in seen
                tail = seen[-40:]
    except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
        return Result(False, error=f"{route.dialect}: {type(exc).__name__}: {exc}")
    total = time.perf_counter() - started
    ok = ended and first > 0 and (parts is None or found == parts)
    error = "" if ok else f"{route.dialect}: {found} of {parts} parts, ended: {ended}"
    return Result(ok, first, total, found, error)


def new_session() -> aiohttp.ClientSession:
    timeout = aiohttp.ClientTimeout(total=600)
    return aiohttp.ClientSession(timeout=timeout, connector=aiohttp.TCPConnector(limit=0))


async def concurrent(
    base: str, route: Route, model: str, streams: int, parts: int
) -> tuple[float, list[Result]]:
    """`streams` streams of `parts` parts started together; the wall time until the last one
    ended, and each one's result."""
    data = encode(short_body(route.dialect, model, f"[bench {parts}]", parts))
    async with new_session() as session:
        await stream(
            session, base, route, model, encode(short_body(route.dialect, model, "[bench 1]")), 1
        )
        started = time.perf_counter()
        results = await asyncio.gather(
            *(stream(session, base, route, model, data, parts) for _ in range(streams))
        )
        return time.perf_counter() - started, list(results)
