"""A plain HTTP forward proxy in front of the FAKE cloud, for the production sign-in route of
the tests (tests/copilot_host.py, `signin="github-enterprise"`): VS Code's `http.proxy` points
at it, and every host behind it is the fake.

VS Code's proxy support sends a request to an `http://` URL in one of two ways, both handled:
in absolute form (`GET http://api.ghe.test:PORT/copilot_internal/v2/token HTTP/1.1`, Node's
http module: passed to the fake as it is, which routes it by path whatever the host), or
through a tunnel (`CONNECT api.ghe.test:PORT`, undici's fetch, even to an `http://` URL: the
tunnel leads to the fake). A tunnel is granted only to the hosts of `allowed` (the GitHub
Enterprise host and its `api.` host, the fake's own address) and refused with 403 to any other
(`api.githubcopilot.com`, `www.githubstatus.com`, VS Code's CDN...), so that nothing reaches
the network. `tunnels` lists each CONNECT target asked for, and whether it was granted.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator

STARTUP_TIMEOUT = 10.0
REFUSED = b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
UNREACHABLE = b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


class ForwardProxy:
    """`with ForwardProxy(target_port, allowed) as proxy:` serves at `proxy.url`."""

    def __init__(self, target_port: int, allowed: set[str]) -> None:
        self.target_port = target_port
        self.allowed = {host.lower() for host in allowed}
        self.tunnels: list[tuple[str, bool]] = []  # (host:port, granted)
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self.url = ""

    def __enter__(self) -> ForwardProxy:
        ready = threading.Event()
        failure: list[BaseException] = []

        def serve() -> None:
            loop = self._loop = asyncio.new_event_loop()
            try:
                server = loop.run_until_complete(
                    asyncio.start_server(self._connection, "127.0.0.1", 0)
                )
            except BaseException as exc:  # reported to the caller below
                failure.append(exc)
                ready.set()
                return
            port = server.sockets[0].getsockname()[1]
            self.url = f"http://127.0.0.1:{port}"
            ready.set()
            loop.run_forever()
            server.close()
            # Connections still piped (keep-alive tunnels) end with the proxy, not after it.
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(server.wait_closed())
            loop.close()

        self._thread = threading.Thread(target=serve, name="fake-capi-proxy", daemon=True)
        self._thread.start()
        if not ready.wait(STARTUP_TIMEOUT) or failure:
            raise RuntimeError(f"the forward proxy did not start: {failure}")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(STARTUP_TIMEOUT)

    def tunnelled(self) -> list[tuple[str, bool]]:
        with self._lock:
            return list(self.tunnels)

    async def _connection(self, client: asyncio.StreamReader, out: asyncio.StreamWriter) -> None:
        try:
            head = await client.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            out.close()
            return
        method, _, rest = head.partition(b" ")
        if method == b"CONNECT":
            target = rest.split(b" ", 1)[0].decode("latin-1")
            granted = target.rsplit(":", 1)[0].lower() in self.allowed
            with self._lock:
                self.tunnels.append((target, granted))
            if not granted:
                out.write(REFUSED)
                await _close(out)
                return
            out.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            head = b""  # what follows is the tunnelled connection's own
        try:
            upstream, into = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            out.write(UNREACHABLE)
            await _close(out)
            return
        into.write(head)
        await asyncio.gather(_pipe(client, into), _pipe(upstream, out))
        await _close(into)
        await _close(out)


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    """Copies `source` to `sink` until `source` ends, then says so to `sink` (half-close)."""
    with contextlib.suppress(ConnectionError, OSError):
        while data := await source.read(65536):
            sink.write(data)
            await sink.drain()
        if sink.can_write_eof():
            sink.write_eof()


async def _close(writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError, OSError):
        writer.close()
        await writer.wait_closed()


@contextlib.contextmanager
def forward_proxy(target_url: str, allowed: set[str]) -> Iterator[ForwardProxy]:
    """A ForwardProxy to the server at `target_url` (`http://127.0.0.1:PORT`), tunnelling to
    the hosts of `allowed` only."""
    with ForwardProxy(int(target_url.rsplit(":", 1)[1]), allowed) as proxy:
        yield proxy
