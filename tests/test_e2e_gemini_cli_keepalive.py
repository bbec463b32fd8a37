"""Gemini CLI through a slow model: the blank lines the bridge writes while the model is silent
do not break its stream (an SSE comment would stall Google's SDKs). The CLI's own harness and
tool loops are elsewhere; this checks only the keepalive, the answer side's choice of frame.

The binary: $MAESTRO_GEMINI_BIN, else `<repo>/.cache/gemini-cli/node_modules/.bin/gemini`;
skipped when neither exists (failed under $CI).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import StartServer
from gemini_http import pause, script_rule, text
from processes import run

REPO = Path(__file__).resolve().parents[1]


def gemini_or_skip() -> str:
    candidates = [os.environ.get("MAESTRO_GEMINI_BIN", "")]
    candidates.append(str(REPO / ".cache" / "gemini-cli" / "node_modules" / ".bin" / "gemini"))
    for candidate in candidates:
        if candidate and Path(candidate).exists():
            return candidate
    reason = "Gemini CLI not found: set $MAESTRO_GEMINI_BIN or install it in .cache/gemini-cli"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def test_gemini_cli_reads_a_stream_with_keepalive_blank_lines(
    bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    gemini = gemini_or_skip()
    script = {
        "rules": [script_rule("slow", text("Thinking it over"), pause(3), text(" and done."))]
    }
    server = bridge_server_factory(
        "--keepalive-seconds", "0.5", "--default-model", "sim-echo", script=script
    )
    home, work = tmp_path / "home", tmp_path / "work"
    (home / ".gemini").mkdir(parents=True)
    work.mkdir()
    (home / ".gemini" / "settings.json").write_text(
        '{"security": {"auth": {"selectedType": "gemini-api-key"}}}', encoding="utf-8"
    )
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "GOOGLE_GEMINI_BASE_URL": server.root_url,
        "GEMINI_API_KEY": "unused",
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
        "NO_COLOR": "1",
    }
    done = run([gemini, "-m", "sim-echo", "-p", "slow please"], timeout=150, cwd=work, env=env)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    assert done.stdout.strip() == "Thinking it over and done.", done.stderr
