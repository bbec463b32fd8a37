"""End to end with the real Codex CLI (`codex exec`) against a real `maestro-bridge serve`.

The simulated model is scripted: on the user's prompt it calls Codex's shell tool
`exec_command` with `{"cmd": "echo maestro-hello > out.txt"}`; when the tool's output comes
back ("Process exited with code 0"), it answers "DONE". Codex really runs the command, in its
`workspace-write` sandbox, so the file on disk proves the whole loop worked.

How Codex 0.169 calls the bridge (see also shared/fixtures/clients/codex-*.meta.json): only
`POST /v1/responses`, always `stream: true` with `Accept: text/event-stream`, the key from the
provider's `env_key` as `Authorization: Bearer ...`; one request per model turn (two here),
each carrying the whole history. It does not ask for `/v1/models` in this setup.

The binary is looked up in $MAESTRO_CODEX_BIN, `<repo>/.cache/codex` (where .ci/run installs
it), then PATH. Without it the test fails when $CI is set and is skipped
otherwise. Set MAESTRO_CODEX_SANDBOX=danger-full-access where Codex's bubblewrap sandbox
cannot run (containers without user namespaces).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO_ROOT, BridgeServer, StartServer

CODEX_TIMEOUT = 120.0
API_KEY_ENV = "MAESTRO_CODEX_TEST_KEY"
COMMAND = "echo maestro-hello > out.txt"

RULES = {
    "rules": [
        # (b) The tool's output is the last input: finish. Codex formats it as
        # "Chunk ID: ...\nWall time: ...\nProcess exited with code 0\n...".
        {"match": r"Process exited with code 0", "reply": [{"type": "text", "text": "DONE"}]},
        # (a) The user's prompt: run the command through Codex's shell tool.
        {
            "match": r"write maestro-hello",
            "reply": [
                {"type": "text", "text": "Writing the file."},
                {"type": "tool_call", "name": "exec_command", "arguments": {"cmd": COMMAND}},
            ],
        },
    ]
}


def codex_candidates() -> list[str]:
    candidates = []
    if os.environ.get("MAESTRO_CODEX_BIN"):
        candidates.append(os.environ["MAESTRO_CODEX_BIN"])
    candidates += [
        str(REPO_ROOT / ".cache" / "codex" / "node_modules" / ".bin" / "codex"),
    ]
    return candidates


def find_codex() -> str | None:
    for candidate in codex_candidates():
        if Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("codex")


@pytest.fixture(scope="module")
def codex_bin() -> str:
    found = find_codex()
    if found is None:
        reason = (
            "Codex CLI not found: looked in $MAESTRO_CODEX_BIN, "
            + ", ".join(codex_candidates()[-2:])
            + " and PATH. Install it with "
            "`npm install --prefix .cache/codex @openai/codex@0.169.0`."
        )
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return found


def write_config(codex_home: Path, server: BridgeServer) -> None:
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        f'''model = "sim-echo"
model_provider = "maestro"

[model_providers.maestro]
name = "Maestro Bridge"
base_url = "{server.base_url}"
wire_api = "responses"
env_key = "{API_KEY_ENV}"
''',
        encoding="utf-8",
    )


@pytest.mark.timeout(CODEX_TIMEOUT + 60)
def test_codex_exec_runs_a_shell_tool(
    codex_bin: str, bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    server = bridge_server_factory(script=RULES)
    codex_home = tmp_path / "codex-home"
    write_config(codex_home, server)
    workdir = tmp_path / "work"
    workdir.mkdir()
    last_message = tmp_path / "last-message.txt"
    sandbox = os.environ.get("MAESTRO_CODEX_SANDBOX", "workspace-write")

    # `codex exec` never asks for approval ("approval: never"); the sandbox lets the command
    # write the workdir; the workdir is no git repository.
    flags = ["--skip-git-repo-check", "--sandbox", sandbox, "--color", "never"]
    flags += ["--cd", str(workdir), "--output-last-message", str(last_message)]
    command = [codex_bin, "exec", *flags, "Please write maestro-hello into out.txt."]
    env = {
        **os.environ,
        "CODEX_HOME": str(codex_home),
        API_KEY_ENV: "dummy-key",
        "NO_COLOR": "1",
    }
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY"):
        env.pop(name, None)
    try:
        result = subprocess.run(
            command,
            cwd=workdir,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=CODEX_TIMEOUT,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(
            f"codex exec did not finish within {CODEX_TIMEOUT:.0f} s.\n"
            f"stdout:\n{exc.stdout!r}\nstderr:\n{exc.stderr!r}\n"
            f"bridge stderr:\n{server.stderr_text()}"
        )

    report = (
        f"codex exit code {result.returncode}\nstdout:\n{result.stdout}\n"
        f"stderr:\n{result.stderr}\nbridge stderr:\n{server.stderr_text()}"
    )
    assert result.returncode == 0, report
    out = workdir / "out.txt"
    assert out.is_file(), f"Codex did not run the command: no out.txt\n{report}"
    assert out.read_text().strip() == "maestro-hello", report
    assert "DONE" in result.stdout, report
    assert last_message.read_text(encoding="utf-8").strip() == "DONE", report
    # Codex shows the text of the first turn and the command it ran on stderr.
    assert "Writing the file." in result.stderr, report
    assert COMMAND in result.stderr, report
    server.assert_alive()
