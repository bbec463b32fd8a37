"""What Claude Code 2.1.330 sends, measured: the real CLI against the capture server.

The Anthropic Messages dialect is built on these facts; if a CLI upgrade changes one of them,
this test says which. Measured (see also tests/fixtures/claude_code/):

* only `POST /v1/messages?beta=true`: no `count_tokens`, no `/v1/models`, nothing else (with
  the offline switches of tests/claude_code_cli.py; without them it also sends
  `HEAD /api/hello` to the base URL first);
* `"stream": true` on every turn, with `Accept: application/json` (not text/event-stream);
* the key: ANTHROPIC_AUTH_TOKEN as `authorization: Bearer ...`, ANTHROPIC_API_KEY as
  `x-api-key`;
* the model names: `claude-opus-5-5` by default, `claude-sonnet-5-5` for `--model sonnet`,
  `claude-haiku-5-5` for `--model haiku`, any other name as given (with `max_tokens` 32000);
  ANTHROPIC_DEFAULT_SONNET_MODEL replaces what `--model sonnet` sends, ANTHROPIC_MODEL the
  default;
* tools in every request (Bash among them); on turn 2 the `tool_result` carries the command's
  output as a plain string;
* thinking blocks come back on the next turn exactly as sent, signature included;
* a 404 `not_found_error` for the model: one more try without streaming (`"stream": false`),
  then exit code 1 and "There's an issue with the selected model (...)".

The tests without the CLI check the saved captures hold the same facts, so the fixtures the
dialect's tests use stay consistent with what is asserted here.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path
from typing import Any

import pytest
from anthropic_capture import COMMAND, DONE, THINKING_SIGNATURE, capture_server
from claude_code_cli import (
    CLAUDE_TIMEOUT,
    CLAUDE_VERSION,
    ClaudeRun,
    claude_or_skip,
    run_claude,
)
from cli_runs import process_group_members
from fixture_files import claude_code_captures
from request_recording import REDACTED

DEFAULT_MODEL = "claude-opus-5-5"
MODEL_NAMES = {"sonnet": "claude-sonnet-5-5", "haiku": "claude-haiku-5-5", "sim-echo": "sim-echo"}
MESSAGES_PATH = "/v1/messages?beta=true"
TEXT_PROMPT = "Say hello."
BASH_PROMPT = "Please write hi into out.txt."
RUN_TIMEOUT = CLAUDE_TIMEOUT + 30


@pytest.fixture(scope="module")
def claude_bin() -> str:
    return claude_or_skip()


def last_user_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    user = [message for message in body["messages"] if message["role"] == "user"]
    content = user[-1]["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def assert_messages_request(request: dict[str, Any], model: str, report: str) -> None:
    """The facts every turn of Claude Code shares."""
    assert request["method"] == "POST", report
    assert request["path"] == MESSAGES_PATH, report
    headers, body = request["headers"], request["body"]
    assert headers["anthropic-version"] == "2023-06-01", report
    assert "claude-code-20250219" in headers["anthropic-beta"].split(","), report
    assert headers["user-agent"].startswith(f"claude-cli/{CLAUDE_VERSION} "), report
    assert body["model"] == model, report
    assert body["stream"] is True, report
    assert headers["accept"] == "application/json", report  # even though it streams
    assert isinstance(body["max_tokens"], int), report
    assert body["system"], report
    assert "Bash" in {tool["name"] for tool in body["tools"]}, report


def captured_run(
    claude_bin: str, tmp_path: Path, prompt: str, server: dict[str, Any] | None = None, **run: Any
) -> tuple[ClaudeRun, list[dict[str, Any]], Path]:
    """Claude Code run in `tmp_path/work` against a capture server made with `server`'s
    settings: (the run, the requests the server recorded, the working directory)."""
    workdir = tmp_path / "work"
    workdir.mkdir()
    with capture_server(**(server or {})) as capture:
        result = run_claude(
            claude_bin, capture.base_url, prompt, cwd=workdir, home=tmp_path / "h", **run
        )
        return result, capture.recorded(), workdir


def test_a_text_prompt_on_the_default_model(claude_bin: str, tmp_path: Path) -> None:
    run, requests, _ = captured_run(
        claude_bin, tmp_path, TEXT_PROMPT, {"reply_text": "hello from capture"}
    )
    report = f"{run.report}\nrequests: {[r['path'] for r in requests]}"
    assert run.returncode == 0, report
    assert run.stdout.strip() == "hello from capture", report
    assert len(requests) == 1, report  # no count_tokens, no /v1/models
    assert_messages_request(requests[0], DEFAULT_MODEL, report)
    assert TEXT_PROMPT in [b.get("text") for b in last_user_blocks(requests[0]["body"])], report


@pytest.mark.timeout(RUN_TIMEOUT)
@pytest.mark.parametrize("flag", sorted(MODEL_NAMES))
def test_the_model_name_asked_for(claude_bin: str, tmp_path: Path, flag: str) -> None:
    run, requests, _ = captured_run(claude_bin, tmp_path, TEXT_PROMPT, model=flag)
    assert run.returncode == 0, run.report
    assert [r["body"]["model"] for r in requests] == [MODEL_NAMES[flag]], run.report
    assert_messages_request(requests[0], MODEL_NAMES[flag], run.report)


@pytest.mark.timeout(RUN_TIMEOUT)
@pytest.mark.parametrize(
    ("flag", "env", "sent"),
    [
        ("sonnet", {"ANTHROPIC_DEFAULT_SONNET_MODEL": "sim-echo"}, "sim-echo"),
        (None, {"ANTHROPIC_MODEL": "gpt-5.5"}, "gpt-5.5"),
    ],
)
def test_model_names_from_the_environment(
    claude_bin: str, tmp_path: Path, flag: str | None, env: dict[str, str], sent: str
) -> None:
    """How a user points Claude Code's names at the editor's models."""
    run, requests, _ = captured_run(claude_bin, tmp_path, TEXT_PROMPT, model=flag, env=env)
    assert run.returncode == 0, run.report
    assert [r["body"]["model"] for r in requests] == [sent], run.report
    assert requests[0]["body"]["max_tokens"] == 32000, run.report  # a name it does not know


@pytest.mark.timeout(RUN_TIMEOUT)
def test_an_api_key_is_sent_as_x_api_key(claude_bin: str, tmp_path: Path) -> None:
    """ANTHROPIC_API_KEY (instead of ANTHROPIC_AUTH_TOKEN's `authorization: Bearer`)."""
    run, requests, _ = captured_run(
        claude_bin,
        tmp_path,
        TEXT_PROMPT,
        env={"ANTHROPIC_AUTH_TOKEN": "", "ANTHROPIC_API_KEY": "dummy-api-key"},
    )
    assert run.returncode == 0, run.report
    headers = requests[0]["headers"]
    assert headers.get("x-api-key") == REDACTED, headers
    assert "authorization" not in headers, headers


@pytest.mark.timeout(RUN_TIMEOUT)
def test_the_bash_tool_loop(claude_bin: str, tmp_path: Path) -> None:
    run, requests, workdir = captured_run(
        claude_bin, tmp_path, BASH_PROMPT, model="sonnet", output_format="json"
    )
    report = f"{run.report}\nrequests: {[r['path'] for r in requests]}"
    assert run.returncode == 0, report
    assert (workdir / "out.txt").read_text() == "hi\n", report  # the command really ran
    assert run.json_result()["result"] == DONE, report
    assert len(requests) == 2, report
    for request in requests:
        assert_messages_request(request, MODEL_NAMES["sonnet"], report)
    turn2 = requests[1]["body"]["messages"]
    assistant = [m for m in turn2 if m["role"] == "assistant"][-1]["content"]
    tool_use = next(block for block in assistant if block["type"] == "tool_use")
    assert tool_use["name"] == "Bash", report
    assert tool_use["input"] == {"command": COMMAND}, report
    results = [b for b in last_user_blocks(requests[1]["body"]) if b["type"] == "tool_result"]
    assert len(results) == 1, report
    assert results[0]["tool_use_id"] == tool_use["id"], report
    assert isinstance(results[0]["content"], str), report  # a plain string, not blocks


@pytest.mark.timeout(RUN_TIMEOUT)
def test_thinking_blocks_come_back_with_their_signature(claude_bin: str, tmp_path: Path) -> None:
    run, requests, workdir = captured_run(
        claude_bin, tmp_path, BASH_PROMPT, {"thinking": "I will run it."}
    )
    assert run.returncode == 0, run.report
    assert (workdir / "out.txt").is_file(), run.report
    assert len(requests) == 2, run.report
    assistant = [m for m in requests[1]["body"]["messages"] if m["role"] == "assistant"]
    assert [block["type"] for block in assistant[-1]["content"]] == ["thinking", "tool_use"]
    assert assistant[-1]["content"][0] == {
        "type": "thinking",
        "thinking": "I will run it.",
        "signature": THINKING_SIGNATURE,
    }


@pytest.mark.timeout(RUN_TIMEOUT)
def test_a_model_not_found_is_tried_once_more_without_streaming(
    claude_bin: str, tmp_path: Path
) -> None:
    run, requests, _ = captured_run(
        claude_bin,
        tmp_path,
        TEXT_PROMPT,
        {"unknown_models": frozenset({DEFAULT_MODEL})},
        output_format="json",
    )
    report = f"{run.report}\nrequests: {[(r['path'], r['body']['stream']) for r in requests]}"
    assert run.returncode == 1, report
    result = run.json_result()
    assert result["is_error"] is True, report
    assert result["api_error_status"] == 404, report
    assert f"issue with the selected model ({DEFAULT_MODEL})" in str(result["result"]), report
    assert [(r["path"], r["body"]["stream"]) for r in requests] == [
        (MESSAGES_PATH, True),
        (MESSAGES_PATH, False),
    ], report


@pytest.mark.timeout(60)
def test_a_cli_that_hangs_is_killed_with_everything_it_started(
    claude_bin: str, tmp_path: Path
) -> None:
    """A server that accepts connections and never answers: the harness's timeout ends the
    CLI, and no process of its session is left."""
    (tmp_path / "work").mkdir()
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        base_url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        started = time.monotonic()
        run = run_claude(
            claude_bin, base_url, TEXT_PROMPT, cwd=tmp_path / "work", home=tmp_path / "h", timeout=3
        )
        elapsed = time.monotonic() - started
    assert run.timed_out, run.report
    assert elapsed < 20, run.report
    assert process_group_members(run.pid) == [], run.report


# --------------------------------------------------------------------------- saved captures


def test_the_saved_captures_hold_the_same_facts() -> None:
    captures = claude_code_captures()
    assert len(captures) >= 10, sorted(captures)
    expected_models = {
        "text-default": DEFAULT_MODEL,
        "text-sonnet": MODEL_NAMES["sonnet"],
        "text-haiku": MODEL_NAMES["haiku"],
        "text-custom": "sim-echo",
        "bash-default": DEFAULT_MODEL,
        "bash-sonnet": MODEL_NAMES["sonnet"],
        "notfound-default": DEFAULT_MODEL,
    }
    for name, request in captures.items():
        scenario = name.rsplit("-", 1)[0]
        if name == "notfound-default-2":  # the retry without streaming
            assert request["body"]["stream"] is False, name
            continue
        assert_messages_request(request, expected_models[scenario], name)
        assert request["headers"]["authorization"] == "<redacted>", name
    for scenario in ("bash-default", "bash-sonnet"):
        results = [
            block
            for block in last_user_blocks(captures[f"{scenario}-2"]["body"])
            if block["type"] == "tool_result"
        ]
        assert [type(block["content"]) for block in results] == [str], scenario
