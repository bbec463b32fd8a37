"""What Gemini CLI sends, measured with the real CLI against a capture server, and the saved
captures (tests/fixtures/gemini_cli/) checked against it.

These facts are what the Gemini dialect must serve for Gemini CLI 0.61.0 in print mode;
tests/fixtures/gemini_cli/README.md lists them. Should an upgrade change them, these tests say
which one, and `python tests/record_gemini_cli.py` saves the new captures.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from gemini_capture import COMMAND, SHELL_TOOL, gemini_capture_server
from gemini_cli import OFFLINE_SETTINGS, gemini_or_skip, run_gemini
from gemini_trim import LONG_TEXT, is_placeholder, trim_request
from record_gemini_cli import (
    GEMINI_FIXTURES,
    SCENARIOS,
    SHELL_AUTO,
    TEXT_AUTO,
    TEXT_CUSTOM,
    TEXT_FLASH,
    CapturedRun,
    Scenario,
    capture_run,
    fixture_path,
)

ROUTER_MODEL = "gemini-3.5-flash-lite"
ROUTED_FLASH = "gemini-3.8-flash"  # the router's `flash` for the default `auto`
GENERATE = ":generateContent"
STREAM = ":streamGenerateContent?alt=sse"
SDK_CLIENT = "google-genai-sdk/1.30.0 gl-node/v20.20.2"
SAMPLING = {"temperature": 1, "topP": 0.95, "topK": 64}


@pytest.fixture(scope="module")
def auto_run(tmp_path_factory: pytest.TempPathFactory) -> CapturedRun:
    return capture_run(gemini_or_skip(), tmp_path_factory.mktemp("gemini-auto"), TEXT_AUTO)


@pytest.fixture(scope="module")
def shell_run(tmp_path_factory: pytest.TempPathFactory) -> CapturedRun:
    return capture_run(gemini_or_skip(), tmp_path_factory.mktemp("gemini-shell"), SHELL_AUTO)


def paths(captured: CapturedRun) -> list[str]:
    return [request["path"] for request in captured.requests]


def part_kinds(body: dict[str, Any]) -> list[tuple[str | None, list[list[str]]]]:
    """Each content's role and the keys of each of its parts."""
    return [
        (content.get("role"), [sorted(part) for part in content["parts"]])
        for content in body["contents"]
    ]


def function_names(body: dict[str, Any]) -> list[str]:
    return [
        declaration["name"]
        for tool in body.get("tools", [])
        for declaration in tool["functionDeclarations"]
    ]


def shape(request: dict[str, Any]) -> dict[str, Any]:
    """What a capture must keep from one recording to the next: all but texts and sizes."""
    body = request["body"]
    return {
        "request": (request["method"], request["path"]),
        "headers": sorted(request["headers"]),
        "keys": sorted(body),
        "generationConfig": trim_request({"body": body["generationConfig"]})["body"],
        "systemInstruction": body["systemInstruction"].get("role"),
        "contents": part_kinds(body),
        "functions": function_names(body),
    }


# ------------------------------------------------------------------ the router and the model


def test_without_a_model_a_flash_lite_router_call_comes_before_the_streamed_main_call(
    auto_run: CapturedRun,
) -> None:
    assert auto_run.run.returncode == 0, auto_run.run.report
    assert paths(auto_run) == [
        f"/v1beta/models/{ROUTER_MODEL}{GENERATE}",
        f"/v1beta/models/{ROUTED_FLASH}{STREAM}",
    ]
    assert auto_run.run.json_result()["response"] == "hello from the capture server"


def test_the_router_asks_for_a_complexity_score_as_json_with_upper_case_types(
    auto_run: CapturedRun,
) -> None:
    body = auto_run.requests[0]["body"]
    assert sorted(body) == ["contents", "generationConfig", "systemInstruction"]  # no tools
    config = body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    schema = config["responseJsonSchema"]  # a JSON Schema field, with OpenAPI's type names
    assert schema["type"] == "OBJECT"
    assert {name: prop["type"] for name, prop in schema["properties"].items()} == {
        "complexity_reasoning": "STRING",
        "complexity_score": "INTEGER",
    }
    assert schema["required"] == ["complexity_reasoning", "complexity_score"]
    assert config["thinkingConfig"] == {"includeThoughts": True, "thinkingLevel": "HIGH"}
    # The session context and the prompt, as two user contents in a row.
    assert part_kinds(body) == [("user", [["text"]]), ("user", [["text"]])]
    assert body["contents"][1]["parts"][0]["text"] == TEXT_AUTO.prompt


def test_the_main_call_sends_tools_as_json_schema_and_a_user_role_system_instruction(
    auto_run: CapturedRun,
) -> None:
    body = auto_run.requests[1]["body"]
    assert sorted(body) == ["contents", "generationConfig", "systemInstruction", "tools"]
    assert body["generationConfig"] == {
        **SAMPLING,
        "thinkingConfig": {"includeThoughts": True, "thinkingLevel": "HIGH"},
    }
    assert body["systemInstruction"]["role"] == "user"
    declarations = body["tools"][0]["functionDeclarations"]
    assert len(body["tools"]) == 1
    assert all(set(d) == {"name", "description", "parametersJsonSchema"} for d in declarations)
    assert all(d["parametersJsonSchema"]["type"] == "object" for d in declarations)
    # Print mode's default approval offers no tool that writes or runs anything.
    assert SHELL_TOOL not in function_names(body)
    assert part_kinds(body) == [("user", [["text"], ["text"]])]


