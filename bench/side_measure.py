"""What bench/side_by_side.py measures, per contender: the provider alone (`benchLm` in the
extension host) or an HTTP server in the same host (the bridge, Agent Maestro).

The contenders take turns in small blocks (`BLOCK` one-part requests, one history request, one
stream), so that a noisy moment of the shared machine falls on all of them alike: their ratios
hold better than their absolute figures.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from bench.side_client import Route, concurrent, encode, history_body, short_body, stream
from bench.side_table import Results, record

BLOCK = 20  # one-part requests of one contender before the next one's turn
MODEL = "scripted-model"
STREAM_DIALECT = "messages"  # the one every peer takes
Samples = dict[str, list[float]]  # figure key -> values of this round


@dataclass
class Provider:
    """The provider alone, called by the scripted-model extension's `benchLm`; `ask(request)`
    runs one and returns its runs (VSCodeHost.control_answer)."""

    name: str
    ask: Callable[[dict[str, Any]], list[dict[str, float]]]

    def _runs(self, parts: int, requests: int, history: int = 0) -> list[dict[str, float]]:
        return self.ask({"parts": parts, "requests": requests, "history": history})

    async def short(self, count: int, samples: Samples, problems: list[str]) -> None:
        runs = self._runs(1, count)
        samples.setdefault("short", []).extend(r["firstMs"] for r in runs)

    async def history(self, items: int, samples: Samples, problems: list[str]) -> None:
        [run] = self._runs(1, 1, items)
        samples.setdefault("history", []).append(run["firstMs"])

    async def stream(self, parts: int, samples: Samples, problems: list[str]) -> None:
        [run] = self._runs(parts, 1)
        if run["parts"] != parts:
            problems.append(f"{self.name}: {run['parts']} of {parts} parts")
        samples.setdefault("stream", []).append(parts / (run["totalMs"] / 1000))


@dataclass
class Server:
    """An HTTP server in the host; `routes` the dialects it answers."""

    name: str
    base: str  # http://host:port
    routes: dict[str, Route]
    model: str = MODEL
    text: str = "[bench 1]"  # the short request's
    counted: bool = True  # the scripted model's parts are counted; another model's any text
    session: aiohttp.ClientSession | None = None
    bodies: dict[tuple[str, int], bytes] = field(default_factory=dict)

    def _body(self, dialect: str, items: int) -> bytes:
        """Encoded once: 0 items is the short request."""
        key = (dialect, items)
        if key not in self.bodies:
            built = (
                history_body(dialect, self.model, items)
                if items
                else short_body(dialect, self.model, self.text)
            )
            self.bodies[key] = encode(built)
        return self.bodies[key]

    async def _one(self, dialect: str, items: int, problems: list[str]) -> float:
        assert self.session is not None
        result = await stream(
            self.session,
            self.base,
            self.routes[dialect],
            self.model,
            self._body(dialect, items),
            1 if self.counted else None,
        )
        if not result.ok:
            problems.append(f"{self.name}: {result.error}")
        return 1000 * result.first

    async def short(self, count: int, samples: Samples, problems: list[str]) -> None:
        for dialect in self.routes:
            firsts = [await self._one(dialect, 0, problems) for _ in range(count)]
            samples.setdefault(f"short {dialect}", []).extend(firsts)

    async def history(self, items: int, samples: Samples, problems: list[str]) -> None:
        for dialect in self.routes:
            samples.setdefault(f"history {dialect}", []).append(
                await self._one(dialect, items, problems)
            )

    async def stream(self, parts: int, samples: Samples, problems: list[str]) -> None:
        assert self.session is not None
        route = self.routes[STREAM_DIALECT]
        data = encode(short_body(STREAM_DIALECT, MODEL, f"[bench {parts}]", parts))
        one = await stream(self.session, self.base, route, MODEL, data, parts)
        if not one.ok:
            problems.append(f"{self.name} stream: {one.error}")
        samples.setdefault("stream", []).append(parts / one.total if one.total else 0.0)

    async def concurrent(
        self, streams: int, parts: int, samples: Samples, problems: list[str]
    ) -> None:
        route = self.routes[STREAM_DIALECT]
        wall, many = await concurrent(self.base, route, MODEL, streams, parts)
        problems += [f"{self.name} {streams} streams: {r.error}" for r in many if not r.ok][:3]
        samples.setdefault("concurrent", []).append(streams * parts / wall)


Contender = Provider | Server


async def one_round(
    contenders: list[Contender], sizes: Any, flip: bool, results: Results, problems: list[str]
) -> None:
    """Every figure of every contender once, taking turns; the round's medians into `results`."""
    order = list(reversed(contenders)) if flip else list(contenders)
    samples: dict[str, Samples] = {c.name: {} for c in contenders}
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=600)) as session:
        for contender in order:
            if isinstance(contender, Server):
                contender.session = session
        done = 0
        while done < sizes.short:
            block = min(BLOCK, sizes.short - done)
            for contender in order:
                await contender.short(block, samples[contender.name], problems)
            order.reverse()
            done += block
        for repetition in range(sizes.history_requests + 1 if sizes.history else 0):
            for contender in order:
                kept = samples[contender.name] if repetition else {}  # the first: a warm-up
                await contender.history(sizes.history, kept, problems)
            order.reverse()
        for contender in order if sizes.parts else []:
            await contender.stream(sizes.parts, samples[contender.name], problems)
    for contender in order if sizes.streams else []:
        if isinstance(contender, Server):
            contender.session = None
            await contender.concurrent(
                sizes.streams, sizes.stream_parts, samples[contender.name], problems
            )
    for name, figures in samples.items():
        for key, values in figures.items():
            record(results, key, name, statistics.median(values))
