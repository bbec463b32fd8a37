"""The language server's stdio: the editor's pipes, read and written without blocking the loop.

Two ways to get there, each side (stdin, stdout) chosen on its own:
- "pipes": asyncio's pipe transports (`connect_read_pipe` / `connect_write_pipe`), the fast
  path on Linux and macOS: no thread, no copy between threads.
- "threads": one thread blocks reading stdin, another writing stdout, and hand the bytes over
  to the loop. Windows needs it: its proactor loop takes only handles opened for overlapped
  I/O, and the pipes an editor gives its child need not be. Anywhere, it also takes what
  asyncio refuses (stdin or stdout redirected to a regular file).

`MAESTRO_STDIO_TRANSPORT=pipes|threads` forces one; the tests use it to run Windows' path on
Linux. Unset (or `auto`): threads on Windows, pipes elsewhere, threads for a side asyncio
cannot take.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import BinaryIO, Protocol

from lsp import rpc
from lsp.rpc import ByteReader

log = logging.getLogger(__name__)

TRANSPORT_ENV = "MAESTRO_STDIO_TRANSPORT"
PIPES = "pipes"
THREADS = "threads"
READ_SIZE = 1 << 16  # what rpc.read_messages asks for at once
READ_AHEAD_CHUNKS = 16  # chunks the reader thread may hold before the loop takes them: 1 MiB
READER_LIMIT = 1 << 20  # asyncio StreamReader's buffer
PROBE_SECONDS = 0.2  # how often an idle threaded writer checks that the editor still reads


class ByteWriter(Protocol):
    """pygls's writer interface: `write` never blocks the loop."""

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


def chosen_transport(
    environ: Mapping[str, str] = os.environ, platform: str = sys.platform
) -> tuple[str, str]:
    """(transport, why) from the switch, else from the platform."""
    forced = environ.get(TRANSPORT_ENV, "").strip().lower()
    if forced in (PIPES, THREADS):
        return forced, f"{TRANSPORT_ENV}={forced}"
    if forced not in ("", "auto"):
        log.warning("Ignoring %s=%r: expected pipes, threads or auto", TRANSPORT_ENV, forced)
    if platform == "win32":
        return THREADS, "Windows"
    return PIPES, platform


@dataclass
class Stdio:
    reader: ByteReader
    writer: ByteWriter
    kinds: tuple[str, str]  # (stdin's, stdout's)
    _flush: Callable[[float], None] | None = None

    async def flush(self, timeout: float = 1.0) -> None:
        """Whatever was written reaches the pipe (or the timeout passes): the threaded writer
        may still hold the last replies when the server is about to exit."""
        if self._flush is not None:
            await asyncio.to_thread(self._flush, timeout)


