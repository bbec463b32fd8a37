"""Which addresses the endpoint may listen on (checked before anything is bound).

Kept free of aiohttp and of the settings (pydantic): `maestro-bridge serve` checks the bind
from its flags in the headless editor's process, which must not pay for importing what only the
language server runs (start-up time, idle memory).
"""

from __future__ import annotations

import ipaddress


class BindRefused(ValueError):
    """The settings ask for a bind address that the security defaults do not allow."""


def is_loopback_host(host: str) -> bool:
    """True for an address that only this machine can reach (`localhost`, 127.0.0.0/8, ::1)."""
    name = host.strip().strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False  # another host name: it may resolve to anything
    # Python 3.13 counts IPv4-mapped ::ffff:127.0.0.1 as loopback, 3.10-3.12 do not: refused on
    # every version (no local client names the bridge so, and a Host check must not depend on it).
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return False
    return address.is_loopback


def check_bind(host: str, *, allow_remote: bool, api_key: str | None) -> None:
    """Refuse a non-loopback bind unless remote access was asked for and a key is set (the
    settings host, allowRemote and apiKey)."""
    if is_loopback_host(host):
        return
    if not allow_remote:
        raise BindRefused(
            f"Refusing to listen on {host!r}: other machines could use your models. "
            "Bind a loopback address, or ask for remote access explicitly (--allow-remote, "
            "initialization option allowRemote) and set an API key."
        )
    if not api_key:
        raise BindRefused(
            f"Refusing to listen on {host!r} without an API key: set one "
            "(--api-key or MAESTRO_BRIDGE_API_KEY, initialization option apiKey)."
        )
