"""`bridge.core.keepalive.with_keepalive`: ticks while the source is silent, clean closing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

from bridge.core.keepalive import with_keepalive


class Source:
    """An async generator double that sleeps before each item and records its cleanup."""

    def __init__(self, delays: list[float]) -> None:
        self.delays = delays
        self.closed = False
        self.cancelled = False

    async def items(self) -> AsyncGenerator[int, None]:
        try:
            for index, delay in enumerate(self.delays):
                await asyncio.sleep(delay)
                yield index
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        finally:
            self.closed = True


async def test_items_pass_and_silence_ticks() -> None:
    source = Source([0.0, 0.35, 0.0])
    seen = [item async for item in with_keepalive(source.items(), 0.1)]
    items = [i for i in seen if i is not None]
    ticks = seen.count(None)
    assert items == [0, 1, 2]
    assert 2 <= ticks <= 4  # about 0.35 / 0.1; generous against a busy machine
    assert seen.index(None) > seen.index(0) and seen.index(1) > seen.index(None)
    assert source.closed


async def test_no_ticks_when_items_come_quickly() -> None:
    source = Source([0.0, 0.01, 0.01])
    assert [item async for item in with_keepalive(source.items(), 5)] == [0, 1, 2]


async def test_zero_interval_turns_ticks_off() -> None:
    source = Source([0.0, 0.05])
    assert [item async for item in with_keepalive(source.items(), 0)] == [0, 1]
    assert source.closed


async def test_closing_while_waiting_cancels_the_source() -> None:
    source = Source([0.0, 30.0])
    ticking = with_keepalive(source.items(), 0.05)
    assert await anext(ticking) == 0
    assert await anext(ticking) is None  # the source is now waiting for its 30 s
    await ticking.aclose()
    assert source.cancelled and source.closed


async def test_errors_of_the_source_pass_through() -> None:
    async def failing() -> AsyncGenerator[int, None]:
        yield 1
        await asyncio.sleep(0.15)
        raise RuntimeError("boom")

    seen: list[int | None] = []
    try:
        async for item in with_keepalive(failing(), 0.05):
            seen.append(item)
    except RuntimeError as exc:
        assert str(exc) == "boom"
    else:
        raise AssertionError("the error was swallowed")
    assert seen[0] == 1 and None in seen
