"""`python -m bench.big_bodies`: many big request bodies at once (issue 27).

Starts a bridge (`maestro-bridge serve`), sends `--bodies` bodies of `--mib` MiB each, all at
once, to a route (`/v1/responses/input_tokens` by default), and meanwhile asks `/health` every
50 ms and samples the language server's memory. Then one normal request. Prints how each big
body ended (status counts), the peak RSS of the language server, the longest `/health` wait and
how long the normal request took. Nothing here asserts: the targets (peak RSS under 1.5 GB,
`/health` under 1 s, the normal request answered) are printed beside the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import sys
import threading
import time
import urllib.request

import aiohttp

from bench import servers

MIB = 1024 * 1024
TARGET_RSS_MB = 1536
TARGET_HEALTH_S = 1.0


def big_body(mib: int) -> bytes:
    text = "lorem ipsum " * (mib * MIB // 12)
    return json.dumps({"model": "sim-echo", "input": text}).encode()


async def _one(
    http: aiohttp.ClientSession, url: str, body: bytes, outcomes: collections.Counter[str]
) -> None:
    try:
        async with http.post(url, data=body, headers={"Content-Type": "application/json"}) as reply:
            await reply.read()
            retry = " +Retry-After" if "Retry-After" in reply.headers else ""
            outcomes[f"{reply.status}{retry}"] += 1
    except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
        outcomes[type(exc).__name__] += 1


def _watch(
    server: servers.Server, health: str, stop: threading.Event, figures: dict[str, float]
) -> None:
    """In a thread of its own: the client's event loop, busy sending the bodies, must not
    delay the health checks it measures."""
    lsp = server.pids[-1]
    while not stop.is_set():
        figures["rss_mb"] = max(figures["rss_mb"], servers.rss_bytes(lsp) / MIB)
        started = time.monotonic()
        try:
            with urllib.request.urlopen(health, timeout=60) as reply:
                reply.read()
        except OSError:
            figures["health_failures"] += 1
        figures["health_s"] = max(figures["health_s"], time.monotonic() - started)
        figures["rss_mb"] = max(figures["rss_mb"], servers.rss_bytes(lsp) / MIB)
        stop.wait(0.05)


async def run(server: servers.Server, bodies: int, mib: int, path: str) -> dict[str, object]:
    body = big_body(mib)
    figures: dict[str, float] = {"rss_mb": 0.0, "health_s": 0.0, "health_failures": 0}
    outcomes: collections.Counter[str] = collections.Counter()
    stop = threading.Event()
    watcher = threading.Thread(target=_watch, args=(server, server.url + "/health", stop, figures))
    watcher.start()
    started = time.monotonic()
    timeout = aiohttp.ClientTimeout(total=120)
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(timeout=timeout, connector=connector) as http:
        await asyncio.gather(
            *(_one(http, server.url + path, body, outcomes) for _ in range(bodies))
        )
    wall = time.monotonic() - started
    stop.set()
    watcher.join()
    normal = {"model": "sim-echo", "input": "Say hello."}
    started = time.monotonic()
    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as http,
            http.post(server.url + "/v1/responses", json=normal) as reply,
        ):
            await reply.read()
            next_request = f"{reply.status} in {time.monotonic() - started:.2f} s"
    except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
        next_request = f"no answer ({type(exc).__name__})"
    return {
        "outcomes": dict(outcomes),
        "wall_s": round(wall, 2),
        "peak_rss_mb": round(figures["rss_mb"]),
        "longest_health_s": round(figures["health_s"], 2),
        "health_failures": int(figures["health_failures"]),
        "next_request": next_request,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.big_bodies", description=__doc__)
    parser.add_argument("--bodies", type=int, default=40, help="bodies sent at once (40)")
    parser.add_argument("--mib", type=int, default=30, help="size of each body in MiB (30)")
    parser.add_argument("--path", default="/v1/responses/input_tokens", help="route (input_tokens)")
    parser.add_argument(
        "serve_args", nargs="*", help="more `serve` options (after --), such as limits"
    )
    args = parser.parse_args(argv)
    server = servers.start("bridge", "bridge", extra=tuple(args.serve_args))
    try:
        figures = asyncio.run(run(server, args.bodies, args.mib, args.path))
    finally:
        server.stop()
    print(f"{args.bodies} x {args.mib} MiB to {args.path} {' '.join(args.serve_args)}:")
    for key, value in figures.items():
        print(f"  {key}: {value}")
    print(
        f"  targets: peak RSS < {TARGET_RSS_MB} MB, /health < {TARGET_HEALTH_S:g} s, "
        "the next request answered"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
