"""Real agents through the real Copilot 0.67 provider (tests/copilot_host.py): Claude Code on
Claude (Messages API upstream), Codex on GPT-5 (Responses API upstream) and Gemini CLI on
Gemini, each a multi-turn session in which the model calls the agent's own tools twice and the
agent runs them for real: the files on disk say whether every turn went through.

    agent -> bridge -> lsp -> extension -> vscode.lm -> Copilot 0.67 -> fake CAPI

The fake cloud answers by a script of rules keyed on the last input (headless_editor/script.py,
as `serve --script` takes it); each tool rule answers once. Every model turn is checked where
it arrived: at the fake cloud, in the API Copilot chose for the model.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from claude_code_cli import claude_or_skip, run_claude
from copilot_host import copilot_fixtures
from fake_capi import FakeCapi
from gemini_cli import YOLO, gemini_or_skip, run_gemini
from test_e2e_codex import codex_or_skip, run_codex
from vscode_host import VSCodeHost

from headless_editor.script import Script

pytestmark = pytest.mark.timeout(600)

CODEX_MODEL = "gpt-5.5"  # Codex offers apply_patch to the names it knows
capi, vscode = copilot_fixtures({"maestroBridge.modelAliases": {CODEX_MODEL: "gpt-5-mini"}})


@pytest.fixture
def scripted(capi: FakeCapi) -> Iterator[FakeCapi]:
    """The fake cloud answering by the test's script (set with `use`), then by default."""
    yield capi
    capi.script = None


def use(capi: FakeCapi, rules: list[dict[str, Any]]) -> None:
    capi.script = Script.model_validate({"rules": rules})
    capi.clear()


def call_rule(match: str, name: str, arguments: Any, text: str = "") -> dict[str, Any]:
    reply: list[dict[str, Any]] = [{"type": "text", "text": text or f"Using {name}."}]
    reply.append({"type": "tool_call", "name": name, "arguments": arguments})
    return {"match": match, "times": 1, "reply": reply}


def text_rule(match: str, text: str, times: int | None = None) -> dict[str, Any]:
    rule: dict[str, Any] = {"match": match, "reply": [{"type": "text", "text": text}]}
    if times is not None:
        rule["times"] = times
    return rule


def turns_to(capi: FakeCapi, path: str) -> list[dict[str, Any]]:
    return [r.body for r in capi.requests_to(path)]


def test_claude_code_session_on_claude(
    vscode: VSCodeHost, scripted: FakeCapi, tmp_path: Path
) -> None:
    """Write a file, read it back, answer: three turns of Claude Code's on Claude, upstream
    on the Messages API with Copilot's cache breakpoints."""
    workdir = tmp_path / "work"
    workdir.mkdir()
    target = workdir / "plan.md"
    content = "# Plan\n\n- through the real Copilot\n"
    use(
        scripted,
        [
            call_rule("create the plan", "Write", {"file_path": str(target), "content": content}),
            call_rule("File created successfully", "Read", {"file_path": str(target)}),
            text_rule("through the real Copilot", "The plan is written and checked."),
        ],
    )
    run = run_claude(
        claude_or_skip(),
        vscode.base_url.removesuffix("/v1"),
        "Please create the plan.",
        cwd=workdir,
        home=tmp_path / "home",
        model="claude-sonnet-4.5",
        timeout=180,
    )
    assert run.returncode == 0, f"{run.report}\n{vscode.diagnostics()}"
    assert target.read_text(encoding="utf-8") == content, run.report
    assert run.stdout.strip() == "The plan is written and checked.", run.report
    turns = [t for t in turns_to(scripted, "/v1/messages") if t.get("tools")]
    assert len(turns) >= 3, [len(t["messages"]) for t in turns]
    last = turns[-1]
    assert last["model"] == "claude-sonnet-4.5"
    results = [
        b
        for m in last["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert len(results) == 2, last["messages"]
    assert "cache_control" in json.dumps(last["messages"]), "Copilot's cache breakpoints"


def test_codex_session_on_gpt5(vscode: VSCodeHost, scripted: FakeCapi, tmp_path: Path) -> None:
    """A command, then a patch, then the answer: Codex's tools through Copilot's Responses
    API path, the custom `apply_patch` tool included."""
    command = "echo maestro-hello > out.txt"
    patch = (
        "*** Begin Patch\n*** Update File: notes.txt\n@@\n first line\n-old line\n"
        "+patched through copilot\n*** End Patch\n"
    )
    use(
        scripted,
        [
            text_rule(r"Success\. Updated the following files", "DONE"),
            call_rule(r"Process exited with code 0", "apply_patch", patch, "Now the patch."),
            call_rule(
                r"write maestro-hello", "exec_command", {"cmd": command}, "Writing the file."
            ),
        ],
    )
    server = _HostAsServer(vscode)
    run = run_codex(
        codex_or_skip(),
        server,
        tmp_path,
        CODEX_MODEL,
        "Please write maestro-hello into out.txt, then fix notes.txt.",
        files={"notes.txt": "first line\nold line\n"},
    )
    assert (run.workdir / "out.txt").read_text().strip() == "maestro-hello", run.report
    assert (run.workdir / "notes.txt").read_text() == "first line\npatched through copilot\n"
    assert run.last_message == "DONE", run.report
    turns = turns_to(scripted, "/responses")
    assert len(turns) >= 3 and all(t["model"] == "gpt-5-mini" for t in turns), turns
    outputs = [
        i
        for i in turns[-1]["input"]
        if i.get("type") in ("function_call_output", "custom_tool_call_output")
    ]
    assert len(outputs) == 2, turns[-1]["input"]


def test_gemini_cli_session_on_gemini(
    vscode: VSCodeHost, scripted: FakeCapi, tmp_path: Path
) -> None:
    """Two shell commands, then the answer: Gemini CLI's turns on Copilot's Gemini."""
    first, second = "echo one > out.txt", "echo two >> out.txt"
    use(
        scripted,
        [
            call_rule("write the numbers", "run_shell_command", {"command": first}),
            call_rule("Output:", "run_shell_command", {"command": second}),
            text_rule("Output:", "Both numbers are written."),
        ],
    )
    workdir = tmp_path / "work"
    workdir.mkdir()
    run = run_gemini(
        gemini_or_skip(),
        vscode.base_url.removesuffix("/v1"),
        "Please write the numbers.",
        cwd=workdir,
        home=tmp_path / "home",
        model="gemini-2.5-pro",
        output_format="json",
        approval_mode=YOLO,
        timeout=180,
    )
    assert run.returncode == 0, f"{run.report}\n{vscode.diagnostics()}"
    assert (workdir / "out.txt").read_text(encoding="utf-8") == "one\ntwo\n", run.report
    assert run.json_result()["response"] == "Both numbers are written.", run.report
    turns = [t for t in turns_to(scripted, "/chat/completions") if t.get("tools")]
    assert len(turns) >= 3 and turns[-1]["model"] == "gemini-2.5-pro", len(turns)
    tool_messages = [m for m in turns[-1]["messages"] if m["role"] == "tool"]
    assert len(tool_messages) == 2, turns[-1]["messages"]


@dataclass
class _HostAsServer:
    """What run_codex needs of a bridge server, from the VS Code host's bridge."""

    host: VSCodeHost

    @property
    def base_url(self) -> str:
        return self.host.base_url

    def stderr_text(self) -> str:
        return self.host.diagnostics()
