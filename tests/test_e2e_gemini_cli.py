"""The real Gemini CLI through the bridge's Gemini dialect, and Gemini CLI's captured requests
answered by a real `maestro-bridge serve`.

Gemini CLI runs in print mode (tests/gemini_cli.py: isolated HOME, offline settings) in an
empty working directory against `serve --script FILE`. Without `--model` it asks its router
(`gemini-3.5-flash-lite`, a JSON complexity score) before each user turn, then the model the
router picks (`gemini-3.8-flash` for a low score): a user makes those names reach an editor
model with `--default-model` or `--model-alias`, as these tests do. The router's request ends
with the same user text as the main one, so the router's rule comes first and answers once.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import BridgeServer, StartServer, running_bridge_server
from gemini_cli import YOLO, GeminiRun, gemini_or_skip, run_gemini
from plain_http import post
from record_gemini_cli import GEMINI_FIXTURES, SHELL_PROMPT, TEXT_PROMPT

ROUTER_MODEL = "gemini-3.5-flash-lite"
ROUTED_FLASH = "gemini-3.8-flash"
ROUTER_ANSWER = {"complexity_reasoning": "One short answer.", "complexity_score": 10}
ANSWER = "Hello from the bridge."
WRITTEN = "hi from the bridge"
COMMAND = f"echo {WRITTEN} > out.txt"
AFTER_TOOL = "I wrote the file."


def text_rule(match: str, text: str, times: int | None = None) -> dict[str, Any]:
    rule: dict[str, Any] = {"match": match, "reply": [{"type": "text", "text": text}]}
    if times is not None:
        rule["times"] = times
    return rule


def router_rule(match: str) -> dict[str, Any]:
    """The router's JSON answer, for the first request that ends with `match`."""
    return text_rule(match, json.dumps(ROUTER_ANSWER), times=1)


def run_cli(
    server: BridgeServer,
    root: Path,
    prompt: str,
    model: str | None = None,
    approval_mode: str | None = None,
) -> GeminiRun:
    workdir = root / "work"
    workdir.mkdir(parents=True, exist_ok=True)
    return run_gemini(
        gemini_or_skip(),
        server.root_url,
        prompt,
        cwd=workdir,
        home=root / "home",
        model=model,
        output_format="json",
        approval_mode=approval_mode,
        timeout=90,
    )


def models_and_roles(run: GeminiRun) -> dict[str, list[str]]:
    """The CLI's own account of the calls it made: each model it asked, in which role."""
    models = run.json_result()["stats"]["models"]
    return {name: sorted(entry["roles"]) for name, entry in models.items()}


# ------------------------------------------------------------------ text answers


