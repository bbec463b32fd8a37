"""Issue 27: what the bridge says about itself matches what it does today.

- `serve --help` said every keepalive is a `: keepalive` comment line; each dialect sends its
  own (Responses a `keepalive` event, Messages `event: ping`, Chat Completions a comment,
  Gemini a blank line). The help now names each, and a real `serve` is checked to send what it
  names while a scripted model is silent.
- The extension's manifest said it serves "the OpenAI Responses API ... for Codex CLI and the
  openai SDKs"; it serves four APIs to many more clients.
"""

from __future__ import annotations

import json
import subprocess
import sys

import aiohttp
from conftest import REPO_ROOT, StartServer

SLOW_SCRIPT = {
    "rules": [
        {
            "match": "slowly",
            "reply": [
                {"type": "text", "text": "one "},
                {"type": "pause", "seconds": 1.0},
                {"type": "text", "text": "two"},
            ],
        }
    ]
}
ASK = "Answer slowly."
# Each dialect: its words in `serve --help`, a streaming request, what its silence looks like.
STREAMS = [
    (
        "a `keepalive` event (Responses",
        "/v1/responses",
        {"model": "sim-echo", "input": ASK, "stream": True},
        b"event: keepalive\n",
    ),
    (
        "an `event: ping` (Anthropic Messages)",
        "/v1/messages",
        {
            "model": "sim-echo",
            "max_tokens": 100,
            "messages": [{"role": "user", "content": ASK}],
            "stream": True,
        },
        b"event: ping\n",
    ),
    (
        "a `: keepalive` comment (Chat Completions)",
        "/v1/chat/completions",
        {"model": "sim-echo", "messages": [{"role": "user", "content": ASK}], "stream": True},
        b"\n: keepalive\n",
    ),
    (
        "a blank line (Gemini)",
        "/v1beta/models/sim-echo:streamGenerateContent?alt=sse",
        {"contents": [{"role": "user", "parts": [{"text": ASK}]}]},
        b"\n\n\n",
    ),
]


def serve_help() -> str:
    done = subprocess.run(
        [sys.executable, "-m", "bridge.cli", "serve", "--help"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return " ".join(done.stdout.split())


async def test_serve_help_names_the_keepalive_each_dialect_sends(
    bridge_server_factory: StartServer,
) -> None:
    text = serve_help()
    assert "`: keepalive` comment line;" not in text
    server = bridge_server_factory("--keepalive-seconds", "0.2", script=SLOW_SCRIPT)
    headers = {"anthropic-version": "2023-06-01"}
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as http:
        for words, path, body, silence in STREAMS:
            assert words in text, (words, text)
            async with http.post(server.root_url + path, json=body, headers=headers) as reply:
                raw = await reply.read()
            assert reply.status == 200, raw
            # What the help names is what the stream sends while the model is silent.
            assert silence in raw.replace(b"\r\n", b"\n"), (path, raw[:2000])


def test_the_extension_says_which_apis_and_clients_it_serves() -> None:
    manifest = json.loads((REPO_ROOT / "editor-client/package.json").read_text("utf-8"))
    description = manifest["description"]
    for api in ("OpenAI Responses", "Anthropic Messages", "Chat Completions", "Gemini"):
        assert api in description, description
    for client in ("Codex CLI", "Claude Code", "Gemini CLI"):
        assert client in description, description
    settings = manifest["contributes"]["configuration"]["properties"]
    assert "Responses endpoint" not in json.dumps(settings)
    readme = (REPO_ROOT / "editor-client/README.md").read_text("utf-8")
    opening = " ".join(readme.split("\n\n")[1].split())
    for api in ("Responses", "Chat Completions", "Anthropic Messages", "Gemini"):
        assert api in opening.replace("*", ""), opening
