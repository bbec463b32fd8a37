"""The client side: streams read with aiohttp, counting text parts without parsing every event."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

import aiohttp

from bench.dialects import RESPONSES, Dialect


@dataclass
class StreamResult:
    ttfb: float  # seconds from sending the request to the first byte of the event stream
    total: float  # seconds until the stream closed
    deltas: int  # text parts delivered
    ok: bool  # status 200, the stream's proper end seen, every part there
    error: str = ""
    first_delta: float = 0.0  # seconds from sending the request to the chunk with the first delta


class PartCounter:
    """Text parts and the proper end seen in a stream's bytes, fed in chunks as they arrive."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self.parts = 0
        self.ended = False
        self._tail = b""  # the last bytes of the previous chunk: a marker may straddle two

    def feed(self, chunk: bytes) -> None:
        part, tail = self.dialect.part, self._tail
        data = tail + chunk
        # Markers wholly inside the tail were counted with the previous chunk.
        self.parts += data.count(part) - tail.count(part)
        self.ended = self.ended or self.dialect.end in data
        self._tail = data[-self.dialect.carry :]


async def one_stream(
    session: aiohttp.ClientSession,
    url: str,
    deltas: int,
    dialect: Dialect = RESPONSES,
    model: str | None = None,
    text: str | None = None,
) -> StreamResult:
    """One streaming request for `deltas` parts. `model` and `text` ask another model than
    sim-bench (the VS Code host's scripted one, bench/vscode_host.py): Responses only."""
    body = dialect.body(deltas)
    if model is not None or text is not None:
        body = {**body, "model": model or body["model"], "input": text or body["input"]}
    started = time.perf_counter()
    ttfb = first_delta = 0.0
    counter = PartCounter(dialect)
    try:
        async with session.post(
            f"{url}{dialect.path}", json=body, headers=dialect.headers
        ) as response:
            if response.status != 200:
                text = await response.text()
                return StreamResult(0, 0, 0, False, f"HTTP {response.status}: {text[:200]}")
            async for chunk in response.content.iter_any():
                if not ttfb:
                    ttfb = time.perf_counter() - started
                counter.feed(chunk)
                if counter.parts and not first_delta:
                    first_delta = time.perf_counter() - started
    except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
        return StreamResult(0, 0, counter.parts, False, f"{type(exc).__name__}: {exc}")
    total = time.perf_counter() - started
    count, ended = counter.parts, counter.ended
    ok = ended and count == deltas
    error = "" if ok else f"{count} of {deltas} parts, ended properly: {ended}"
    return StreamResult(ttfb, total, count, ok, error, first_delta)


def new_session() -> aiohttp.ClientSession:
    timeout = aiohttp.ClientTimeout(total=300)
    return aiohttp.ClientSession(timeout=timeout, connector=aiohttp.TCPConnector(limit=0))


async def concurrent(
    url: str, streams: int, deltas: int, dialect: Dialect = RESPONSES
) -> tuple[float, list[StreamResult]]:
    """`streams` streams started together; wall time until the last one ends, and each result."""
    async with new_session() as session:
        await one_stream(session, url, 1, dialect)  # warm the connection pool's first connection
        started = time.perf_counter()
        results = await asyncio.gather(
            *(one_stream(session, url, deltas, dialect) for _ in range(streams))
        )
        return time.perf_counter() - started, list(results)


async def sequential(
    url: str, requests: int, deltas: int = 1, dialect: Dialect = RESPONSES
) -> list[StreamResult]:
    async with new_session() as session:
        return [await one_stream(session, url, deltas, dialect) for _ in range(requests)]


async def many(url: str, requests: int, workers: int = 8, dialect: Dialect = RESPONSES) -> int:
    """`requests` one-part requests over `workers` connections; the number that failed."""
    failed = 0
    remaining = requests

    async def worker(session: aiohttp.ClientSession) -> None:
        nonlocal failed, remaining
        while remaining > 0:
            remaining -= 1
            if not (await one_stream(session, url, 1, dialect)).ok:
                failed += 1

    async with new_session() as session:
        await asyncio.gather(*(worker(session) for _ in range(workers)))
    return failed