def test_without_a_model_the_router_and_the_routed_model_reach_the_default_model(
    bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    script = {"rules": [router_rule("Say hello"), text_rule("Say hello", ANSWER)]}
    server = bridge_server_factory("--default-model", "sim-echo", script=script)
    run = run_cli(server, tmp_path, TEXT_PROMPT)
    assert run.returncode == 0, run.report
    assert run.json_result()["response"] == ANSWER
    # The router's answer was read: its low score picked flash (else the CLI falls back to
    # gemini-3.1-pro-preview).
    assert models_and_roles(run) == {ROUTER_MODEL: ["utility_router"], ROUTED_FLASH: ["main"]}
    log = server.stderr_text()
    for name in (ROUTER_MODEL, ROUTED_FLASH):
        assert f"The model '{name}' is answered by the editor model 'sim-echo'" in log


def test_aliases_for_the_router_names_work_without_a_default_model(
    bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    script = {"rules": [router_rule("Say hello"), text_rule("Say hello", ANSWER)]}
    aliases = [f"{ROUTER_MODEL}=sim-echo", f"{ROUTED_FLASH}=sim-echo"]
    server = bridge_server_factory(
        "--model-alias", aliases[0], "--model-alias", aliases[1], script=script
    )
    run = run_cli(server, tmp_path, TEXT_PROMPT)
    assert run.returncode == 0, run.report
    assert run.json_result()["response"] == ANSWER
    assert models_and_roles(run) == {ROUTER_MODEL: ["utility_router"], ROUTED_FLASH: ["main"]}


def test_a_model_flag_asks_the_editor_model_by_name_without_the_router(
    bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    # No router rule: a router call would take the text and fail to parse it.
    server = bridge_server_factory(script={"rules": [text_rule("Say hello", ANSWER)]})
    run = run_cli(server, tmp_path, TEXT_PROMPT, model="sim-echo")
    assert run.returncode == 0, run.report
    assert run.json_result()["response"] == ANSWER
    assert models_and_roles(run) == {"sim-echo": ["main"]}


def test_a_model_the_editor_lacks_ends_the_run_with_the_bridges_404_message(
    bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    server = bridge_server_factory(script={"rules": [text_rule("Say hello", ANSWER)]})
    run = run_cli(server, tmp_path, TEXT_PROMPT, model="gemini-2.5-pro")
    assert run.returncode == 1, run.report
    # In JSON mode the error object goes to stderr, with Google's status as the CLI's class.
    assert "ModelNotFoundError" in run.stderr, run.report
    assert "The model 'gemini-2.5-pro' does not exist in the editor" in run.stderr, run.report


def test_a_slow_model_is_kept_alive_until_it_answers(
    bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    pause: dict[str, Any] = {"type": "pause", "seconds": 4}
    slow = {"match": "Say hello", "reply": [pause, {"type": "text", "text": ANSWER}]}
    server = bridge_server_factory("--keepalive-seconds", "0.5", script={"rules": [slow]})
    run = run_cli(server, tmp_path, TEXT_PROMPT, model="sim-echo")
    assert run.returncode == 0, run.report
    assert run.json_result()["response"] == ANSWER
    # The same answer on the wire: blank lines while the model is silent, then the data.
    body = {"contents": [{"role": "user", "parts": [{"text": TEXT_PROMPT}]}]}
    url = f"{server.root_url}/v1beta/models/sim-echo:streamGenerateContent?alt=sse"
    reply = post(url, body)
    assert reply.status_code == 200, reply.text
    before_data = reply.text[: reply.text.index("data: ")]
    assert before_data.count("\n") >= 3 and before_data.strip() == "", repr(before_data)


# ------------------------------------------------------------------ the shell tool loop


def shell_rules(after_tool: list[dict[str, Any]]) -> list[dict[str, Any]]:
    call = {"type": "tool_call", "name": "run_shell_command", "arguments": {"command": COMMAND}}
    return [
        router_rule("write hi"),
        {"match": "write hi", "reply": [call], "times": 1},
        # The tool's result (the last input) reads "Output: (empty)".
        {"match": "Output:", "reply": after_tool},
    ]


@pytest.mark.parametrize("pause", [0, 4], ids=["prompt", "slow-after-the-tool"])
def test_gemini_cli_runs_the_shell_command_the_model_asks_for(
    bridge_server_factory: StartServer, tmp_path: Path, pause: int
) -> None:
    after: list[dict[str, Any]] = [{"type": "pause", "seconds": pause}] if pause else []
    after.append({"type": "text", "text": AFTER_TOOL})
    script = {"rules": shell_rules(after)}
    server = bridge_server_factory(
        "--default-model", "sim-echo", "--keepalive-seconds", "0.5", script=script
    )
    run = run_cli(server, tmp_path, SHELL_PROMPT, approval_mode=YOLO)
    assert run.returncode == 0, run.report
    assert (tmp_path / "work" / "out.txt").read_text(encoding="utf-8") == WRITTEN + "\n"
    result = run.json_result()
    assert result["response"] == AFTER_TOOL
    shell = result["stats"]["tools"]["byName"]["run_shell_command"]
    assert (shell["count"], shell["success"]) == (1, 1)


# ------------------------------------------------------------------ the captures replayed


def capture_files() -> list[str]:
    return sorted(path.name for path in GEMINI_FIXTURES.glob("*-[0-9].json"))


@pytest.fixture(scope="module")
def replay_server() -> Iterator[BridgeServer]:
    with running_bridge_server("--default-model", "sim-echo") as server:
        yield server


@pytest.mark.parametrize("name", capture_files())
def test_a_captured_request_plans_and_answers(replay_server: BridgeServer, name: str) -> None:
    capture = json.loads((GEMINI_FIXTURES / name).read_text(encoding="utf-8"))
    reply = post(replay_server.root_url + capture["path"], capture["body"])
    assert reply.status_code == 200, reply.text
    if "alt=sse" not in capture["path"]:
        answer = reply.json()
        assert answer["candidates"][0]["content"]["role"] == "model"
        # The router's request: the answer is JSON with what its schema requires.
        parts = answer["candidates"][0]["content"]["parts"]
        routed = json.loads("".join(part.get("text", "") for part in parts))
        assert set(routed) >= {"complexity_reasoning", "complexity_score"}
        return
    assert reply.headers["content-type"].startswith("text/event-stream")
    chunks = [
        json.loads(line.removeprefix("data: "))
        for line in reply.text.splitlines()
        if line.startswith("data: ")
    ]
    assert chunks, reply.text
    assert all("error" not in chunk for chunk in chunks), reply.text
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"
    assert "usageMetadata" in chunks[-1]
