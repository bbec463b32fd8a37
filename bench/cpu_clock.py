"""Another process's CPU time to the microsecond, and waiting until processes are idle.

`/proc/PID/stat` (servers.cpu_seconds) counts in clock ticks of 10 ms: too coarse for one
request that costs a few milliseconds. The process's CPU-time clock (`clock_getcpuclockid`,
readable for any process on Linux) counts every thread's time, exited threads included, in
nanoseconds. Where it cannot be had, /proc's ticks are used.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import sys
import time
from pathlib import Path

from bench import servers

# Windows has no C library by that name (nor CPU-time clocks): /proc's way, which reads 0.
_libc = (
    None
    if sys.platform == "win32"
    else ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
)


def _clock_id(pid: int) -> int | None:
    if _libc is None:
        return None
    clock = ctypes.c_int()
    try:
        failed = _libc.clock_getcpuclockid(pid, ctypes.byref(clock))
    except AttributeError:
        return None
    return None if failed else clock.value


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` (0.0 once it is gone)."""
    if sys.platform != "win32":
        clock = _clock_id(pid)
        if clock is not None:
            try:
                return time.clock_gettime(clock)
            except OSError:
                pass
    return servers.cpu_seconds(pid)


def runnable(pid: int) -> bool:
    """True when a thread of `pid` is running or waiting for a core (state R): on a busy
    machine a process with work left may not move its CPU clock for a while."""
    for stat in Path(f"/proc/{pid}/task").glob("*/stat"):
        try:
            if stat.read_text().rpartition(")")[2].split()[0] == "R":
                return True
        except (OSError, IndexError):
            continue
    return False


async def idle_cpu(pids: list[int], quiet: float = 0.01, most: float = 1.0) -> list[float]:
    """Each process's CPU time once none of them used more than 50 us in `quiet` seconds
    nor is runnable (or after `most` seconds): a request's cost is counted once all spent."""
    deadline = time.monotonic() + most
    before = [cpu_seconds(pid) for pid in pids]
    while True:
        await asyncio.sleep(quiet)
        now = [cpu_seconds(pid) for pid in pids]
        still = all(b - a < 50e-6 for a, b in zip(before, now, strict=True))
        if still and not any(runnable(pid) for pid in pids):
            return now
        if time.monotonic() > deadline:
            return now
        before = now
