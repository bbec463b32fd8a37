"""What `maestro-bridge serve` loads before its endpoint answers, and what it must not.

Start-up time and idle memory are mostly the modules imported (docs/benchmarks.md, "start"
and "RSS idle"): what only some requests need is imported when one comes. Each process of
`serve` is rebuilt here in a fresh interpreter by the same calls that start it: the language
server (`maestro-bridge lsp`: its server and its HTTP application) and the headless editor
(`serve`'s flags checked, the editor built, a chat answered). Speed itself is measured in
bench/, not here.
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.request
import uuid
from pathlib import Path

from conftest import REPO_ROOT, running_bridge_server
from processes import SESSION_ENV, environ, is_running, kill_tree, process_table, run

# Only a request that needs them imports these (each named with who needs it).
LATER = {
    "jsonschema": "structured output (bridge/core/schema_check.py)",
    "referencing": "structured output, through jsonschema",
    "rpds": "structured output, through jsonschema",
    "regex": "structured output's `pattern` (bridge/core/schema_check.py)",
    "bridge.core.schema_check": "structured output",
    "tomlkit": "`configure codex` only",
    "bridge.configure.codex_command": "`configure codex` only",
    "bridge.configure.claude_command": "`configure claude-code` only",
    "bridge.configure.gemini_command": "`configure gemini` only",
    "mcp_types": "the editor's tools at /mcp (--tools)",
    "bridge.mcp.server": "the editor's tools at /mcp (--tools)",
    "bridge.mcp.calls": "the editor's tools at /mcp (--tools)",
    "headless_editor.sim_language": "the simulated editor's language tools",
    "headless_editor.py_analysis": "the simulated editor's language tools",
}

# What only a chat, a count or the dialects' smaller endpoints need: each dialect's handlers
# (bridge/<dialect>/handlers.py) are imported on their first request, or by the warm-up the
# language server runs once its endpoint listens (bridge/http/lazy_handler.py). The model list,
# the first request of every client, needs none of them.
DEFERRED = {
    "bridge.responses.handlers": "POST /v1/responses and its WebSocket mode",
    "bridge.responses.endpoints": "/v1/responses/input_tokens and the stored-response paths",
    "bridge.responses.body": "the Responses request's decoding",
    "bridge.responses.websocket": "the Responses WebSocket mode",
    "bridge.anthropic.handlers": "POST /v1/messages and count_tokens",
    "bridge.anthropic.body": "the Messages request's decoding",
    "bridge.chat.handlers": "POST /v1/chat/completions",
    "bridge.chat.body": "the Chat Completions request's decoding",
    "bridge.gemini.handlers": "the Gemini model actions",
    "bridge.gemini.body": "the Gemini request's decoding",
    "bridge.core.chat_request": "the editor's chat request every dialect converts to",
    "bridge.http.sse_response": "a streamed answer",
}

# What the headless editor's process never needs: the language server runs the HTTP endpoint
# and checks the options (`serve`'s flags); the editor's types are msgspec Structs
# (headless_editor/chat_types.py, bridge/core/parts.py). Each costs its idle memory.
NOT_IN_THE_EDITOR = {
    "pydantic": "the bridge's settings and request models (7-12 MiB)",
    "pydantic_core": "pydantic",
    "bridge.settings": "the language server checks the options",
    "bridge.core.backend": "the bridge's pydantic models (bridge/core/parts.py has the parts)",
    "headless_editor.script": "`serve --script` only (read with pydantic)",
    "aiohttp": "the language server's HTTP endpoint",
    "pygls": "the language server",
    "lsprotocol": "the language server",
    "attrs": "pygls's message classes (lsp/raw_messages.py)",
    "sqlite3": "the usage ledger: the language server writes it, `maestro-bridge usage` reads it",
    "hashlib": "an image in a prompt (headless_editor/prompt_cache.py): OpenSSL's libcrypto",
}
# Neither process speaks TLS (bridge/plain_http.py): ssl and OpenSSL's libssl stay unloaded.
NO_TLS = {"ssl", "_ssl"}

# Both rebuilds list the modules imported (not those refused: bridge/plain_http.py).
_LOADED = "print(json.dumps(sorted(name for name, module in sys.modules.items() if module)))"

_LANGUAGE_SERVER = """
import json, sys
import bridge.cli  # what `maestro-bridge lsp` runs
from bridge.plain_http import without_tls

without_tls()  # as main() does
from lsp.main import configure_logging
from lsp.server import create_server
from bridge.app import create_app
from bridge.settings import BridgeSettings

