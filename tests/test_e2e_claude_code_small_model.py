"""Real Claude Code, configured by `configure claude-code --small-model`, through a real
`maestro-bridge serve`: its background requests ask for the small model, its main turn for
the main model.

In print mode Claude Code 2.1.330 sends one main request per turn and, as background work,
each prompt hook (`"type": "prompt"` in its settings) to its small-fast model: measured here
with a UserPromptSubmit and a Stop hook. (Read in its bundle: one function picks the
small-fast model for its other one-shot helpers too; session names and away summaries fork
the main conversation and stay on the main model.) A recording proxy between the CLI and the
bridge keeps the model each request asked for; the bridge answers every one (a hook gets
`{"ok": true}`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from claude_code_cli import claude_or_skip, run_claude
from conftest import StartServer
from recording_proxy import recording_proxy

from bridge.cli import main

MAIN_MODEL = "sim-reasoning"
SMALL_MODEL = "sim-echo"
HOOK_MARK = "HOOK-CHECK"
SCRIPT = {
    "rules": [
        {"match": HOOK_MARK, "reply": [{"type": "text", "text": '{"ok": true}'}]},
        {"match": ".", "reply": [{"type": "text", "text": "Hello there."}]},
    ]
}
HOOKS = {
    event: [
        {"hooks": [{"type": "prompt", "prompt": f"{HOOK_MARK} ({event}): all fine? $ARGUMENTS"}]}
    ]
    for event in ("UserPromptSubmit", "Stop")
}


def last_text(body: dict[str, Any]) -> str:
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return " ".join(str(block.get("text", "")) for block in content)


def test_background_requests_ask_for_the_small_model_and_the_turn_for_the_main_one(
    bridge_server_factory: StartServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude = claude_or_skip()
    server = bridge_server_factory(script=SCRIPT)
    home, workdir = tmp_path / "home", tmp_path / "work"
    workdir.mkdir()
    config_dir = home / ".claude"  # the CLAUDE_CONFIG_DIR run_claude gives the CLI
    config_dir.mkdir(parents=True)
    (config_dir / "settings.json").write_text(json.dumps({"hooks": HOOKS}), encoding="utf-8")
    with recording_proxy(server.root_url) as proxy:
        args = ["--url", proxy.base_url, "--model", MAIN_MODEL, "--small-model", SMALL_MODEL]
        monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))  # where configure writes
        monkeypatch.delenv("MAESTRO_BRIDGE_API_KEY", raising=False)
        assert main(["configure", "claude-code", *args]) == 0
        written = json.loads((config_dir / "settings.json").read_text(encoding="utf-8"))
        assert written["hooks"] == HOOKS  # merged, not replaced
        run = run_claude(claude, proxy.base_url, "Say hello.", cwd=workdir, home=home)
        bodies = proxy.messages_bodies()
    assert run.returncode == 0, run.report
    assert run.stdout.strip() == "Hello there.", run.report
    report = json.dumps([(b.get("model"), last_text(b)[:80]) for b in bodies], indent=1)
    hooks = [b for b in bodies if HOOK_MARK in last_text(b)]
    turns = [b for b in bodies if b not in hooks]
    # One request for each hook, with no tools: Claude Code's background work.
    hook_events = {event for event in HOOKS for b in hooks if f"({event})" in last_text(b)}
    assert hook_events == set(HOOKS), report
    assert all(not b.get("tools") for b in hooks), report
    assert {b["model"] for b in hooks} == {SMALL_MODEL}, report
    # The main turn: the user's prompt, with Claude Code's tools, on the main model.
    assert turns and all(b.get("tools") for b in turns), report
    assert {b["model"] for b in turns} == {MAIN_MODEL}, report
