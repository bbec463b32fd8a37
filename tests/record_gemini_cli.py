"""Record what Gemini CLI sends: `python tests/record_gemini_cli.py` rewrites the captures in
tests/fixtures/gemini_cli/ (not run by pytest; run it again after a Gemini CLI upgrade).

Each scenario runs the real Gemini CLI (tests/gemini_cli.py: print mode, JSON output, isolated
HOME, offline settings) in an empty working directory against a fresh capture server
(tests/gemini_capture.py). Each request is saved, trimmed (tests/gemini_trim.py), as
`SCENARIO-N.json` (`{"method", "path", "headers", "body"}`, the key redacted); `runs.json`
holds each scenario's arguments, exit code, answer, the models and roles the CLI's stats name,
and the files its tools wrote.
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gemini_capture import gemini_capture_server
from gemini_cli import YOLO, GeminiRun, find_gemini, run_gemini
from gemini_trim import trim_request

GEMINI_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "gemini_cli"
TEXT_PROMPT = "Say hello."
SHELL_PROMPT = "Please write hi into out.txt."


@dataclass(frozen=True)
class Scenario:
    name: str
    prompt: str
    model: str | None = None  # None: the CLI's default, `auto` (its router picks)
    approval_mode: str | None = None

    def arguments(self) -> list[str]:
        args = ["--output-format", "json"]
        if self.model is not None:
            args += ["--model", self.model]
        if self.approval_mode is not None:
            args += ["--approval-mode", self.approval_mode]
        return [*args, "--prompt", self.prompt]


TEXT_AUTO = Scenario("text-auto", TEXT_PROMPT)
TEXT_FLASH = Scenario("text-gemini-2.5-flash", TEXT_PROMPT, model="gemini-2.5-flash")
TEXT_CUSTOM = Scenario("text-custom", TEXT_PROMPT, model="sim-echo")
SHELL_AUTO = Scenario("shell-auto", SHELL_PROMPT, approval_mode=YOLO)
SCENARIOS = (TEXT_AUTO, TEXT_FLASH, TEXT_CUSTOM, SHELL_AUTO)


@dataclass
class CapturedRun:
    scenario: Scenario
    run: GeminiRun
    requests: list[dict[str, Any]]  # as recorded, untrimmed
    workdir: Path
    home: Path

    def written_files(self) -> dict[str, str]:
        """The files in the working directory after the run (the CLI's tools wrote them)."""
        return {
            path.name: path.read_text(encoding="utf-8", errors="replace")
            for path in sorted(self.workdir.iterdir())
            if path.is_file()
        }

    def summary(self) -> dict[str, Any]:
        """What runs.json keeps of the run."""
        result = self.run.json_result() if self.run.returncode == 0 else {}
        models = result.get("stats", {}).get("models", {})
        return {
            "arguments": self.scenario.arguments(),
            "returncode": self.run.returncode,
            "response": result.get("response"),
            "models": {name: sorted(entry.get("roles", {})) for name, entry in models.items()},
            "files": self.written_files(),
        }


def capture_run(
    gemini_bin: str,
    root: Path,
    scenario: Scenario,
    wrapper: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    **server_settings: Any,
) -> CapturedRun:
    """`scenario` in a fresh working directory under `root`, against a capture server made
    with `server_settings`; `wrapper` goes before the CLI's command (such as strace)."""
    workdir, home = root / "work", root / "home"
    workdir.mkdir(parents=True, exist_ok=True)
    with gemini_capture_server(**server_settings) as server:
        run = run_gemini(
            gemini_bin,
            server.base_url,
            scenario.prompt,
            cwd=workdir,
            home=home,
            model=scenario.model,
            output_format="json",
            approval_mode=scenario.approval_mode,
            wrapper=wrapper,
            env=env,
        )
        return CapturedRun(scenario, run, server.recorded(), workdir, home)


def fixture_path(name: str, number: int) -> Path:
    return GEMINI_FIXTURES / f"{name}-{number}.json"


def write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> int:
    gemini_bin = find_gemini()
    if gemini_bin is None:
        print("Gemini CLI not found (see tests/gemini_cli.py)", file=sys.stderr)
        return 1
    runs: dict[str, Any] = {}
    GEMINI_FIXTURES.mkdir(parents=True, exist_ok=True)
    for old in GEMINI_FIXTURES.glob("*.json"):
        old.unlink()
    for scenario in SCENARIOS:
        with tempfile.TemporaryDirectory(prefix="record-gemini-") as root:
            captured = capture_run(gemini_bin, Path(root), scenario)
            if captured.run.returncode != 0:
                print(captured.run.report, file=sys.stderr)
                return 1
            runs[scenario.name] = captured.summary()
        for number, request in enumerate(captured.requests, start=1):
            write_json(fixture_path(scenario.name, number), trim_request(request))
            print(f"wrote {fixture_path(scenario.name, number)}")
    write_json(GEMINI_FIXTURES / "runs.json", runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
