"""The processes tests start: what /proc says about them, ending a whole tree, finding leaks.

Every process a test session starts carries `MAESTRO_TEST_SESSION=<the session's id>` in its
environment: conftest puts it into `os.environ` before any test runs, and children inherit it
(their children too). /proc/PID/environ keeps it even after a parent died and its children
were handed to init, so the session-end check finds what this session left behind by it, and
never touches a bridge that runs outside the tests (a developer's own, another session's).

Linux reads /proc; macOS asks `ps` for the process table and command lines (no environments:
there the leak check knows only what is still under this process); Windows asks PowerShell
for them and ends trees with `taskkill /T /F`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

SESSION_ENV = "MAESTRO_TEST_SESSION"


HAS_PROC = Path("/proc/self/task").is_dir()  # Linux


def child_pids(pid: int) -> list[int]:
    """The direct children of `pid`, from /proc (every thread's `children` file), else from
    the process table."""
    if not HAS_PROC:
        return [child for child, parent in process_table() if parent == pid]
    children: list[int] = []
    for path in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            children.extend(int(token) for token in path.read_text().split())
        except (OSError, ValueError):
            continue
    return children


_WINDOWS_TABLE = (
    'Get-CimInstance Win32_Process | ForEach-Object { "$($_.ProcessId) $($_.ParentProcessId)" }'
)


def process_table(platform: str = sys.platform) -> list[tuple[int, int]]:
    """(pid, parent pid) of every process, from `ps` (macOS, BSD, Linux) or PowerShell."""
    if platform == "win32":
        command = ["powershell", "-NoProfile", "-Command", _WINDOWS_TABLE]
    else:
        command = ["ps", "-A", "-o", "pid=,ppid="]
    try:
        listing = subprocess.run(command, capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    table: list[tuple[int, int]] = []
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0].isdigit() and fields[1].isdigit():
            table.append((int(fields[0]), int(fields[1])))
    return table


def descendants(pid: int) -> list[int]:
    """Children, their children, and so on (those still attached to the tree)."""
    found: list[int] = []
    stack = [pid]
    while stack:
        for child in child_pids(stack.pop()):
            found.append(child)
            stack.append(child)
    return found


def cmdline(pid: int) -> list[str]:
    if not HAS_PROC:
        return _listed_cmdline(pid)
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [arg.decode(errors="replace") for arg in raw.split(b"\0") if arg]


def _listed_cmdline(pid: int, platform: str = sys.platform) -> list[str]:
    """The command line as `ps` or PowerShell shows it: split at spaces (enough to tell a
    bridge's `lsp` from anything else)."""
    if platform == "win32":
        query = f"(Get-CimInstance Win32_Process -Filter 'ProcessId={pid}').CommandLine"
        command = ["powershell", "-NoProfile", "-Command", query]
    else:
        command = ["ps", "-o", "command=", "-p", str(pid)]
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=30).stdout.split()
    except (OSError, subprocess.TimeoutExpired):
        return []


def environ(pid: int) -> dict[str, str]:
    """The environment `pid` was started with ({} when it is gone or not ours to read)."""
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return {}
    pairs = (entry.decode(errors="replace").partition("=") for entry in raw.split(b"\0"))
    return {name: value for name, _, value in pairs if name}


def is_running(pid: int) -> bool:
    """True while `pid` exists and is not a zombie (an exited process nobody reaped yet)."""
    if not HAS_PROC:
        return any(listed == pid for listed, _ in process_table()) and not _is_zombie(pid)
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    state = stat.rpartition(")")[2].split()[0]
    return state not in ("Z", "X")


def is_lsp_command(argv: list[str]) -> bool:
    """`... -m bridge.cli lsp` (or the headless editor's `-c` runner) or `maestro-bridge lsp`."""
    return bool(argv) and argv[-1] == "lsp" and any("bridge" in arg for arg in argv)


def is_bridge_command(argv: list[str]) -> bool:
    """`maestro-bridge ...` (the console script), or Python running the `bridge.cli` module
    (`-m bridge.cli ...`, or the `-c` runner the headless editor starts `lsp` with)."""
    return "bridge.cli" in argv or any(Path(arg).name == "maestro-bridge" for arg in argv[:2])


def describe(pid: int) -> str:
    """`pid 123: python -m bridge.cli serve ...`, long arguments (the -c runner) shortened."""
    args = [" ".join(arg.split()) for arg in cmdline(pid)]
    shown = [arg if len(arg) <= 60 else arg[:57] + "..." for arg in args]
    return f"pid {pid}: {' '.join(shown)}"


def _is_zombie(pid: int) -> bool:
    if sys.platform == "win32":  # Windows has no zombies: an ended process leaves the table
        return False
    try:
        state = subprocess.run(
            ["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True, timeout=30
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return False
    return state.startswith("Z")


def kill_tree(pid: int) -> None:
    """Kill `pid` and every process under it. On POSIX, each is stopped (SIGSTOP) before its
    children are listed, so none can start another one or slip away to init in between;
    Windows' `taskkill /T` walks the tree itself."""
    if sys.platform == "win32":
        subprocess.run(["taskkill", "/T", "/F", "/PID", str(pid)], capture_output=True, check=False)
        return
    stopped: list[int] = []
    stack = [pid]
    while stack:
        current = stack.pop()
        try:
            os.kill(current, signal.SIGSTOP)
        except ProcessLookupError:
            continue
        stopped.append(current)
        stack.extend(child_pids(current))
    for current in stopped:
        with contextlib.suppress(ProcessLookupError):
            os.kill(current, signal.SIGKILL)


@contextlib.contextmanager
def paused(pid: int) -> Iterator[None]:
    """`pid` runs no code during the `with` block (an editor that hangs): SIGSTOP and SIGCONT,
    or on Windows the kernel's NtSuspendProcess and NtResumeProcess."""
    if sys.platform == "win32":
        import ctypes

        process_suspend_resume = 0x0800
        handle = ctypes.windll.kernel32.OpenProcess(process_suspend_resume, False, pid)
        ctypes.windll.ntdll.NtSuspendProcess(handle)
        try:
            yield
        finally:
            ctypes.windll.ntdll.NtResumeProcess(handle)
            ctypes.windll.kernel32.CloseHandle(handle)
        return
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


@contextlib.contextmanager
def reaped(process: subprocess.Popen[Any]) -> Iterator[subprocess.Popen[Any]]:
    """The `with` block's process; when the block ends, however it ends, the process and
    everything it started are killed if still running."""
    try:
        yield process
    finally:
        if process.poll() is None:
            kill_tree(process.pid)
        process.wait()


def run(command: list[str], *, timeout: float, **popen: Any) -> subprocess.CompletedProcess[str]:
    """`subprocess.run(command, capture_output=True, text=True, timeout=...)`, except that on
    a timeout (or any error) the processes the command started are killed with it, not only
    the command itself. stdin is /dev/null unless given."""
    popen.setdefault("stdin", subprocess.DEVNULL)
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen
    )
    with reaped(process):
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_tree(process.pid)
            out, err = process.communicate()
            raise subprocess.TimeoutExpired(command, timeout, out, err) from None
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def session_bridge_processes(session: str) -> list[int]:
    """Running `maestro-bridge` / `bridge.cli` processes (serve or lsp) of this test session:
    marked with its id, or still under this process (in case a test dropped the marker)."""
    mine = set(descendants(os.getpid()))
    found: list[int] = []
    if not HAS_PROC:  # no environments to read: what is still under this process
        return sorted(pid for pid in mine if is_bridge_command(cmdline(pid)))
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        if pid == os.getpid() or not is_running(pid) or not is_bridge_command(cmdline(pid)):
            continue
        if pid in mine or environ(pid).get(SESSION_ENV) == session:
            found.append(pid)
    return sorted(found)


def leaked_bridge_processes(session: str, grace: float = 5.0) -> list[int]:
    """This session's bridge processes still running after `grace` seconds (a language server
    whose editor just went needs a moment to notice its closed stdin)."""
    deadline = time.monotonic() + grace
    while True:
        left = session_bridge_processes(session)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)
