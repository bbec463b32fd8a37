"""The benchmark keeps working: the `sim-bench` model, the client's counting in every dialect, the
table's verdicts, and `python -m bench --quick` end to end.

Nothing here checks speed (docs/benchmarks.md holds the figures); only that every figure is
measured and printed for every dialect, and that every server answered every request.
"""

from __future__ import annotations

import base64
import json
import sys
import urllib.request
from pathlib import Path

import pytest
from conftest import BridgeServer
from processes import run

from bench.__main__ import dialect_names
from bench.dialects import DIALECTS, Dialect
from bench.figures import QUICK, Results, figures
from bench.load import PartCounter
from bench.table import table
from bridge.core.parts import ChatMessage, DataPart, TextPart
from headless_editor.chat_types import ChatRequest
from headless_editor.simulated_model import SimulatedModel

REPO_ROOT = Path(__file__).resolve().parents[1]


def bench_request(text: str) -> ChatRequest:
    message = ChatMessage(role="user", content=[TextPart(value=text)])
    return ChatRequest(model="sim-bench", messages=[message])


@pytest.mark.parametrize(("text", "count"), [("3", 3), ("stream 12 parts", 12), ("none", 1)])
async def test_sim_bench_streams_the_parts_asked_for(text: str, count: int) -> None:
    parts = [part async for part in SimulatedModel().respond(bench_request(text))]
    assert [type(part) for part in parts] == [TextPart] * count + [DataPart]
    usage = parts[-1]
    assert isinstance(usage, DataPart) and usage.mimeType == "usage"
    assert json.loads(base64.b64decode(usage.data))["completion_tokens"] == count


def test_sim_bench_is_listed() -> None:
    assert "sim-bench" in {model.id for model in SimulatedModel().models()}


