"""What every `python -m bench...` command prints: progress on stderr, then its report."""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def machine() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = "n/a"  # Windows has none
    if sys.platform != "win32":
        load = f"{os.getloadavg()[0]:.2f}"
    return (
        f"{os.cpu_count()} cores ({model}), Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}, load average {load}"
    )


def finish(heading: str, body: str, before: str, problems: list[str], markdown: str | None) -> int:
    """Print the report (and write it to `markdown`): the heading, the machine at the start
    (`before`) and now, the tables; then the first problems; the exit status."""
    text = f"{heading}\nmachine at start: {before}\nmachine at end: {machine()}\n\n{body}"
    print(text)
    if markdown:
        Path(markdown).write_text(text, encoding="utf-8")
    for problem in problems[:20]:
        print(f"error: {problem}", file=sys.stderr)
    return 1 if problems else 0
