"""The real Codex CLI in WebSocket mode (`supports_websockets = true` on its provider).

Codex 0.169 then opens one WebSocket to `/v1/responses`, warms it up with `generate: false`,
and continues each turn with `previous_response_id` and only the new items. The scripted model
makes it run a shell command (see tests/test_e2e_codex.py); the file on disk proves the loop
worked, and the bridge's debug log shows which frames Codex sent (no prompt text in it).
Like the HTTP Codex test, it fails when $CI is set and the binary is missing.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from conftest import StartServer
from processes import run
from test_e2e_codex import API_KEY_ENV, CODEX_TIMEOUT, COMMAND, RULES, find_codex, write_config


@pytest.mark.timeout(CODEX_TIMEOUT + 60)
def test_codex_exec_over_websocket(bridge_server_factory: StartServer, tmp_path: Path) -> None:
    codex = find_codex()
    if codex is None:
        if os.environ.get("CI"):
            pytest.fail("Codex CLI not found (see tests/test_e2e_codex.py)")
        pytest.skip("Codex CLI not found (see tests/test_e2e_codex.py)")
    server = bridge_server_factory(script=RULES, env={"MAESTRO_BRIDGE_LOG_LEVEL": "DEBUG"})
    codex_home = tmp_path / "codex-home"
    write_config(codex_home, server, "sim-echo")
    with (codex_home / "config.toml").open("a", encoding="utf-8") as config:
        config.write("supports_websockets = true\n")
    workdir = tmp_path / "work"
    workdir.mkdir()
    sandbox = os.environ.get("MAESTRO_CODEX_SANDBOX", "workspace-write")
    flags = [
        "--skip-git-repo-check",
        "--sandbox",
        sandbox,
        "--color",
        "never",
        "--cd",
        str(workdir),
    ]
    env = {**os.environ, "CODEX_HOME": str(codex_home), API_KEY_ENV: "dummy-key", "NO_COLOR": "1"}
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY"):
        env.pop(name, None)
    result = run(
        [codex, "exec", *flags, "Please write maestro-hello into out.txt."],
        cwd=workdir,
        env=env,
        timeout=CODEX_TIMEOUT,
    )
    log = server.stderr_text()
    report = (
        f"codex exit {result.returncode}\nstdout:\n{result.stdout}\n"
        f"stderr:\n{result.stderr}\nbridge:\n{log}"
    )
    assert result.returncode == 0, report
    assert (workdir / "out.txt").read_text().strip() == "maestro-hello", report
    assert "DONE" in result.stdout, report
    assert COMMAND in result.stderr, report

    frames = re.findall(r"response\.create: generate=(\w+) previous_response_id=(\S+)", log)
    assert log.count("WebSocket connection opened") == 1, report
    assert frames[0] == ("False", "None"), report  # the warmup
    # Every later turn continues the one before it on the same connection.
    assert len(frames) >= 3 and all(prev.startswith("resp_AM-") for _, prev in frames[1:]), report
    assert "previous_response_not_found" not in log, report
    server.assert_alive()