def raw_stream(server: BridgeServer, dialect: Dialect, parts: int) -> bytes:
    request = urllib.request.Request(
        f"{server.root_url}{dialect.path}",
        data=json.dumps(dialect.body(parts)).encode(),
        headers=dict(dialect.headers),
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        assert reply.status == 200
        return bytes(reply.read())


def counted(dialect: Dialect, stream: bytes, size: int) -> PartCounter:
    counter = PartCounter(dialect)
    for start in range(0, len(stream), size):
        counter.feed(stream[start : start + size])
    return counter


@pytest.mark.parametrize("name", list(DIALECTS))
def test_the_client_counts_each_part_of_the_real_bridge_once(
    bridge_server: BridgeServer, name: str
) -> None:
    """Whatever the framing (one event per part, parts merged into one chunk, the text repeated
    at the end) and however the bytes arrive, the count is the parts asked for."""
    dialect = DIALECTS[name]
    for parts in (1, 7, 300):
        stream = raw_stream(bridge_server, dialect, parts)
        for size in (1, 3, 10, 4096, len(stream)):
            counter = counted(dialect, stream, size)
            assert (counter.parts, counter.ended) == (parts, True), (size, stream[:500])
        # Cut before its last event, the stream did not end properly.
        cut = stream[: stream.rindex(dialect.end)]
        assert not counted(dialect, cut, 10).ended


def test_the_model_list_of_every_dialect_answers(bridge_server: BridgeServer) -> None:
    for dialect in DIALECTS.values():
        request = urllib.request.Request(
            f"{bridge_server.root_url}{dialect.models_path}", headers=dict(dialect.models_headers)
        )
        with urllib.request.urlopen(request, timeout=30) as reply:
            assert "sim-bench" in reply.read().decode(), dialect.name


def test_dialects_option_keeps_responses_as_the_reference() -> None:
    assert dialect_names("gemini,chat") == ["responses", "chat", "gemini"]
    assert dialect_names(None) == ["responses", "messages", "chat", "gemini"]
    with pytest.raises(Exception, match="unknown"):
        dialect_names("grpc")


def fixed_results(responses: float, gemini: float) -> Results:
    """Every figure at 100 for the baseline and the chat dialect; the two given ones for the
    single-stream rate and the TTFB p50 of Responses and Gemini."""
    results: Results = {}
    for name in ("baseline", "responses", "chat", "gemini"):
        results[name] = {fig.key: [100.0] for fig in figures(QUICK)}
    for key in ("stream_dps", "ttfb_p50"):
        results["responses"][key] = [responses]
        results["gemini"][key] = [gemini]
    return results


def target_of(text: str, key_label: str) -> str:
    [row] = [line for line in text.splitlines() if line.startswith(f"| {key_label} |")]
    return row.rstrip(" |").rsplit(" | ", 1)[1]


def test_within_ten_percent_of_responses_is_judged_per_direction() -> None:
    dialects = ["responses", "chat", "gemini"]
    stream, ttfb = figures(QUICK)[0].label, figures(QUICK)[1].label
    # A rate 0.9 x Responses and a time 1.1 x Responses are within; beyond either, missed.
    close = table(fixed_results(100.0, 90.0), QUICK, dialects)
    assert target_of(close, stream).endswith("every dialect ≥ 0.9 x responses: met")
    assert "0.90 (gemini)" in close
    slow = table(fixed_results(100.0, 89.0), QUICK, dialects)
    assert target_of(slow, stream).endswith("MISSED (gemini)")
    # For the TTFB, 89 is faster than 100 (fine), 111 slower (missed).
    assert target_of(slow, ttfb).endswith("≤ 1.1 x responses: met")
    late = table(fixed_results(100.0, 111.0), QUICK, dialects)
    assert target_of(late, ttfb).endswith("≤ 1.1 x responses: MISSED (gemini)")


def test_per_delta_targets_are_judged_on_every_dialect_against_the_orjson_writer() -> None:
    dialects = ["responses", "chat", "gemini"]
    stream, cpu = figures(QUICK)[0].label, "server CPU per 1,000 deltas (one stream)"
    results = fixed_results(100.0, 100.0)
    results["baseline-orjson"] = {fig.key: [100.0] for fig in figures(QUICK)}
    results["baseline-orjson"]["stream_dps"] = [200.0]  # half of it is 100: met
    results["baseline-orjson"]["cpu_per_1k"] = [50.0]  # twice it is 100: met
    met = table(results, QUICK, dialects)
    assert "every dialect ≥ 50% of baseline-orjson: met" in target_of(met, stream)
    assert target_of(met, cpu) == "every dialect ≤ 2 x baseline-orjson: met"
    results["chat"]["stream_dps"] = [99.0]
    results["gemini"]["cpu_per_1k"] = [101.0]
    missed = table(results, QUICK, dialects)
    assert "every dialect ≥ 50% of baseline-orjson: MISSED (chat)" in target_of(missed, stream)
    assert target_of(missed, cpu) == "every dialect ≤ 2 x baseline-orjson: MISSED (gemini)"
    assert "| responses / baseline-orjson |" in missed.splitlines()[0]


def test_quick_bench_prints_every_figure_for_every_dialect() -> None:
    # Should it hang, its servers are killed with it.
    done = run([sys.executable, "-m", "bench", "--quick"], cwd=REPO_ROOT, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr  # any failed request fails the run
    assert "error:" not in done.stderr
    servers_part, _, history_part = done.stdout.partition("### History sweep")
    # The sweep's figures are checked by tests/test_bench_history.py; here: it ran, every dialect.
    assert all(f"| {dialect} | items |" in history_part for dialect in DIALECTS), history_part
    rows = [line for line in servers_part.splitlines() if line.startswith("| ")]
    header = [cell.strip() for cell in rows[0].strip("|").split("|")]
    baselines = ["baseline", "baseline-orjson"]  # the json module's raw writer, and orjson's
    ratios = [f"responses / {name}" for name in baselines]
    columns = [*baselines, *DIALECTS, *ratios, "worst dialect / responses"]
    assert header == ["figure", "unit", *columns, "target"]
    labels = [row.split(" | ")[0].removeprefix("| ") for row in rows[1:]]
    assert labels == [figure.label for figure in figures(QUICK)]
    for row in rows[1:]:
        cells = dict(zip(header, (cell.strip() for cell in row.strip("|").split("|")), strict=True))
        assert all(cells[name] for name in columns), row  # measured on every server
        if cells["unit"] == "count":
            assert all(cells[name] == "0" for name in [*baselines, *DIALECTS]), row
