"""A child process in a group of its own, and the polite way to ask such a child to stop.

In its own group, a terminal's Ctrl-C reaches only the parent, which then stops the child in
order (the headless editor shuts its language server down over LSP). POSIX has sessions for
that; Windows has process groups made with CREATE_NEW_PROCESS_GROUP, whose members ignore
Ctrl-C and hear Ctrl-Break (SIGBREAK) instead. Windows' SIGTERM is TerminateProcess: no
handler runs, so the polite request there is CTRL_BREAK_EVENT.
"""

from __future__ import annotations

import signal
import sys
from typing import Any

# Windows' values (subprocess and signal define them on Windows only; the numbers are fixed).
CREATE_NEW_PROCESS_GROUP = 0x00000200
CTRL_BREAK_EVENT = 1


def own_group(platform: str = sys.platform) -> dict[str, Any]:
    """Options for `subprocess.Popen` / `asyncio.create_subprocess_exec`."""
    if platform == "win32":
        return {"creationflags": CREATE_NEW_PROCESS_GROUP}
    return {"start_new_session": True}


def polite_stop_signal(platform: str = sys.platform) -> int:
    """What `Popen.send_signal` sends to ask a child started with `own_group()` to stop."""
    if platform == "win32":
        return CTRL_BREAK_EVENT
    return int(signal.SIGTERM)