async def open_stdio(
    on_lost: Callable[[], None],
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    transport: str | None = None,
) -> Stdio:
    """The editor's pipes (stdin, stdout unless given); `on_lost` runs once the editor stops
    reading what we write."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    why = "asked"
    if transport is None:
        transport, why = chosen_transport()
    reader: ByteReader | None = None
    writer: ByteWriter | None = None
    if transport == PIPES:
        reader = await _pipe_reader(stdin)
        writer = await _pipe_writer(stdout, on_lost)
    kinds = (PIPES if reader else THREADS, PIPES if writer else THREADS)
    flush = None
    if reader is None:
        _binary_mode(stdin.fileno())
        reader = ThreadedReader(stdin.fileno())
    if writer is None:
        _binary_mode(stdout.fileno())
        threaded = ThreadedWriter(stdout.fileno(), on_lost)
        writer, flush = threaded, threaded.flush
    if THREADS in kinds:
        # Said once at start-up: which path a Windows user's server took matters in a report.
        log.info("Editor pipes through threads (stdin: %s, stdout: %s; %s)", *kinds, why)
    return Stdio(reader, writer, kinds, flush)


async def _pipe_reader(stdin: BinaryIO) -> ByteReader | None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=READER_LIMIT)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
    except (ValueError, OSError, NotImplementedError) as exc:  # a regular file, a console...
        log.debug("stdin: no asyncio pipe (%s)", exc)
        return None
    return reader


class _EditorPipe(asyncio.Protocol):
    """Our stdout: when the editor stops reading it (it crashed or closed the pipe), every
    open stream fails at once and new requests get 503, instead of waiting for timeouts."""

    def __init__(self, on_lost: Callable[[], None]) -> None:
        self._on_lost = on_lost

    def connection_lost(self, exc: Exception | None) -> None:
        self._on_lost()


async def _pipe_writer(stdout: BinaryIO, on_lost: Callable[[], None]) -> ByteWriter | None:
    loop = asyncio.get_running_loop()
    try:
        transport, _ = await loop.connect_write_pipe(lambda: _EditorPipe(on_lost), stdout)
    except (ValueError, OSError, NotImplementedError) as exc:
        log.debug("stdout: no asyncio pipe (%s)", exc)
        return None
    return rpc.PipeWriter(transport)


def _binary_mode(fd: int) -> None:
    """Windows' C runtime may translate line endings on a descriptor in text mode; the
    protocol counts bytes. (Python sets its standard streams binary; this makes sure.)"""
    if sys.platform == "win32":
        import msvcrt

        with contextlib.suppress(OSError):
            msvcrt.setmode(fd, os.O_BINARY)


PIPE_BYTES = 1 << 20


def widen_pipe(fd: int) -> None:
    """A long conversation is half a megabyte per chat request: through Linux's default 64 KiB
    pipe, that is one write and one event-loop turn per 64 KiB on each side. 1 MiB is what an
    unprivileged process may ask (fs.pipe-max-size); elsewhere, or not a pipe: left as it is."""
    if sys.platform == "win32":  # no fcntl; Windows sizes its pipes when they are made
        return
    import fcntl

    set_size = getattr(fcntl, "F_SETPIPE_SZ", None)  # Linux only
    if set_size is not None:
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, set_size, PIPE_BYTES)


class ThreadedReader:
    """`read()` for the loop, fed by a thread that blocks on the descriptor. The thread reads
    ahead at most READ_AHEAD_CHUNKS chunks: an editor that writes faster than the server
    handles waits on the pipe, as it would with asyncio's reader."""

    def __init__(self, fd: int) -> None:
        self._loop = asyncio.get_running_loop()
        self._fd = fd
        self._chunks: collections.deque[bytes] = collections.deque()
        self._credit = threading.Semaphore(READ_AHEAD_CHUNKS)
        self._arrived: asyncio.Future[None] | None = None
        self._rest = b""
        self._eof = False
        self._thread = threading.Thread(target=self._pump, name="stdin-reader", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        while True:
            while not self._credit.acquire(timeout=1.0):
                if self._loop.is_closed():
                    return
            try:
                chunk = os.read(self._fd, READ_SIZE)
            except OSError:  # a broken pipe is an end like any other
                chunk = b""
            try:
                self._loop.call_soon_threadsafe(self._deliver, chunk)
            except RuntimeError:  # the loop is closed: nobody reads any more
                return
            if not chunk:
                return

    def _deliver(self, chunk: bytes) -> None:
        self._chunks.append(chunk)
        if self._arrived is not None and not self._arrived.done():
            self._arrived.set_result(None)

    async def read(self, n: int = -1) -> bytes:
        if self._rest:
            chunk, self._rest = self._rest, b""
        else:
            if self._eof:
                return b""
            while not self._chunks:
                self._arrived = self._loop.create_future()
                await self._arrived
            chunk = self._chunks.popleft()
            self._credit.release()
            if not chunk:
                self._eof = True
                return b""
        if 0 < n < len(chunk):
            chunk, self._rest = chunk[:n], chunk[n:]
        return chunk


class ThreadedWriter:
    """pygls's writer over a thread that blocks on the descriptor. `write` only queues; the
    thread writes everything queued at once (one system call for a burst of small messages).
    Like asyncio's write transport, what the editor has not read yet stays in memory."""

    def __init__(self, fd: int, on_lost: Callable[[], None]) -> None:
        self._loop = asyncio.get_running_loop()
        self._fd = fd
        self._on_lost = on_lost
        self._pending: collections.deque[bytes] = collections.deque()
        self._ready = threading.Condition()
        self._closing = False
        self._lost = False
        self._thread = threading.Thread(target=self._pump, name="stdout-writer", daemon=True)
        self._thread.start()

    def write(self, data: bytes) -> None:
        with self._ready:
            if self._closing or self._lost:
                return
            self._pending.append(data)
            self._ready.notify()

    def close(self) -> None:
        with self._ready:
            self._closing = True
            self._ready.notify()

    def flush(self, timeout: float) -> None:
        """Close, and wait up to `timeout` for the queue to reach the pipe (blocking)."""
        self.close()
        self._thread.join(timeout)

    def _pump(self) -> None:
        while True:
            with self._ready:
                while not self._pending and not self._closing:
                    # asyncio's pipe sees the editor close its end at once; a thread blocked
                    # on nothing to write would not, so it looks now and then.
                    if not self._ready.wait(PROBE_SECONDS) and reader_gone(self._fd):
                        self._gone()
                        return
                if not self._pending:
                    return
                batch = b"".join(self._pending)
                self._pending.clear()
            try:
                _write_all(self._fd, batch)
            except OSError:
                self._gone()
                return

    def _gone(self) -> None:
        with self._ready:
            self._lost = True
            self._pending.clear()
        with contextlib.suppress(RuntimeError):  # the loop is closed already
            self._loop.call_soon_threadsafe(self._on_lost)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def reader_gone(fd: int) -> bool:
    """Whether the read end of the pipe `fd` writes to is closed, without writing. Windows has
    no such look at an anonymous pipe: there the next write finds out, and the editor's end of
    stdin closes with it when it exits."""
    if sys.platform == "win32":
        return False
    import select

    if not hasattr(select, "poll"):  # some macOS builds of old
        return False
    poller = select.poll()
    poller.register(fd, 0)  # errors and hang-ups are always reported
    try:
        events = poller.poll(0)
    except OSError:
        return False
    return any(event & (select.POLLERR | select.POLLHUP) for _, event in events)
