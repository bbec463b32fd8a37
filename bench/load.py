"""The client side: streams read with aiohttp, counting deltas without parsing every event."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

import aiohttp

DELTA = b"event: response.output_text.delta\n"
COMPLETED = b"event: response.completed\n"
_CARRY = max(len(DELTA), len(COMPLETED)) - 1  # a marker split across two chunks still counts


@dataclass
class StreamResult:
    ttfb: float  # seconds from sending the request to the first byte of the event stream
    total: float  # seconds until the stream closed
    deltas: int
    ok: bool  # status 200, `response.completed` seen, every delta there
    error: str = ""
    first_delta: float = 0.0  # seconds from sending the request to the chunk with the first delta


async def one_stream(
    session: aiohttp.ClientSession,
    url: str,
    deltas: int,
    model: str = "sim-bench",
    text: str | None = None,
) -> StreamResult:
    """One streaming request for `deltas` deltas; `text` asks the model for them (sim-bench reads
    the number itself)."""
    body = {"model": model, "input": text or str(deltas), "stream": True}
    started = time.perf_counter()
    ttfb = first_delta = 0.0
    count = 0
    completed = False
    try:
        async with session.post(f"{url}/v1/responses", json=body) as response:
            if response.status != 200:
                text = await response.text()
                return StreamResult(0, 0, 0, False, f"HTTP {response.status}: {text[:200]}")
            tail = b""
            async for chunk in response.content.iter_any():
                if not ttfb:
                    ttfb = time.perf_counter() - started
                data = tail + chunk
                count += data.count(DELTA)
                if count and not first_delta:
                    first_delta = time.perf_counter() - started
                completed = completed or COMPLETED in data
                tail = data[-_CARRY:]
    except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
        return StreamResult(0, 0, count, False, f"{type(exc).__name__}: {exc}")
    total = time.perf_counter() - started
    ok = completed and count == deltas
    error = "" if ok else f"{count} of {deltas} deltas, completed={completed}"
    return StreamResult(ttfb, total, count, ok, error, first_delta)


def new_session() -> aiohttp.ClientSession:
    timeout = aiohttp.ClientTimeout(total=300)
    return aiohttp.ClientSession(timeout=timeout, connector=aiohttp.TCPConnector(limit=0))


async def concurrent(url: str, streams: int, deltas: int) -> tuple[float, list[StreamResult]]:
    """`streams` streams started together; wall time until the last one ends, and each result."""
    async with new_session() as session:
        await one_stream(session, url, 1)  # warm the connection pool's first connection
        started = time.perf_counter()
        results = await asyncio.gather(*(one_stream(session, url, deltas) for _ in range(streams)))
        return time.perf_counter() - started, list(results)


async def sequential(url: str, requests: int, deltas: int = 1) -> list[StreamResult]:
    async with new_session() as session:
        return [await one_stream(session, url, deltas) for _ in range(requests)]


async def many(url: str, requests: int, workers: int = 8) -> int:
    """`requests` one-delta requests over `workers` connections; the number that failed."""
    failed = 0
    remaining = requests

    async def worker(session: aiohttp.ClientSession) -> None:
        nonlocal failed, remaining
        while remaining > 0:
            remaining -= 1
            if not (await one_stream(session, url, 1)).ok:
                failed += 1

    async with new_session() as session:
        await asyncio.gather(*(worker(session) for _ in range(workers)))
    return failed
