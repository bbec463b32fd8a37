"""The real Claude Code CLI (print mode) changes files through the bridge: a `Write` loop that
creates a file and a `Read` + `Edit` loop that changes one (Claude Code refuses to edit a file
it has not read in the session). The simulated model is driven by `--script` rules; the CLI
runs the tools for real, so the files on disk say whether the loop went through.

Each tool-calling rule answers once (`times: 1`): should the CLI ask again, it gets the final
text rather than a loop until the timeout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claude_code_cli import ClaudeRun, claude_or_skip, run_claude
from conftest import StartServer


def tool_rule(match: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A rule that answers once with a short text and a call of Claude Code's tool `name`."""
    return {
        "match": match,
        "times": 1,
        "reply": [
            {"type": "text", "text": f"Using {name}."},
            {"type": "tool_call", "name": name, "arguments": arguments},
        ],
    }


def final_rule(text: str) -> dict[str, Any]:
    return {"match": ".", "reply": [{"type": "text", "text": text}]}


def run_script(
    start: StartServer, rules: list[dict[str, Any]], prompt: str, workdir: Path, home: Path
) -> ClaudeRun:
    """Claude Code in `workdir` with `prompt`, against a bridge that answers by `rules`."""
    claude = claude_or_skip()
    server = start("--default-model", "sim-echo", script={"rules": rules})
    return run_claude(claude, server.root_url, prompt, cwd=workdir, home=home, timeout=90)


def test_write_loop_creates_the_file(bridge_server_factory: StartServer, tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    target = workdir / "notes" / "plan.md"  # a folder that does not exist yet, too
    content = "# Plan\n\n- write the file\n- check it on disk\n"
    rules = [
        tool_rule("create the plan", "Write", {"file_path": str(target), "content": content}),
        final_rule("The plan is written."),
    ]
    run = run_script(
        bridge_server_factory, rules, "Please create the plan.", workdir, tmp_path / "home"
    )
    assert run.returncode == 0, run.report
    assert target.read_text(encoding="utf-8") == content, run.report
    assert run.stdout.strip() == "The plan is written.", run.report


def test_edit_loop_changes_the_file(bridge_server_factory: StartServer, tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    target = workdir / "greeting.py"
    target.write_text('def greet() -> str:\n    return "Hello, wrold!"\n', encoding="utf-8")
    rules = [
        tool_rule("fix the greeting", "Read", {"file_path": str(target)}),
        # The Read's result (the file with line numbers) is what this rule sees.
        tool_rule(
            "wrold",
            "Edit",
            {"file_path": str(target), "old_string": "wrold", "new_string": "world"},
        ),
        final_rule("Fixed the typo."),
    ]
    run = run_script(
        bridge_server_factory, rules, "Please fix the greeting.", workdir, tmp_path / "home"
    )
    assert run.returncode == 0, run.report
    expected = 'def greet() -> str:\n    return "Hello, world!"\n'
    assert target.read_text(encoding="utf-8") == expected, run.report
    assert run.stdout.strip() == "Fixed the typo.", run.report
