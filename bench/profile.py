"""`--profile DIR`: py-spy flame graphs of every server process during one measurement.

py-spy samples the running processes from outside (no code change, little overhead), which is
how the hot spots listed in docs/benchmarks.md were found. It comes with the `test` extra.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

from bench.servers import Server


def py_spy() -> str:
    beside = Path(sys.executable).with_name("py-spy")
    found = str(beside) if beside.exists() else shutil.which("py-spy")
    if not found:
        raise SystemExit("--profile needs py-spy: pip install py-spy (it is in the test extra)")
    return found


class Profiled:
    """`with Profiled(server, folder, step):` records `<server>-<role>-<step>.svg` files."""

    def __init__(self, server: Server, folder: Path | None, step: str) -> None:
        self.server, self.folder, self.step = server, folder, step
        self.recorders: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> Profiled:
        if self.folder is None:
            return self
        self.folder.mkdir(parents=True, exist_ok=True)
        roles = ["editor", "lsp"] if len(self.server.pids) > 1 else ["server"]
        for role, pid in zip(roles, self.server.pids, strict=True):
            svg = self.folder / f"{self.server.name}-{role}-{self.step}.svg"
            self.recorders.append(
                subprocess.Popen(
                    [
                        py_spy(),
                        "record",
                        "--pid",
                        str(pid),
                        "--rate",
                        "500",
                        "--nonblocking",
                        "--output",
                        str(svg),
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        time.sleep(0.5)  # py-spy attaches before the measurement starts
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        for recorder in self.recorders:
            recorder.send_signal(signal.SIGINT)  # py-spy writes its file when interrupted
        for recorder in self.recorders:
            try:
                recorder.wait(timeout=30)
            except subprocess.TimeoutExpired:
                recorder.kill()
                recorder.wait()