def test_every_request_carries_the_key_header_and_the_node_sdk_client(
    auto_run: CapturedRun,
) -> None:
    for request in auto_run.requests:
        headers = request["headers"]
        assert headers["x-goog-api-key"] == "<redacted>"
        assert headers["x-goog-api-client"] == SDK_CLIENT
        assert headers["user-agent"].startswith("GeminiCLI-tui/0.61.0/")
        assert "authorization" not in headers
        assert "x-gemini-api-privileged-user-id" not in headers  # usage statistics are off
        assert "key=" not in request["path"]


@pytest.mark.parametrize("scenario", [TEXT_FLASH, TEXT_CUSTOM], ids=lambda s: s.name)
def test_a_model_flag_skips_the_router(scenario: Scenario, tmp_path: Path) -> None:
    captured = capture_run(gemini_or_skip(), tmp_path, scenario)
    assert captured.run.returncode == 0, captured.run.report
    assert paths(captured) == [f"/v1beta/models/{scenario.model}{STREAM}"]
    thinking = captured.requests[0]["body"]["generationConfig"]["thinkingConfig"]
    # Gemini 2.5 gets a budget, a name the CLI does not know only includeThoughts.
    expected = {"includeThoughts": True, "thinkingBudget": 8192}
    assert thinking == (expected if scenario is TEXT_FLASH else {"includeThoughts": True})


def test_the_gemini_model_variable_skips_the_router(tmp_path: Path) -> None:
    captured = capture_run(gemini_or_skip(), tmp_path, TEXT_AUTO, env={"GEMINI_MODEL": "sim-echo"})
    assert captured.run.returncode == 0, captured.run.report
    assert paths(captured) == [f"/v1beta/models/sim-echo{STREAM}"]


# ------------------------------------------------------------------ the shell tool loop


def test_the_shell_loop_runs_the_call_and_replays_it_with_a_made_up_id(
    shell_run: CapturedRun,
) -> None:
    assert shell_run.run.returncode == 0, shell_run.run.report
    assert (shell_run.workdir / "out.txt").read_text(encoding="utf-8") == "hi\n"
    # No router call for the turn that carries the tool's result.
    assert paths(shell_run) == [
        f"/v1beta/models/{ROUTER_MODEL}{GENERATE}",
        f"/v1beta/models/{ROUTED_FLASH}{STREAM}",
        f"/v1beta/models/{ROUTED_FLASH}{STREAM}",
    ]
    assert SHELL_TOOL in function_names(shell_run.requests[1]["body"])
    body = shell_run.requests[2]["body"]
    assert part_kinds(body) == [
        ("user", [["text"], ["text"]]),
        ("model", [["functionCall", "thoughtSignature"]]),
        ("user", [["functionResponse"]]),
    ]
    call_part, response_part = body["contents"][1]["parts"][0], body["contents"][2]["parts"][0]
    call, response = call_part["functionCall"], response_part["functionResponse"]
    # The capture's call had no id and no signature: the CLI made up both.
    assert re.fullmatch(rf"{SHELL_TOOL}_\d+_0", call["id"])
    assert call_part["thoughtSignature"] == "skip_thought_signature_validator"
    assert call == {"id": call["id"], "name": SHELL_TOOL, "args": {"command": COMMAND}}
    assert set(response) == {"id", "name", "response"}
    assert (response["id"], response["name"]) == (call["id"], SHELL_TOOL)
    assert set(response["response"]) == {"output"}
    assert "Output: (empty)" in response["response"]["output"]
    assert shell_run.run.json_result()["response"] == "done"


# ------------------------------------------------------------------ offline, keepalive


def test_the_cli_connects_only_to_the_base_url(tmp_path: Path) -> None:
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed")
    log = tmp_path / "connect.log"
    wrapper = (strace, "-f", "-qq", "-e", "trace=connect", "-o", str(log))
    captured = capture_run(gemini_or_skip(), tmp_path / "run", TEXT_AUTO, wrapper=wrapper)
    assert captured.run.returncode == 0, captured.run.report
    port = int(captured.requests[0]["headers"]["host"].rpartition(":")[2])
    inet = [line for line in log.read_text().splitlines() if re.search(r"AF_INET6?\b", line)]
    assert inet, "strace saw no connection at all"
    for line in inet:
        assert f"htons({port})" in line and '"127.0.0.1"' in line, line


