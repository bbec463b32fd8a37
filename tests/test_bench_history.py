"""The history sweep keeps working: its conversations, and `python -m bench.history --quick`.

Nothing here checks speed; only that the conversations are what the sweep says they are,
that `sim-bench` reads the part count from the last user text in every dialect's converted
form, and that every figure is measured and printed for every dialect with no failed request.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest
from conftest import BridgeServer
from processes import run

from bench import conversation, cpu_clock, servers
from bench.dialect_bodies import encoded
from bench.dialect_streams import PART_TEXT, stream
from bench.dialects import DIALECTS
from bench.history import QUICK

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("count", [1, 2, 3, 4, 5, 6, 200])
def test_history_has_the_items_asked_for_and_ends_with_the_count(count: int) -> None:
    items = conversation.history(count)
    assert len(items) == count
    assert (items[-1].kind, items[-1].text) == ("user", conversation.LAST_TEXT)
    for index, item in enumerate(items):
        assert not re.search(r"\d", item.text) or index == count - 1, item
        if item.kind == "call":  # every call has its result right after it
            assert items[index + 1].kind == "result" and items[index + 1].call == item.call


def test_small_items_are_about_125_bytes_as_codex_sends_them() -> None:
    short = len(encoded("responses", conversation.history(1)))
    long = len(encoded("responses", conversation.history(4_000)))
    assert 120 <= (long - short) / 3_999 <= 130


@pytest.mark.parametrize("size", [50_000, 500_000, 1_000_000])
def test_bulky_bodies_are_near_their_size_in_every_dialect(size: int) -> None:
    items = conversation.bulky(size)
    assert len(items) < 20
    for dialect in DIALECTS:
        assert abs(len(encoded(dialect, items)) - size) <= 0.02 * size, dialect


def test_bulky_text_stays_under_the_token_window() -> None:
    # The simulated tokenizer: a word piece of up to 4 characters with the whitespace before.
    text = "\n".join(item.text for item in conversation.bulky(1_000_000))
    assert len(re.findall(r"\s*(?:\w{1,4}|[^\w\s])", text)) < 128_000 * 0.9


def test_bodies_are_the_dialects_shapes() -> None:
    items = conversation.history(9)  # user, assistant, call, result, user, ..., "1"
    responses = json.loads(encoded("responses", items))
    assert [i["type"] for i in responses["input"][:4]] == [
        "message",
        "message",
        "function_call",
        "function_call_output",
    ]
    anthropic = json.loads(encoded("messages", items))
    assert [b["type"] for b in anthropic["messages"][1]["content"]] == ["text", "tool_use"]
    assert [b["type"] for b in anthropic["messages"][2]["content"]] == ["tool_result", "text"]
    chat = json.loads(encoded("chat", items))
    assert [m["role"] for m in chat["messages"][:5]] == [
        "system",
        "user",
        "assistant",
        "tool",
        "user",
    ]
    assert chat["messages"][2]["tool_calls"][0]["id"] == chat["messages"][3]["tool_call_id"]
    gemini = json.loads(encoded("gemini", items))
    assert [list(p) for p in gemini["contents"][1]["parts"]] == [["text"], ["functionCall"]]
    assert [list(p) for p in gemini["contents"][2]["parts"]] == [["functionResponse"], ["text"]]


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_sim_bench_reads_the_count_from_the_last_user_text(
    bridge_server: BridgeServer, dialect: str
) -> None:
    # "3", not "1": sim-bench streams one part when it finds no number at all.
    async with aiohttp.ClientSession() as session:
        for items in (conversation.history(7, last="3"), conversation.bulky(5_000, last="3")):
            outcome = await stream(
                session, bridge_server.root_url, dialect, encoded(dialect, items)
            )
            assert outcome.status == 200, outcome.error
            assert outcome.complete and outcome.text == PART_TEXT * 3, outcome
            assert outcome.first_delta > 0


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def test_quick_history_prints_every_figure_for_every_dialect() -> None:
    # Should it hang, its server is killed with it.
    done = run([sys.executable, "-m", "bench.history", "--quick"], cwd=REPO_ROOT, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr  # every request 200 and complete
    assert "error:" not in done.stderr, done.stderr
    rows = [_cells(line) for line in done.stdout.splitlines() if line.startswith("| ")]
    sweep_rows = [r for r in rows if len(r) == 9 and r[0] in DIALECTS]
    verdicts = [r for r in rows if len(r) == 5 and r[0] in DIALECTS]
    points = len(QUICK.item_counts) + len(QUICK.byte_sizes)
    for dialect in DIALECTS:
        mine = [r for r in sweep_rows if r[0] == dialect]
        assert [r[1] for r in mine] == ["items"] * len(QUICK.item_counts) + ["bytes"] * len(
            QUICK.byte_sizes
        ), mine
        assert [int(r[2].replace(",", "")) for r in mine[: len(QUICK.item_counts)]] == list(
            QUICK.item_counts
        )
        for row in mine:
            # first delta, bridge CPU and editor CPU are measured: numbers above zero
            assert all(float(cell.replace(",", "")) > 0 for cell in row[4:7]), row
        # per item and per KB: for every row but the one-item request they are measured from
        assert all(cell not in ("", "-") for row in mine[1:] for cell in row[7:9]), mine
        [verdict] = [r for r in verdicts if r[0] == dialect]
        assert re.fullmatch(r"[\d.,]+ ms: (met|MISSED)", verdict[1]), verdict
        assert re.fullmatch(r"[\d.,]+ ms: (met|MISSED)", verdict[2]), verdict
        assert all(cell for cell in verdict[3:]), verdict
    assert len(sweep_rows) == points * len(DIALECTS)


def test_quick_history_asks_the_model_named() -> None:
    """`--model sim-echo`: the embedded default's model (Copilot's rules, the prompt cache),
    whose answer is its own text, not sim-bench's parts: every request still answered whole."""
    command = [sys.executable, "-m", "bench.history", "--quick", "--dialects", "messages"]
    done = run([*command, "--model", "sim-echo"], cwd=REPO_ROOT, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "--model sim-echo" in done.stdout
    rows = [_cells(line) for line in done.stdout.splitlines() if line.startswith("| messages")]
    assert len([r for r in rows if len(r) == 9]) == len(QUICK.item_counts) + len(QUICK.byte_sizes)


async def test_cpu_clock_reads_another_process_as_proc_does() -> None:
    # A child that burns ~0.2 s of CPU, says so, then sleeps.
    burn = "import time\nend = time.process_time() + 0.2\nwhile time.process_time() < end: pass\n"
    code = burn + "print('burnt', flush=True)\ntime.sleep(30)"
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        assert (await asyncio.to_thread(child.stdout.readline)).strip() == "burnt"
        [spent] = await cpu_clock.idle_cpu([child.pid], most=20)
        assert 0.2 <= spent < 2.0
        assert abs(spent - servers.cpu_seconds(child.pid)) < 0.03  # /proc agrees, in ticks
        assert not cpu_clock.runnable(child.pid)  # asleep
    finally:
        child.kill()
        child.wait()
    assert cpu_clock.cpu_seconds(child.pid) == 0.0  # gone
