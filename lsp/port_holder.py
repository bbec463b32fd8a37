"""Who holds a port the endpoint could not bind: another Maestro Bridge, or some other program.

A Maestro Bridge says so on `GET /health` (`"service": "maestro-bridge"`), which needs no API
key. The probe goes to the port on this machine, without proxies.
"""

from __future__ import annotations

import asyncio
import enum
import ipaddress

import aiohttp
from yarl import URL

from bridge import SERVICE_NAME

PROBE_TIMEOUT = 1.0  # a bridge answers /health at once; a busy machine gets some slack


class Holder(enum.Enum):
    BRIDGE = "bridge"  # another Maestro Bridge serves on the port
    OTHER = "other"  # something answered over HTTP, and it is not a Maestro Bridge
    SILENT = "silent"  # no HTTP answer: not listening, not HTTP, too slow, or closing


def health_url(host: str, port: int) -> URL:
    """`/health` on `host:port`; a wildcard bind address is reached through loopback."""
    name = host.strip().strip("[]")
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        address = None
    if address is not None and address.is_unspecified:
        name = "::1" if address.version == 6 else "127.0.0.1"
    return URL.build(scheme="http", host=name or "127.0.0.1", port=port, path="/health")


async def who_holds(host: str, port: int, timeout: float = PROBE_TIMEOUT) -> Holder:
    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as session,
            session.get(health_url(host, port), allow_redirects=False) as response,
        ):
            if response.status != 200:
                return Holder.OTHER
            try:
                body = await response.json(content_type=None)
            except ValueError:  # not JSON (aiohttp's ContentTypeError is a ValueError too)
                return Holder.OTHER
    except (aiohttp.ClientError, asyncio.TimeoutError, OSError):
        return Holder.SILENT
    is_bridge = isinstance(body, dict) and body.get("service") == SERVICE_NAME
    return Holder.BRIDGE if is_bridge else Holder.OTHER
