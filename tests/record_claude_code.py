"""Record what Claude Code sends: `python tests/record_claude_code.py` rewrites
tests/fixtures/claude_code/ (not run by pytest; run it again after a CLI upgrade).

Each scenario runs the real CLI (tests/claude_code_cli.py) against a fresh capture server
(tests/anthropic_capture.py) and saves every request it made as `SCENARIO-N.json`
(`{"method", "path", "headers", "body"}`, credentials redacted), plus `runs.json`: for each
scenario the CLI's arguments (binary and prompt left out), its exit code and its stdout
(`stdout_json` when it is a JSON object, as with `--output-format json`).

What is saved is trimmed (tests/claude_code_trim.py): Claude Code's own prose, which is
Anthropic's copyright, becomes placeholders that give its size. `--trim-existing` applies the
trimming to the saved files again, without running the CLI (after a change of its rules).
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anthropic_capture import capture_server
from claude_code_cli import claude_command, find_claude, run_claude
from claude_code_trim import trim_long_strings, trim_request
from fixture_files import CLAUDE_CODE

TEXT_PROMPT = "Say hello."
BASH_PROMPT = "Please write hi into out.txt."


@dataclass(frozen=True)
class Scenario:
    name: str
    prompt: str
    model: str | None = None
    output_format: str | None = None
    server: dict[str, Any] = field(default_factory=dict)


SCENARIOS = (
    Scenario("text-default", TEXT_PROMPT),
    Scenario("text-sonnet", TEXT_PROMPT, model="sonnet"),
    Scenario("text-haiku", TEXT_PROMPT, model="haiku"),
    # A name Claude Code does not know, as an editor's model id would be.
    Scenario("text-custom", TEXT_PROMPT, model="sim-echo"),
    Scenario("bash-default", BASH_PROMPT, output_format="json"),
    Scenario("bash-sonnet", BASH_PROMPT, model="sonnet", output_format="json"),
    # The default model answered with the API's 404 not_found_error.
    Scenario(
        "notfound-default",
        TEXT_PROMPT,
        output_format="json",
        server={"unknown_models": frozenset({"claude-opus-5-5"})},
    ),
)


# The scenarios' prompts are this project's text: trimming keeps them.
OUR_TEXTS = frozenset(scenario.prompt for scenario in SCENARIOS)


def write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=1, ensure_ascii=False) + "\n", "utf-8")


def summarise_stdout(run: dict[str, Any]) -> dict[str, Any]:
    """`stdout` that is a JSON object (the CLI's result) saved as that object, `stdout_json`:
    readable, and no long string for the fixtures' size check to mistake for prose."""
    summary = dict(run)
    stdout = summary.get("stdout")
    if isinstance(stdout, str):
        try:
            parsed = json.loads(stdout)
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict):
            del summary["stdout"]
            summary["stdout_json"] = parsed
    return dict(trim_long_strings(summary, OUR_TEXTS))


def record(scenario: Scenario, claude_bin: str, scratch: Path) -> dict[str, Any]:
    workdir = scratch / scenario.name / "work"
    workdir.mkdir(parents=True)
    with capture_server(**scenario.server) as server:
        run = run_claude(
            claude_bin,
            server.base_url,
            scenario.prompt,
            cwd=workdir,
            home=scratch / scenario.name / "home",
            model=scenario.model,
            output_format=scenario.output_format,
        )
        requests = server.recorded()
    for number, request in enumerate(requests, start=1):
        write_json(CLAUDE_CODE / f"{scenario.name}-{number}.json", trim_request(request, OUR_TEXTS))
    args = claude_command(
        "claude", scenario.prompt, model=scenario.model, output_format=scenario.output_format
    )
    return summarise_stdout(
        {
            "args": args[1:-1],
            "prompt": scenario.prompt,
            "exit_code": run.returncode,
            "timed_out": run.timed_out,
            "stdout": run.stdout,
            "requests": len(requests),
            "files_written": sorted(p.name for p in workdir.iterdir()),
        }
    )


def trim_existing() -> None:
    """The saved files, trimmed again in place (trimming leaves placeholders as they are)."""
    for path in sorted(CLAUDE_CODE.glob("*.json")):
        saved = json.loads(path.read_text("utf-8"))
        if path.name == "runs.json":
            write_json(path, {name: summarise_stdout(run) for name, run in saved.items()})
        else:
            write_json(path, trim_request(saved, OUR_TEXTS))


def main() -> int:
    if sys.argv[1:] == ["--trim-existing"]:
        trim_existing()
        return 0
    claude_bin = find_claude()
    if claude_bin is None:
        print("Claude Code CLI not found (see tests/claude_code_cli.py)", file=sys.stderr)
        return 1
    CLAUDE_CODE.mkdir(parents=True, exist_ok=True)
    for old in CLAUDE_CODE.glob("*.json"):
        old.unlink()
    runs: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="claude-code-capture-") as scratch:
        for scenario in SCENARIOS:
            runs[scenario.name] = record(scenario, claude_bin, Path(scratch))
            print(f"{scenario.name}: {runs[scenario.name]['requests']} request(s)")
    write_json(CLAUDE_CODE / "runs.json", runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
