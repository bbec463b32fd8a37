"""Claude Code against a real `maestro-bridge serve`: its captured requests replayed over HTTP
(every one answered, as a stream the schema and order rules accept), then the real CLI itself
(print mode) in a text turn and a Bash tool loop."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from anthropic_validation import check_stream, parse_sse, validate_message
from claude_code_cli import claude_or_skip, run_claude
from conftest import BridgeServer, StartServer, running_bridge_server
from fixture_files import claude_code_captures
from plain_http import post

CAPTURES = claude_code_captures()
# Headers that describe the capture's own connection or carry its (redacted) credential.
_NOT_REPLAYED = {"host", "content-length", "connection", "accept-encoding", "authorization"}


@pytest.fixture(scope="module")
def any_name_server() -> Iterator[BridgeServer]:
    # Claude Code asks for its own model names: the default model answers them all.
    with running_bridge_server("--default-model", "sim-reasoning") as server:
        yield server


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_captured_request_is_answered(name: str, any_name_server: BridgeServer) -> None:
    capture = CAPTURES[name]
    headers = {k: v for k, v in capture["headers"].items() if k.lower() not in _NOT_REPLAYED}
    url = any_name_server.root_url + capture["path"]
    response = post(url, capture["body"], headers=headers)
    assert response.status_code == 200, response.text
    if capture["body"].get("stream"):
        message = check_stream(parse_sse(response.text)).message
    else:  # Claude Code asks without streaming too (after a failed stream)
        message = response.json()
        validate_message(message)
    assert message is not None
    assert message["model"] == capture["body"]["model"]
    assert message["stop_reason"] in ("end_turn", "tool_use")
    assert {block["type"] for block in message["content"]} & {"text", "tool_use"}, message


def test_claude_code_text_turn(bridge_server_factory: StartServer, tmp_path: Path) -> None:
    claude = claude_or_skip()
    # Without a rule the simulated model would call the first tool offered (Claude Code's Agent).
    script = {
        "rules": [{"match": "Say hello", "reply": [{"type": "text", "text": "Hello there!"}]}]
    }
    server = bridge_server_factory("--default-model", "sim-echo", script=script)
    run = run_claude(
        claude, server.root_url, "Say hello.", cwd=tmp_path, home=tmp_path / "home", timeout=60
    )
    assert run.returncode == 0, run.report
    assert run.stdout.strip() == "Hello there!", run.report


@pytest.mark.parametrize("thinks", [False, True])
def test_claude_code_bash_tool_loop(
    bridge_server_factory: StartServer, tmp_path: Path, thinks: bool
) -> None:
    """With thinking, the first answer has a thinking block, which Claude Code sends back
    with its signature in the second request (tests/test_claude_code_capture.py shows it)."""
    claude = claude_or_skip()
    script = {
        "rules": [
            {
                "match": "write the file",
                "reply": [
                    *([{"type": "thinking", "text": "A Bash call will do."}] if thinks else []),
                    {"type": "text", "text": "Writing it."},
                    {
                        "type": "tool_call",
                        "name": "Bash",
                        "arguments": {"command": "echo hi > out.txt", "description": "Write"},
                    },
                ],
            },
            {"match": ".", "reply": [{"type": "text", "text": "All done."}]},
        ]
    }
    server = bridge_server_factory("--default-model", "sim-echo", script=script)
    workdir = tmp_path / "work"
    workdir.mkdir()
    run = run_claude(
        claude,
        server.root_url,
        "Please write the file.",
        cwd=workdir,
        home=tmp_path / "home",
        timeout=60,
    )
    assert run.returncode == 0, run.report
    assert (workdir / "out.txt").read_text().strip() == "hi", run.report
    assert "All done." in run.stdout, run.report
