"""`maestro-bridge serve` and `lsp` run without Python's `ssl` module.

Neither process makes or accepts a TLS connection: the endpoint serves plain HTTP (on
loopback unless --allow-remote), the language server talks to its editor over stdio, and its
only client request is the `/health` probe of whoever holds its port (lsp/port_holder.py),
over http:// on this machine. asyncio and aiohttp import `ssl` all the same, in case, and it
costs each process ~4.7 MiB of idle memory (OpenSSL's libssl and the module;
docs/benchmarks.md, "RSS idle"). Both take a failed `import ssl` as "no TLS support".

`sys.modules["ssl"] = None` is Python's documented way to make an import fail
(ModuleNotFoundError). Code that one day needs TLS in these processes (an https:// client
call, a TLS listener) must drop the call to `without_tls` in bridge/cli.py first;
tests/test_start_imports.py checks that both processes start and answer without it.
"""

from __future__ import annotations

import sys


def without_tls() -> None:
    """Make `import ssl` fail in this process from now on; to be called before asyncio is
    imported. A `ssl` already imported (by a sitecustomize or a .pth file) is left alone."""
    sys.modules.setdefault("ssl", None)  # type: ignore[arg-type]
