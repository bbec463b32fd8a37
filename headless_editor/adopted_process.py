"""A language server spawned by `subprocess.Popen` before asyncio was imported, adopted by the
event loop: its pipes become asyncio streams, and a thread of its own waits for it to exit.

It offers what the headless editor uses of `asyncio.subprocess.Process` (`ServerProcess`);
bridge/serve_run.py adopts the server `maestro-bridge serve` spawned first thing
(headless_editor/spawn.py). POSIX only: asyncio's Windows loop cannot read such pipes.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import threading
from typing import Protocol

# The limit asyncio.subprocess gives its pipes' readers (a line or `readuntil` at most).
_READ_LIMIT = 2**16


class ServerProcess(Protocol):
    """What the headless editor uses of its language server's process."""

    @property
    def stdin(self) -> asyncio.StreamWriter | None: ...

    @property
    def stdout(self) -> asyncio.StreamReader | None: ...

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    async def wait(self) -> int: ...

    def kill(self) -> None: ...


class AdoptedProcess:
    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        stdin: asyncio.StreamWriter,
        stdout: asyncio.StreamReader,
        exited: asyncio.Future[int],
    ) -> None:
        self._popen = popen
        self.stdin = stdin
        self.stdout = stdout
        self._exited = exited
        self.pid = popen.pid

    @property
    def returncode(self) -> int | None:
        # Set by the waiting thread's `Popen.wait` once the process has exited.
        return self._popen.returncode

    async def wait(self) -> int:
        """Until the process exits; its exit code. Cancelling a caller leaves the others."""
        return await asyncio.shield(self._exited)

    def kill(self) -> None:
        self._popen.kill()  # a no-op once the process is known to have exited


async def adopt(popen: subprocess.Popen[bytes]) -> AdoptedProcess:
    """`popen` (spawned with stdin and stdout pipes) with asyncio streams on its pipes."""
    assert popen.stdin is not None and popen.stdout is not None
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_READ_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), popen.stdout)
    # A protocol with flow control (pause and resume writing) for the writer, as asyncio's own
    # subprocess streams have; it reads nothing.
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), popen.stdin
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    exited: asyncio.Future[int] = loop.create_future()

    def settle(code: int) -> None:
        if not exited.done():
            exited.set_result(code)

    def wait_for_exit() -> None:
        code = popen.wait()
        # The loop may be closed by then (the bridge stopping): nobody waits any more.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, code)

    # A daemon thread: a process that outlives the loop must not hold this one open.
    threading.Thread(target=wait_for_exit, name="language-server-exit", daemon=True).start()
    return AdoptedProcess(popen, writer, reader, exited)