def test_without_usage_statistics_off_every_request_names_the_installation(
    tmp_path: Path,
) -> None:
    settings = {**OFFLINE_SETTINGS, "privacy": {"usageStatisticsEnabled": True}}
    with gemini_capture_server() as server:
        run = run_gemini(
            gemini_or_skip(),
            server.base_url,
            "Say hello.",
            cwd=tmp_path,
            home=tmp_path / "home",
            model="sim-echo",
            settings=settings,
        )
        requests = server.recorded()
    assert run.returncode == 0, run.report
    assert all("x-gemini-api-privileged-user-id" in r["headers"] for r in requests)


def test_without_a_selected_auth_type_print_mode_refuses_the_base_url(tmp_path: Path) -> None:
    settings = {**OFFLINE_SETTINGS, "security": {"folderTrust": {"enabled": False}}}
    with gemini_capture_server() as server:
        run = run_gemini(
            gemini_or_skip(),
            server.base_url,
            "Say hello.",
            cwd=tmp_path,
            home=tmp_path / "home",
            settings=settings,
        )
        assert server.recorded() == []
    assert run.returncode == 41, run.report
    assert "Invalid auth method selected." in run.stderr


def test_blank_line_keepalives_keep_a_slow_stream_alive(tmp_path: Path) -> None:
    started = time.monotonic()
    captured = capture_run(gemini_or_skip(), tmp_path, TEXT_CUSTOM, delay=4.0, keepalive=0.5)
    assert time.monotonic() - started >= 4.0
    assert captured.run.returncode == 0, captured.run.report
    assert captured.run.json_result()["response"] == "hello from the capture server"


def test_an_sse_comment_ends_the_run_with_an_error(tmp_path: Path) -> None:
    """Why the bridge's keepalive is a blank line: the SDK in the CLI reads `data:` lines
    with leading whitespace only, so a comment is never consumed."""
    captured = capture_run(
        gemini_or_skip(),
        tmp_path,
        TEXT_CUSTOM,
        delay=1.0,
        keepalive=0.5,
        keepalive_frame=b": keepalive\n\n",
    )
    assert captured.run.returncode != 0, captured.run.report
    assert "Incomplete JSON segment at the end" in captured.run.stdout + captured.run.stderr


def test_an_error_line_after_the_text_is_retried_then_reported_with_exit_code_0(
    tmp_path: Path,
) -> None:
    """What Gemini CLI makes of a stream that fails after its first chunk: the SDK does not
    raise on a `data: {"error": ...}` line, the CLI sees a stream without a finishReason,
    retries it (4 requests in all, keeping the partial text of each) and reports an
    INVALID_STREAM error, yet with exit code 0."""
    error = {"code": 503, "message": "The editor model failed.", "status": "UNAVAILABLE"}
    captured = capture_run(gemini_or_skip(), tmp_path, TEXT_CUSTOM, stream_error=error)
    assert len(captured.requests) == 4, captured.run.report
    assert captured.run.returncode == 0, captured.run.report
    result = captured.run.json_result()
    assert result["error"] == {
        "type": "INVALID_STREAM",
        "message": "Model stream ended without a finish reason.",
    }
    assert result["response"] == "hello from the capture server" * 4


# ------------------------------------------------------------------ the saved captures


def saved(name: str, number: int) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(fixture_path(name, number).read_text(encoding="utf-8"))
    return loaded


def saved_names() -> list[tuple[str, int]]:
    runs = json.loads((GEMINI_FIXTURES / "runs.json").read_text(encoding="utf-8"))
    found = []
    for scenario in SCENARIOS:
        count = len(list(GEMINI_FIXTURES.glob(f"{scenario.name}-[0-9].json")))
        assert runs[scenario.name]["returncode"] == 0
        found += [(scenario.name, number) for number in range(1, count + 1)]
    return found


def all_strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for item in value.values() for s in all_strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in all_strings(item)]
    return [value] if isinstance(value, str) else []


@pytest.mark.parametrize(("name", "number"), saved_names())
def test_the_saved_capture_is_trimmed(name: str, number: int) -> None:
    capture = saved(name, number)
    assert capture == trim_request(capture)
    assert capture["headers"]["x-goog-api-key"] == "<redacted>"
    for text in all_strings(capture["body"]):
        assert len(text) <= LONG_TEXT or is_placeholder(text), text[:80]


LIVE_RUNS = [("auto_run", "text-auto", 2), ("shell_run", "shell-auto", 3)]


@pytest.mark.parametrize(("captured_name", "name", "count"), LIVE_RUNS)
def test_the_saved_capture_has_the_shape_the_cli_sends_today(
    captured_name: str, name: str, count: int, request: pytest.FixtureRequest
) -> None:
    captured: CapturedRun = request.getfixturevalue(captured_name)
    assert len(captured.requests) == count
    for number, live in enumerate(captured.requests, start=1):
        assert shape(saved(name, number)) == shape(trim_request(live)), f"{name}-{number}"


def test_only_the_captures_runs_and_their_readme_are_saved() -> None:
    expected = {f"{name}-{number}.json" for name, number in saved_names()}
    names = {path.name for path in GEMINI_FIXTURES.iterdir()}
    assert names == expected | {"README.md", "runs.json"}