configure_logging()
server = create_server()
settings = BridgeSettings.from_options({"port": 0, "usage": {"database": sys.argv[1]}})
app = create_app(server.backend, settings, server.tools)
"""

_WARMED_UP = """
import asyncio
from bridge.http.lazy_handler import warm_up

asyncio.run(warm_up(app))  # as the language server does once it listens (lsp/endpoint.py)
"""

_HEADLESS_EDITOR = (
    """
import json, sys
from bridge.cli import _parser, serve_options
from bridge.plain_http import without_tls

without_tls()  # as main() does

args = _parser().parse_args(["serve", "--port", "0", "--usage-db", sys.argv[1]])
from bridge.serve_run import prepare_headless

prepared = prepare_headless(args, serve_options(args))
from bridge.stop_signals import install_stop_handlers
from headless_editor.editor import HeadlessEditor

HeadlessEditor(script=prepared.script)

import asyncio
from headless_editor.chat_types import chat_request
from headless_editor.simulated_model import SimulatedModel

async def answer():
    text = {"type": "text", "value": "hi"}
    request = chat_request({"model": "sim-echo", "messages": [{"role": "user", "content": [text]}]})
    return [part async for part in SimulatedModel().respond(request)]

assert asyncio.run(answer())
"""
    + _LOADED
)


def _modules(code: str, usage_db: Path) -> set[str]:
    result = run(
        [sys.executable, "-c", code, str(usage_db)],
        cwd=REPO_ROOT,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout.splitlines()[-1]))


def _too_early(modules: set[str]) -> list[str]:
    return sorted(f"{name} ({why})" for name, why in LATER.items() if name in modules)


def test_the_language_server_starts_without_what_only_some_requests_need(
    tmp_path: Path,
) -> None:
    modules = _modules(_LANGUAGE_SERVER + _LOADED, tmp_path / "usage.sqlite")
    # The rebuild is what starts the endpoint: aiohttp, the dialects, pygls are all there.
    assert {"aiohttp.web", "bridge.app", "bridge.anthropic.routes", "pygls"} <= modules
    assert _too_early(modules) == []
    assert NO_TLS & modules == set()
    assert sorted(DEFERRED.keys() & modules) == []


def test_the_warm_up_imports_the_dialects_handlers(tmp_path: Path) -> None:
    modules = _modules(_LANGUAGE_SERVER + _WARMED_UP + _LOADED, tmp_path / "usage.sqlite")
    assert sorted(DEFERRED.keys() - modules) == []
    assert _too_early(modules) == []  # what only some requests need still waits for them


# Refused by the router or the middlewares, before any handler runs: each in its dialect's
# envelope while the dialect's handlers are still unloaded.
_REFUSED_EARLY = """
import asyncio
from aiohttp import ClientSession, web

ASKED = [
    ("GET", "/v1/messages", {}),  # 405, Anthropic's envelope
    ("POST", "/v1/messages/none", {}),  # 404, Anthropic's envelope
    ("GET", "/v1/chat/completions", {}),  # 405, OpenAI's envelope
    ("POST", "/v1beta/models", {}),  # 405, Google's envelope
    ("DELETE", "/v1/models/x", {"anthropic-version": "2023-06-01"}),  # 405, by the header
]

async def ask():
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    answers = []
    try:
        async with ClientSession(f"http://127.0.0.1:{runner.addresses[0][1]}") as session:
            for method, path, headers in ASKED:
                async with session.request(method, path, headers=headers) as reply:
                    answers.append([reply.status, await reply.json()])
    finally:
        await runner.cleanup()
    return answers

