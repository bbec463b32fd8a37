"""The real Gemini CLI reads what `configure gemini` wrote into `~/.gemini`, and nothing else.

A real `serve` answers; a small forwarder in front of it records each request (its path and
whether it carried the key) and passes it on unchanged. `maestro-bridge configure gemini`
runs as a separate process with HOME in a temp folder whose `.gemini/.env` already has
entries of its own (a comment, an old `export GEMINI_MODEL`, a quoted value over several
lines that contains `GEMINI_MODEL=`), so the merge is read back by Gemini CLI's own dotenv.
Gemini CLI then runs with that HOME and none of the variables in its environment, and must
send its request to the bridge for the model the .env names, with the key it names (the
bridge's own, or the placeholder when it wants none), and finish its turn on the answer.
(Answering well is the Gemini dialect's job, tested with it.)
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import processes
import pytest
from aiohttp import ClientSession, web
from cli_runs import binary_or_skip
from conftest import BridgeServer, running_bridge_server
from thread_server import serving

from bridge.configure.gemini_command import PLACEHOLDER_KEY
from bridge.configure.gemini_env import parse_dotenv

GEMINI_TIMEOUT = 120.0
MODEL = "gemini-2.5-pro"  # an alias of sim-echo on the bridge below
# Variables that would steer Gemini CLI around the files under test.
CLEARED_PREFIXES = ("GEMINI_", "GOOGLE_", "MAESTRO_BRIDGE", "CLOUD_SHELL")

OLD_ENV = """\
# kept: my own notes
export GEMINI_MODEL=gemini-1.5-flash # the old model
NOTES="line one
GEMINI_MODEL=not-an-entry"
"""
OLD_SETTINGS = (
    '{"general": {"disableAutoUpdate": true}, "privacy": {"usageStatisticsEnabled": false}}'
)


def gemini_or_skip() -> str:
    found = os.environ.get("MAESTRO_GEMINI_BIN") or shutil.which("gemini")
    reason = "Gemini CLI not found: set $MAESTRO_GEMINI_BIN (scripts/test installs it)."
    return binary_or_skip(found if found and os.path.exists(found) else None, reason)


@pytest.fixture(params=[None, "bridge-key-1"], ids=["no-key", "api-key"])
def key(request: pytest.FixtureRequest) -> str | None:
    """The API key the bridge wants, if any."""
    value: str | None = request.param
    return value


@pytest.fixture
def bridge(key: str | None) -> Iterator[BridgeServer]:
    env = {"MAESTRO_BRIDGE_API_KEY": key} if key else None
    with running_bridge_server("--model-alias", f"{MODEL}=sim-echo", env=env) as server:
        yield server


@pytest.fixture
def forwarder(bridge: BridgeServer) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """(root URL, what it forwarded) of a pass-through recorder in front of the bridge; a
    request is recorded with the bridge's answer, so one that never reached it is not."""
    seen: list[dict[str, Any]] = []

    async def forward(request: web.Request) -> web.Response:
        body = await request.read()
        headers = {k: v for k, v in request.headers.items() if k.lower() not in ("host",)}
        async with (
            ClientSession() as session,
            session.request(
                request.method, bridge.root_url + request.path_qs, data=body, headers=headers
            ) as answer,
        ):
            data = await answer.read()
            seen.append(
                {
                    "method": request.method,
                    "path": request.path,
                    "key_sent": request.headers.get("x-goog-api-key"),
                    "status": answer.status,
                    "answer": data[:300].decode(errors="replace"),
                }
            )
            kept = {k: v for k, v in answer.headers.items() if k.lower() == "content-type"}
            return web.Response(status=answer.status, body=data, headers=kept)

    app = web.Application()
    app.router.add_route("*", "/{path:.*}", forward)
    with serving(app, "gemini-forwarder") as url:
        yield url, seen


def test_gemini_cli_sends_its_request_to_the_bridge_the_files_name(
    forwarder: tuple[str, list[dict[str, Any]]], key: str | None, tmp_path: Path
) -> None:
    gemini = gemini_or_skip()
    url, seen = forwarder
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / ".env").write_text(OLD_ENV)
    (home / ".gemini" / "settings.json").write_text(OLD_SETTINGS)
    work = home / "project"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(CLEARED_PREFIXES)}
    env["HOME"] = str(home)

    key_args = ["--api-key", key] if key else []
    command = ["configure", "gemini", "--url", url, "--model", MODEL, *key_args]
    configure = processes.run(
        [sys.executable, "-m", "bridge.cli", *command],
        cwd=tmp_path,
        env=env,
        timeout=60,
    )
    assert configure.returncode == 0, configure
    assert parse_dotenv((home / ".gemini" / ".env").read_text())["NOTES"].startswith("line one")
    seen.clear()  # the models list configure asked for

    # A new folder is not trusted yet, and Gemini CLI reads ~/.gemini/.env only in trusted
    # ones: trusting it this way touches no file.
    env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
    result = processes.run([gemini, "-p", "say hi"], cwd=work, env=env, timeout=GEMINI_TIMEOUT)
    report = (
        f"requests: {seen}\nexit {result.returncode}\nstdout:\n{result.stdout}\n"
        f"stderr:\n{result.stderr[-3000:]}"
    )
    generate = [r for r in seen if r["path"].startswith("/v1beta/models/")]
    assert generate, report
    assert {r["path"].split(":")[0] for r in generate} == {f"/v1beta/models/{MODEL}"}, report
    assert {r["key_sent"] for r in generate} == {key or PLACEHOLDER_KEY}, report
    # Each was recorded once the bridge had answered it: it reached the bridge.
    # The bridge answered each (the Gemini dialect), and Gemini CLI finished its turn.
    assert {r["status"] for r in generate} == {200}, report
    assert result.returncode == 0, report
