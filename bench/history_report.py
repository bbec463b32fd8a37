"""The history sweep's markdown tables: one row per request size, one verdict per dialect."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

# The bridge's own CPU per request (issue 31): at 4,000 small items, and at 0.5 MB in 17 items.
ITEMS_TARGET_MS = 15.0
BYTES_TARGET_MS = 5.0


@dataclass
class Point:
    """One request size of one dialect and what its repetitions measured."""

    dialect: str
    sweep: str  # "items" or "bytes"
    items: int
    body_bytes: int
    target: int = 0  # the bytes sweep's nominal size (0.5 MB = 500,000), 0 in the items sweep
    first_delta: list[float] = field(default_factory=list)  # seconds
    bridge_cpu: list[float] = field(default_factory=list)  # seconds, the language server
    editor_cpu: list[float] = field(default_factory=list)  # seconds, the headless editor

    @property
    def bridge_ms(self) -> float:
        return statistics.median(self.bridge_cpu) * 1000

    @property
    def editor_ms(self) -> float:
        return statistics.median(self.editor_cpu) * 1000

    @property
    def first_delta_ms(self) -> float:
        return statistics.median(self.first_delta) * 1000

    def per_item_us(self, short: Point) -> float | None:
        """Bridge CPU per item beyond the one-item request (its fixed cost taken out)."""
        if self.items <= short.items or not self.bridge_cpu:
            return None
        return (self.bridge_ms - short.bridge_ms) * 1000 / (self.items - short.items)

    def per_kb_us(self, short: Point) -> float | None:
        """Bridge CPU per KB (1,000 bytes) of body beyond the one-item request."""
        if self.body_bytes <= short.body_bytes or not self.bridge_cpu:
            return None
        extra_kb = (self.body_bytes - short.body_bytes) / 1000
        return (self.bridge_ms - short.bridge_ms) * 1000 / extra_kb


def fmt(value: float | None) -> str:
    if value is None:
        return "-"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def sweep_table(points: list[Point], short: dict[str, Point]) -> str:
    lines = [
        "| dialect | sweep | items | body bytes | first delta p50 (ms) | bridge CPU (ms) "
        "| editor CPU (ms) | bridge µs / item | bridge µs / KB |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for point in points:
        base = short[point.dialect]
        lines.append(
            f"| {point.dialect} | {point.sweep} | {point.items:,} | {point.body_bytes:,} "
            f"| {fmt(point.first_delta_ms)} | {fmt(point.bridge_ms)} | {fmt(point.editor_ms)} "
            f"| {fmt(point.per_item_us(base))} | {fmt(point.per_kb_us(base))} |"
        )
    return "\n".join(lines)


@dataclass(frozen=True)
class Judged:
    """Which points a verdict reads: the target's two sizes and the linearity pairs."""

    items: int  # 4,000: the target's item count, also the far end of the item linearity
    items_from: int  # 600: the near end of the item linearity
    bytes: int  # 500,000: the target's body size (nominal, as in `Point.target`)
    bytes_far: int  # 1,000,000 and 180,000: the bytes linearity's two sizes
    bytes_near: int


def _mb(size: int) -> str:
    return f"{size / 1e6:g} MB"


def _verdict(ms: float, target: float) -> str:
    return f"{fmt(ms)} ms: " + ("met" if ms <= target else "MISSED")


def _ratio(far: float | None, near: float | None) -> str:
    if far is None or near is None or near <= 0:
        return "-"
    return f"{far / near:.2f}"


def verdict_table(points: list[Point], short: dict[str, Point], judged: Judged) -> str:
    lines = [
        f"| dialect | bridge CPU at {judged.items:,} items (≤ {ITEMS_TARGET_MS:g} ms) "
        f"| bridge CPU at {_mb(judged.bytes)} (≤ {BYTES_TARGET_MS:g} ms) "
        f"| linearity by items: µs/item at {judged.items:,} ÷ at {judged.items_from:,} "
        f"| linearity by bytes: µs/KB at {_mb(judged.bytes_far)} ÷ at {_mb(judged.bytes_near)} |",
        "|---|---|---|---|---|",
    ]
    for dialect in dict.fromkeys(point.dialect for point in points):
        mine = [p for p in points if p.dialect == dialect]
        by_items = {p.items: p for p in mine if p.sweep == "items"}
        by_bytes = {p.target: p for p in mine if p.sweep == "bytes"}
        base = short[dialect]
        at_items, near_items = by_items[judged.items], by_items[judged.items_from]
        at_bytes = by_bytes[judged.bytes]
        far, near = by_bytes[judged.bytes_far], by_bytes[judged.bytes_near]
        lines.append(
            f"| {dialect} | {_verdict(at_items.bridge_ms, ITEMS_TARGET_MS)} "
            f"| {_verdict(at_bytes.bridge_ms, BYTES_TARGET_MS)} "
            f"| {_ratio(at_items.per_item_us(base), near_items.per_item_us(base))} "
            f"| {_ratio(far.per_kb_us(base), near.per_kb_us(base))} |"
        )
    return "\n".join(lines)
