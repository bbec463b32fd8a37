"""The side-by-side benchmark's table (bench/side_by_side.py): per figure, the provider alone,
Agent Maestro and the Maestro Bridge, the bridge's ratio to each, and issue 46's target."""

from __future__ import annotations

import statistics
from typing import Any

Results = dict[str, dict[str, list[float]]]  # figure key -> server -> one value per round
DIALECTS = ("responses", "messages", "chat", "gemini")
FASTER, MAX_TIME_RATIO, MIN_RATE_RATIO = "lower", 0.9, 1.0


def record(results: Results, key: str, server: str, value: float) -> None:
    results.setdefault(key, {}).setdefault(server, []).append(value)


def _fmt(value: float) -> str:
    if value >= 1000:
        return f"{value:,.0f}"
    if value >= 100:
        return f"{value:.0f}"
    return f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def _cell(values: list[float] | None) -> str:
    if not values:
        return "-"
    if len(values) == 1:
        return _fmt(values[0])
    return f"{_fmt(statistics.median(values))} ({_fmt(min(values))}-{_fmt(max(values))})"


def _ratio(ours: list[float] | None, theirs: list[float] | None) -> float | None:
    if not ours or not theirs:
        return None
    return statistics.median(ours) / statistics.median(theirs)


def _rows(results: Results, sizes: Any) -> list[tuple[str, str, str, str]]:
    """(label, unit, key of the bridge's and the peer's figure, key of the provider's)."""
    rows = []
    for dialect in DIALECTS:
        if f"short {dialect}" in results:
            label = f"first delta, short request, {dialect} (p50 of {sizes.short})"
            rows.append((label, "ms", f"short {dialect}", "short"))
    for dialect in DIALECTS:
        if f"history {dialect}" in results:
            label = f"first delta, {sizes.history:,}-item {dialect} history"
            label += f" (median of {sizes.history_requests})"
            rows.append((label, "ms", f"history {dialect}", "history"))
    rows.append((f"one {sizes.parts:,}-part stream (messages)", "parts/s", "stream", "stream"))
    label = f"{sizes.streams} streams x {sizes.stream_parts:,} parts at once (messages), aggregate"
    rows.append((label, "parts/s", "concurrent", "concurrent"))
    return rows


def table(results: Results, sizes: Any, servers: list[str], notes: list[str]) -> str:
    provider, peer, bridge = servers
    lines = [
        f"| figure | unit | {provider} (provider alone) | {peer} | {bridge} "
        f"| bridge / {peer} | target | bridge / provider |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label, unit, key, provider_key in _rows(results, sizes):
        figures = results.get(key, {})
        ours, theirs = figures.get(bridge), figures.get(peer)
        base = results.get(provider_key, {}).get(provider)
        ratio = _ratio(ours, theirs)
        rate = unit == "parts/s"
        target = f"≥ {MIN_RATE_RATIO}" if rate else f"≤ {MAX_TIME_RATIO}"
        if ratio is not None:
            met = ratio >= MIN_RATE_RATIO if rate else ratio <= MAX_TIME_RATIO
            target += ": met" if met else ": MISSED"
        to_provider = _ratio(ours, base)
        lines.append(
            f"| {label} | {unit} | {_cell(base)} | {_cell(theirs)} | {_cell(ours)} "
            f"| {'-' if ratio is None else f'{ratio:.2f}'} | {target} "
            f"| {'-' if to_provider is None else f'{to_provider:.2f}'} |"
        )
    return "\n".join([*lines, "", *notes]).rstrip()
