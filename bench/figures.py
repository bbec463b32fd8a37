"""What one run measures: its sizes and the figures (the table's rows)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sizes:
    rounds: int
    stream_deltas: int  # one stream
    sequential: int  # one-delta requests, one after another
    concurrent_deltas: int  # per stream, with 16 and 64 streams
    requests: int  # one-delta requests before the last RSS reading


FULL = Sizes(
    rounds=3, stream_deltas=20_000, sequential=200, concurrent_deltas=2_000, requests=5_000
)
QUICK = Sizes(rounds=1, stream_deltas=500, sequential=20, concurrent_deltas=20, requests=100)
CONCURRENCY = (16, 64)


@dataclass(frozen=True)
class Figure:
    key: str
    label: str
    unit: str

    @property
    def higher_is_better(self) -> bool:
        return self.unit == "deltas/s"


def figures(sizes: Sizes) -> list[Figure]:
    rows = [
        Figure("stream_dps", f"one stream, {sizes.stream_deltas:,} deltas", "deltas/s"),
        Figure("ttfb_p50", f"one-delta response ({sizes.sequential} seq.): TTFB p50", "ms"),
        Figure("ttfb_p99", "one-delta response: TTFB p99", "ms"),
        Figure("total_p50", "one-delta response: total p50", "ms"),
        Figure("total_p99", "one-delta response: total p99", "ms"),
    ]
    for streams in CONCURRENCY:
        each = f"{streams} streams x {sizes.concurrent_deltas:,}"
        rows += [
            Figure(f"agg_dps_{streams}", f"{each}: aggregate", "deltas/s"),
            Figure(f"p50_{streams}", f"{each}: stream time p50", "ms"),
            Figure(f"p99_{streams}", f"{each}: stream time p99", "ms"),
            Figure(f"errors_{streams}", f"{each}: failed streams", "count"),
        ]
    rows += [
        Figure("cpu_per_1k", "server CPU per 1,000 deltas (one stream)", "s"),
        Figure("start", "process start until the endpoint answers", "s"),
        Figure("rss_idle_http", "RSS idle, the HTTP process (bridge: lsp, no editor)", "MiB"),
        Figure("rss_idle", "RSS idle, all server processes", "MiB"),
        Figure("rss_loaded", "RSS after the load tests", "MiB"),
        Figure("rss_after", f"RSS after {sizes.requests:,} more requests", "MiB"),
    ]
    return rows


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


Results = dict[str, dict[str, list[float]]]  # column -> figure key -> one value per round
