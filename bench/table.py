"""The run's table: one column per server, the worst dialect against Responses, the targets.

Each target is judged on the medians of the rounds. Today's targets (docs/benchmarks.md) are
judged on the Responses column against the baseline, as before there were dialects; the issue's
"every dialect within 10 % of Responses" is judged on the figures listed in `WITHIN`; the
per-delta targets of issue 31 (one stream at least half the orjson writer's rate, server CPU
per delta at most twice its) on every dialect against the orjson baseline.
"""

from __future__ import annotations

import statistics

from bench.figures import Figure, Results, Sizes, figures

REFERENCE = "responses"  # the dialect the others are held to
BASELINE = "baseline"  # the json module's raw writer
FAST_BASELINE = "baseline-orjson"  # orjson's raw writer: the per-delta targets are against it
BASELINES = (BASELINE, FAST_BASELINE)
TOLERANCE = 0.10
WITHIN = ("stream_dps", "ttfb_p50", "agg_dps_64", "start", "rss_idle_http", "rss_idle")

Medians = dict[str, dict[str, float]]


def _fmt(value: float) -> str:
    if value == int(value) and abs(value) < 1000:
        return str(int(value))
    if value >= 1000:
        return f"{value:,.0f}"
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}" if value >= 0.1 else f"{value:.3f}"


def _cell(values: list[float]) -> str:
    if len(values) == 1:
        return _fmt(values[0])
    return f"{_fmt(statistics.median(values))} ({_fmt(min(values))}-{_fmt(max(values))})"


def _ratio(value: float, reference: float) -> float | None:
    if reference:
        return value / reference
    return None if not value else float("inf")


def _ratio_text(ratio: float | None) -> str:
    return "-" if ratio is None else f"{ratio:.2f}"


def worst(fig: Figure, med: Medians, dialects: list[str]) -> tuple[str, float | None] | None:
    """The dialect furthest from Responses the wrong way on `fig`, with its ratio to it."""
    others = [name for name in dialects if name != REFERENCE]
    if not others:
        return None
    reference = med[REFERENCE][fig.key]
    ratios = {name: _ratio(med[name][fig.key], reference) for name in others}

    def badness(name: str) -> float:
        ratio = ratios[name]
        if ratio is None:
            return 0.0
        return -ratio if fig.higher_is_better else ratio

    name = max(others, key=badness)
    return name, ratios[name]


def _within(fig: Figure, med: Medians, dialects: list[str]) -> str:
    found = worst(fig, med, dialects)
    if found is None:
        return ""
    name, ratio = found
    if fig.higher_is_better:
        ok = ratio is None or ratio >= 1 - TOLERANCE
        bound = f"≥ {1 - TOLERANCE:.1f}"
    else:
        ok = ratio is None or ratio <= 1 + TOLERANCE
        bound = f"≤ {1 + TOLERANCE:.1f}"
    verdict = "met" if ok else f"MISSED ({name})"
    return f"every dialect {bound} x responses: {verdict}"


def _per_delta(med: Medians, dialects: list[str]) -> dict[str, str]:
    """Issue 31's per-delta targets, on every dialect against the orjson writer (or, in a table
    without it, the json one)."""
    name = FAST_BASELINE if FAST_BASELINE in med else BASELINE
    fast = med[name]
    slow_rate = [d for d in dialects if med[d]["stream_dps"] < 0.5 * fast["stream_dps"]]
    costly = [d for d in dialects if med[d]["cpu_per_1k"] > 2 * fast["cpu_per_1k"]]

    def verdict(missed: list[str]) -> str:
        return f"MISSED ({', '.join(missed)})" if missed else "met"

    return {
        "stream_dps": f"every dialect ≥ 50% of {name}: {verdict(slow_rate)}",
        "cpu_per_1k": f"every dialect ≤ 2 x {name}: {verdict(costly)}",
    }


def _todays_targets(med: Medians, dialects: list[str]) -> dict[str, str]:
    """Each target of docs/benchmarks.md, judged on the Responses column: 'met' or 'MISSED'."""
    base, bridge = med[BASELINE], med[REFERENCE]

    def verdict(ok: bool) -> str:
        return "met" if ok else "MISSED"

    return {
        **_per_delta(med, dialects),
        "ttfb_p50": "≤ baseline + 2 ms: " + verdict(bridge["ttfb_p50"] <= base["ttfb_p50"] + 2),
        "p99_64": "no error, p99 ≤ 2 x p50: "
        + verdict(bridge["errors_64"] == 0 and bridge["p99_64"] <= 2 * bridge["p50_64"]),
        "start": "≤ 0.8 s: " + verdict(bridge["start"] <= 0.8),  # issue 31
        "rss_idle_http": "≤ 80 MiB: " + verdict(bridge["rss_idle_http"] <= 80),
        "rss_idle": "≤ 90 MiB: " + verdict(bridge["rss_idle"] <= 90),  # issue 31: serve as a whole
        "rss_after": "flat (≤ +5 MiB): " + verdict(bridge["rss_after"] - bridge["rss_loaded"] <= 5),
    }


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def table(results: Results, sizes: Sizes, dialects: list[str]) -> str:
    """`dialects`: the bridge's columns, Responses among them."""
    med: Medians = {
        name: {key: statistics.median(values) for key, values in by_key.items()}
        for name, by_key in results.items()
    }
    targets = _todays_targets(med, dialects)
    compare = len(dialects) > 1
    baselines = [name for name in BASELINES if name in results]
    header = ["figure", "unit", *baselines, *dialects]
    header += [f"{REFERENCE} / {name}" for name in baselines]
    header += ["worst dialect / responses"] if compare else []
    lines = [_row([*header, "target"]), "|" + "---|" * (len(header) + 1)]
    for fig in figures(sizes):
        cells = [fig.label, fig.unit]
        cells += [_cell(results[name][fig.key]) for name in [*baselines, *dialects]]
        for name in baselines:
            cells.append(_ratio_text(_ratio(med[REFERENCE][fig.key], med[name][fig.key])))
        if compare:
            found = worst(fig, med, dialects)
            name, ratio = found or ("", None)
            cells.append("-" if ratio is None else f"{ratio:.2f} ({name})")
        goals = [targets.get(fig.key, "")]
        goals.append(_within(fig, med, dialects) if fig.key in WITHIN else "")
        cells.append("; ".join(goal for goal in goals if goal))
        lines.append(_row(cells))
    return "\n".join(lines)