print(json.dumps(asyncio.run(ask())))
"""


def test_errors_before_the_handlers_load_keep_each_dialects_envelope(tmp_path: Path) -> None:
    result = run(
        [sys.executable, "-c", _LANGUAGE_SERVER + _REFUSED_EARLY + _LOADED, str(tmp_path / "u")],
        cwd=REPO_ROOT,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert result.returncode == 0, result.stderr
    answers, modules = map(json.loads, result.stdout.splitlines()[-2:])
    assert [status for status, _ in answers] == [405, 404, 405, 405, 405]
    anthropic = [body for _, body in answers[:2]] + [answers[4][1]]
    assert all(body["type"] == "error" and "type" in body["error"] for body in anthropic)
    assert answers[2][1]["error"]["type"] == "invalid_request_error"  # OpenAI's
    assert answers[3][1]["error"]["code"] == 405 and "status" in answers[3][1]["error"]  # Google's
    assert sorted(DEFERRED.keys() & set(modules)) == []


def test_the_headless_editor_starts_without_what_only_some_requests_need(
    tmp_path: Path,
) -> None:
    modules = _modules(_HEADLESS_EDITOR, tmp_path / "usage.sqlite")
    assert {"headless_editor.editor", "headless_editor.simulated_model"} <= modules
    assert _too_early(modules) == []


def test_the_headless_editor_runs_without_the_language_servers_libraries(
    tmp_path: Path,
) -> None:
    modules = _modules(_HEADLESS_EDITOR, tmp_path / "usage.sqlite")
    assert "msgspec" in modules  # the rebuild ran: it decoded a request and answered it
    unneeded = [f"{name} ({why})" for name, why in NOT_IN_THE_EDITOR.items() if name in modules]
    assert unneeded == []
    assert NO_TLS & modules == set()


def _imported(stderr: str) -> set[str]:
    """The modules named by `-X importtime` lines (both processes write to the same stderr)."""
    return {
        line.split("|")[2].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }


def test_serve_and_its_language_server_answer_without_tls() -> None:
    """The real thing, started as users start it (main() refuses ssl in both processes): it
    answers a chat, and neither process imported ssl on the way."""
    with running_bridge_server(env={"PYTHONPROFILEIMPORTTIME": "1"}) as server:
        body = json.dumps({"model": "sim-echo", "messages": [{"role": "user", "content": "hi"}]})
        request = urllib.request.Request(
            f"{server.base_url}/chat/completions",
            data=body.encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as reply:
            assert "You said: hi" in json.loads(reply.read())["choices"][0]["message"]["content"]
        imported = _imported(server.stderr_text())
    # Both processes' imports are there: the editor's and the language server's.
    assert {"headless_editor.editor", "lsp.server", "aiohttp.web"} <= imported
    # `-X importtime` lists a refused import too (asyncio tries `ssl`, and is refused): `_ssl`,
    # the first thing ssl.py imports (OpenSSL's libssl), is there only if ssl.py ran.
    assert "ssl" in imported and "_ssl" not in imported


def _marked_processes(marker: str) -> list[int]:
    """Running processes started with `marker` as their session (Linux: /proc environ)."""
    return [
        pid
        for pid, _ in process_table()
        if is_running(pid) and environ(pid).get(SESSION_ENV) == marker
    ]


def test_refused_flags_leave_no_language_server_behind() -> None:
    """`serve` spawns its language server before it checks its flags (the server's imports
    run meanwhile); flags it refuses stop that server before `serve` exits, not later."""
    marker = uuid.uuid4().hex  # this run's processes alone, whatever else the session runs
    result = run(
        [sys.executable, "-m", "bridge.cli", "serve", "--port", "0", "--max-concurrent", "0"],
        cwd=REPO_ROOT,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT), SESSION_ENV: marker},
    )
    assert result.returncode == 2, result
    assert "maxConcurrentRequests" in result.stderr
    assert "Listening on" not in result.stdout
    # At once: a language server left to find its closed stdin would still be importing.
    left = _marked_processes(marker)
    for pid in left:  # a failing run still stops what it started (outside the session's mark)
        kill_tree(pid)
    assert left == []


def _import_lines(stderr: str) -> dict[str, int]:
    """Each module named by an `-X importtime` line, with the number of its first line."""
    lines: dict[str, int] = {}
    for number, line in enumerate(stderr.splitlines()):
        if line.startswith("import time:") and line.count("|") == 2:
            lines.setdefault(line.split("|")[2].strip(), number)
    return lines


def test_serve_listens_before_the_handlers_load_and_warms_them_up() -> None:
    """The real thing: the language server announces its endpoint before it imports any
    dialect's handlers, and imports them all soon after (the warm-up), a chat or not."""
    with running_bridge_server(env={"PYTHONPROFILEIMPORTTIME": "1"}) as server:
        with urllib.request.urlopen(f"{server.base_url}/models", timeout=30) as reply:
            assert json.loads(reply.read())["data"]
        deadline = time.monotonic() + 30
        while DEFERRED.keys() - _import_lines(server.stderr_text()).keys():
            assert time.monotonic() < deadline, "the warm-up did not import every handler"
            time.sleep(0.1)
        stderr = server.stderr_text()
    # The language server's log line, on the same stderr as its imports (in order).
    listening = next(
        number
        for number, line in enumerate(stderr.splitlines())
        if "lsp.endpoint: Listening on" in line
    )
    imported = _import_lines(stderr)
    assert sorted(name for name in DEFERRED if imported[name] < listening) == []
