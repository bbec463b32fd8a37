"""Real Gemini CLI, configured by `configure gemini --router-model`, through a real
`maestro-bridge serve`: its background requests ask for the router model, its turns for the
main model.

Gemini CLI 0.61.0 names each background request by a model-config alias; what this test
sees reach the bridge:

- with the model `configure` writes (an explicit one), the model router is bypassed; the
  next-speaker check (on when `model.skipNextSpeakerCheck` is false) asks after each turn
  whether the model should speak again: one `generateContent` with a JSON schema;
- with `--model auto`, the model router's classifier first scores the prompt (the "Task
  Routing AI"), then the turn goes to the Gemini model it picks.

A recording proxy between the CLI and the bridge keeps the model each request asked for (in
its path); the bridge answers every one by the script below.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import BridgeServer, running_bridge_server
from gemini_cli import OFFLINE_SETTINGS, gemini_or_skip, run_gemini
from recording_proxy import RecordingProxy, recording_proxy

from bridge.cli import main

MAIN_MODEL = "sim-gemini"
ROUTER_MODEL = "sim-echo"
ROUTED_PROMPT = "Route me"
# Names the router may pick in auto mode: the bridge answers them with the main model.
GEMINI_NAMES = (
    "gemini-2.5-pro",
    "gemini-2.5-flash",
    "gemini-3-pro-preview",
    "gemini-3-flash-preview",
    "gemini-3.1-pro-preview",
    "gemini-3.5-flash",
    "gemini-3.8-flash",  # what 0.61.0 picks for a simple prompt
)
SCRIPT = {
    "rules": [
        {  # the next-speaker check's prompt
            "match": "who should logically speak next",
            "reply": [{"type": "text", "text": '{"reasoning": "done", "next_speaker": "user"}'}],
        },
        {  # the classifier: it asks before the turn, whose text holds the same prompt
            "match": ROUTED_PROMPT,
            "times": 1,
            "reply": [
                {
                    "type": "text",
                    "text": '{"complexity_reasoning": "a greeting", "complexity_score": 5}',
                }
            ],
        },
        {"match": ".", "reply": [{"type": "text", "text": "Hello there."}]},
    ]
}


@pytest.fixture
def bridge(tmp_path: Path) -> Iterator[BridgeServer]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT), encoding="utf-8")
    aliases = [arg for name in GEMINI_NAMES for arg in ("--model-alias", f"{name}={MAIN_MODEL}")]
    with running_bridge_server("--script", str(script), *aliases) as server:
        yield server


def configured_settings(
    proxy: RecordingProxy, home: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, Any]:
    """Runs `configure gemini --router-model` into `home/.gemini` over settings that turn the
    next-speaker check on; the settings.json it wrote."""
    folder = home / ".gemini"
    folder.mkdir(parents=True)
    settings = {**OFFLINE_SETTINGS, "model": {"skipNextSpeakerCheck": False}}
    (folder / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    monkeypatch.setenv("GEMINI_CLI_HOME", str(home))
    for name in ("MAESTRO_BRIDGE_API_KEY", "GEMINI_API_KEY", "GEMINI_MODEL"):
        monkeypatch.delenv(name, raising=False)
    args = ["--url", proxy.base_url, "--model", MAIN_MODEL, "--router-model", ROUTER_MODEL]
    assert main(["configure", "gemini", *args]) == 0
    written: dict[str, Any] = json.loads((folder / "settings.json").read_text(encoding="utf-8"))
    assert written["model"] == {"skipNextSpeakerCheck": False}  # merged, not replaced
    return written


def generate_requests(proxy: RecordingProxy) -> list[tuple[str, dict[str, Any]]]:
    """(the model asked for, the body) of each generate request, in order."""
    found = []
    for entry in proxy.recorded():
        path = entry["path"].split("?")[0]
        if path.startswith("/v1beta/models/") and ":" in path:
            found.append((path.removeprefix("/v1beta/models/").split(":")[0], entry["body"]))
    return found


def system_text(body: dict[str, Any]) -> str:
    system = body.get("systemInstruction") or {}
    return " ".join(str(part.get("text", "")) for part in system.get("parts", []))


def last_text(body: dict[str, Any]) -> str:
    return " ".join(str(part.get("text", "")) for part in body["contents"][-1].get("parts", []))


def report_of(run: Any, requests: list[tuple[str, dict[str, Any]]]) -> str:
    asked = [(model, system_text(body)[:60], last_text(body)[:60]) for model, body in requests]
    return f"{json.dumps(asked, indent=1)}\n{run.report}"


def test_the_next_speaker_check_asks_for_the_router_model(
    bridge: BridgeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gemini = gemini_or_skip()
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    with recording_proxy(bridge.root_url) as proxy:
        settings = configured_settings(proxy, home, monkeypatch)
        run = run_gemini(
            gemini,
            proxy.base_url,
            "Say hello.",
            cwd=work,
            home=home,
            settings=settings,
            env={"GEMINI_CLI_TRUST_WORKSPACE": "true"},  # reads ~/.gemini/.env: GEMINI_MODEL
        )
        requests = generate_requests(proxy)
    report = report_of(run, requests)
    assert run.returncode == 0, report
    assert "Hello there." in run.stdout, report
    turns = [(model, body) for model, body in requests if body.get("tools")]
    checks = [(model, body) for model, body in requests if "speak next" in last_text(body)]
    assert turns and {model for model, _ in turns} == {MAIN_MODEL}, report
    assert checks and {model for model, _ in checks} == {ROUTER_MODEL}, report
    assert len(turns) + len(checks) == len(requests), report  # nothing else was sent


def test_the_model_router_s_classifier_asks_for_the_router_model(
    bridge: BridgeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gemini = gemini_or_skip()
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    with recording_proxy(bridge.root_url) as proxy:
        settings = configured_settings(proxy, home, monkeypatch)
        settings["model"] = {}  # the next-speaker check off again: the router alone
        run = run_gemini(
            gemini,
            proxy.base_url,
            f"{ROUTED_PROMPT}: say hello.",
            cwd=work,
            home=home,
            model="auto",
            settings=settings,
        )
        requests = generate_requests(proxy)
    report = report_of(run, requests)
    assert run.returncode == 0, report
    assert "Hello there." in run.stdout, report
    routing = [(model, body) for model, body in requests if "Task Routing AI" in system_text(body)]
    turns = [(model, body) for model, body in requests if body.get("tools")]
    assert routing and {model for model, _ in routing} == {ROUTER_MODEL}, report
    assert requests[0][1] is routing[0][1], report  # it routes before the turn
    # The turn goes to the Gemini model the router picked, which the bridge serves.
    assert turns and {model for model, _ in turns} <= set(GEMINI_NAMES), report
