"""Record what Aider sends: `python tests/record_aider.py` rewrites the captures in
tests/fixtures/aider/ (not run by pytest; run it again after an Aider upgrade).

The scenario of tests/aider_scenario.py (fix a typo, `openai/gpt-4.1`, Aider's defaults) runs
the real Aider (tests/aider_cli.py) against a fresh capture server (tests/chat_capture.py) that
answers with the edit and the commit message. Each request is saved, trimmed
(tests/aider_trim.py), as `diff-gpt-4.1-N.json` (`{"method", "path", "headers", "body"}`,
credentials redacted): 1 is the edit request, 2 the commit-message request.
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aider_cli import AiderRun, find_aider, run_aider
from aider_scenario import (
    COMMIT_MESSAGE,
    DIFF_MARKER,
    FILE_NAME,
    GPT_41,
    PROMPT,
    AiderModel,
    make_repository,
)
from aider_trim import trim_request
from chat_capture import chat_capture_server

AIDER_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "aider"
CAPTURE_NAME = "diff-gpt-4.1"


@dataclass
class CapturedRun:
    run: AiderRun
    requests: list[dict[str, Any]]  # as recorded, untrimmed
    workdir: Path
    home: Path


def capture_run(aider_bin: str, root: Path, model: AiderModel = GPT_41) -> CapturedRun:
    """Aider fixing the typo in a fresh repository under `root`, against a capture server that
    answers the commit-message request with COMMIT_MESSAGE and any other with the edit."""
    workdir, home = root / "work", root / "home"
    make_repository(workdir, home)
    replies = [(DIFF_MARKER, COMMIT_MESSAGE), (".", model.edit)]
    with chat_capture_server(replies=replies) as server:
        run = run_aider(
            aider_bin,
            server.base_url,
            PROMPT,
            cwd=workdir,
            home=home,
            model=model.name,
            known_model=model.known,
            files=(FILE_NAME,),
        )
        return CapturedRun(run, server.recorded(), workdir, home)


def fixture_path(number: int) -> Path:
    return AIDER_FIXTURES / f"{CAPTURE_NAME}-{number}.json"


def main() -> int:
    aider_bin = find_aider()
    if aider_bin is None:
        print("Aider not found (see tests/aider_cli.py)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="record-aider-") as root:
        captured = capture_run(aider_bin, Path(root))
    if captured.run.returncode != 0:
        print(captured.run.report, file=sys.stderr)
        return 1
    AIDER_FIXTURES.mkdir(parents=True, exist_ok=True)
    for number, request in enumerate(captured.requests, start=1):
        text = json.dumps(trim_request(request), indent=2, ensure_ascii=False) + "\n"
        fixture_path(number).write_text(text, encoding="utf-8")
        print(f"wrote {fixture_path(number)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
