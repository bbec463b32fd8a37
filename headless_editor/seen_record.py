"""What reached the simulated model, written down for tests: with MAESTRO_SIM_RECORD=FILE in the
environment, each request the simulated Copilot lets through is appended to FILE as one JSON
line (the model, Copilot's system prompt, the messages as Copilot rendered them, the tools and
the options its cloud would get), so a test can compare it with what the real Copilot sent its
cloud (tests/test_copilot_differential.py). Off unless set; never written in normal use.
"""

from __future__ import annotations

import json
import os
from typing import Any

import msgspec

from headless_editor.copilot import Seen

RECORD_ENV = "MAESTRO_SIM_RECORD"


def record_seen(model_id: str, seen: Seen) -> None:
    path = os.environ.get(RECORD_ENV)
    if not path:
        return
    entry: dict[str, Any] = {
        "model": model_id,
        "system": seen.system,
        "messages": msgspec.to_builtins(seen.request.messages),
        "tools": [tool.name for tool in seen.request.tools],
        "body": seen.body,
    }
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")
