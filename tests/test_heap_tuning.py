"""bridge/heap_tuning.py: glibc keeps the memory of large buffers between requests, so a long
conversation's request does not fault its pages in again every time. Counted in page faults
(the kernel's count, not a time): real processes, the allocator they really have."""

from __future__ import annotations

import http.client
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest import REPO_ROOT, running_bridge_server
from processes import HAS_PROC, run

from bench import conversation
from bench.dialect_bodies import encoded

# Three 1 MiB buffers made (every page written) and freed, 20 times, after a few rounds that
# let glibc settle: the page faults of those 20 rounds.
_ROUNDS = """
import resource, sys
from bridge.heap_tuning import keep_large_buffers
tuned = keep_large_buffers() if sys.argv[1] == "tuned" else False
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(3):
    buffers = [b"x" * (1 << 20) for _ in range(3)]
    del buffers
before = faults()
for _ in range(20):
    buffers = [b"x" * (1 << 20) for _ in range(3)]
    del buffers
print(tuned, faults() - before)
"""

on_glibc = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="glibc's allocator: Linux only"
)


def _rounds(mode: str) -> tuple[bool, int]:
    result = run([sys.executable, "-c", _ROUNDS, mode], timeout=60, cwd=REPO_ROOT)
    assert result.returncode == 0, result.stderr
    tuned, faults = result.stdout.split()
    return tuned == "True", int(faults)


@on_glibc
def test_freed_large_buffers_are_reused_without_page_faults() -> None:
    plain_tuned, plain = _rounds("plain")
    tuned, faults = _rounds("tuned")
    assert (plain_tuned, tuned) == (False, True)
    # Untuned, glibc gives most of that memory back and faults it in again (~9,600 here).
    assert plain >= 20 * 256
    assert faults <= plain // 20


def test_other_platforms_are_left_alone() -> None:
    """macOS and Windows have other allocators: nothing is tuned, not even ctypes imported."""
    code = (
        "import sys\n"
        "from bridge.heap_tuning import keep_large_buffers\n"
        "print(keep_large_buffers('darwin'), keep_large_buffers('win32'), 'ctypes' in sys.modules)"
    )
    result = run([sys.executable, "-c", code], timeout=60, cwd=REPO_ROOT)
    assert result.stdout.split() == ["False", "False", "False"], result.stderr


def _maps(pid: int) -> str:
    return Path(f"/proc/{pid}/maps").read_text()


def _faults(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[7])


@on_glibc
@pytest.mark.skipif(not HAS_PROC, reason="reads /proc")
def test_the_language_server_answers_large_requests_without_page_faults() -> None:
    """A real `serve`: once the language server has warmed up (and tuned its allocator), a
    0.5 MB request costs it a handful of page faults, not the ~270 of glibc's defaults."""
    body = encoded("chat", conversation.bulky(500_000))
    with running_bridge_server() as server:
        (lsp,) = server.lsp_pids
        deadline = time.monotonic() + 30
        while "_ctypes" not in _maps(lsp):  # imported by the tuning, at the warm-up's end
            assert time.monotonic() < deadline, "the language server never tuned its allocator"
            time.sleep(0.1)
        url = urlsplit(server.base_url)
        connection = http.client.HTTPConnection(url.hostname or "", url.port, timeout=30)
        try:

            def ask() -> None:
                connection.request("POST", "/v1/chat/completions", body=body)
                reply = connection.getresponse()
                assert reply.status == 200, reply.read()[:300]
                reply.read()

            for _ in range(3):
                ask()
            time.sleep(0.2)  # the usage ledger's write, after the answer
            before = _faults(lsp)
            for _ in range(5):
                ask()
            time.sleep(0.2)
            per_request = (_faults(lsp) - before) / 5
        finally:
            connection.close()
    assert per_request < 40, per_request
