"""End to end with the real Codex CLI (`codex exec`) against a real `maestro-bridge serve`.

The simulated model is scripted (`--script`): rules keyed on the last input item make it call
Codex's tools, and Codex really runs them in its `workspace-write` sandbox, so files on disk
prove each loop worked.

1. `sim-echo` by its own name: on the prompt the model calls the shell tool `exec_command`
   (`{"cmd": "echo maestro-hello > out.txt"}`); on the tool's output ("Process exited with
   code 0") it answers "DONE".
2. `gpt-5.5`, served through `--model-alias gpt-5.5=sim-echo`: Codex picks its tools by the
   model name from its own catalog, and for gpt-5.5 it offers `exec_command` as a function
   tool and `apply_patch` as a custom (freeform, lark grammar) tool (see
   tests/fixtures/clients/codex-patch-1.json); for `sim-echo`, a name it does not know, it
   offers no `apply_patch` at all. The model runs a command, then edits a file
   with `apply_patch` (the raw patch as the custom tool's input), then answers "DONE".

How Codex 0.169 calls the bridge (see also tests/fixtures/clients/codex-*.meta.json): only
`POST /v1/responses`, always `stream: true` with `Accept: text/event-stream`, the key from the
provider's `env_key` as `Authorization: Bearer ...`; one request per model turn, each carrying
the whole history. It does not ask for `/v1/models` in this setup.

The binary is looked up in $MAESTRO_CODEX_BIN, `<repo>/.cache/codex` (where .ci/run installs
it), then PATH. Without it the test fails when $CI is set and is skipped
otherwise. Set MAESTRO_CODEX_SANDBOX=danger-full-access where Codex's bubblewrap sandbox
cannot run (containers without user namespaces).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import pytest
from conftest import REPO_ROOT, StartServer
from processes import run

CODEX_TIMEOUT = 120.0
API_KEY_ENV = "MAESTRO_CODEX_TEST_KEY"
COMMAND = "echo maestro-hello > out.txt"
# Codex formats a command's result as "Chunk ID: ...\nWall time: ...\nProcess exited with
# code 0\n..." and a patch's as "...Success. Updated the following files:\nM notes.txt\n".
COMMAND_DONE = r"Process exited with code 0"
PATCH_DONE = r"Success\. Updated the following files"

RULES = {
    "rules": [
        # (b) The tool's output is the last input: finish.
        {"match": COMMAND_DONE, "reply": [{"type": "text", "text": "DONE"}]},
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

PATCH = """*** Begin Patch
*** Update File: notes.txt
@@
 first line
-old line
+patched by maestro
*** End Patch
"""

PATCH_RULES = {
    "rules": [
        # (c) apply_patch's output: finish.
        {"match": PATCH_DONE, "reply": [{"type": "text", "text": "DONE"}]},
        # (b) The command's output: edit notes.txt (a custom tool takes the raw string).
        {
            "match": COMMAND_DONE,
            "reply": [
                {"type": "text", "text": "Now the patch."},
                {"type": "tool_call", "name": "apply_patch", "arguments": PATCH},
            ],
        },
        # (a) The prompt: run a command first.
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
    return codex_or_skip()


def codex_or_skip() -> str:
    """The Codex binary; else the test fails under $CI and is skipped otherwise."""
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


class Bridge(Protocol):
    """What Codex's run needs of a bridge: a `serve` process or a VS Code window's."""

    @property
    def base_url(self) -> str: ...

    def stderr_text(self) -> str: ...


def write_config(codex_home: Path, server: Bridge, model: str, provider_extra: str = "") -> None:
    """`provider_extra`: more TOML lines for the provider (timeouts, retries)."""
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        f'''model = "{model}"
model_provider = "maestro"

[model_providers.maestro]
name = "Maestro Bridge"
base_url = "{server.base_url}"
wire_api = "responses"
env_key = "{API_KEY_ENV}"
{provider_extra}''',
        encoding="utf-8",
    )


@dataclass
class CodexRun:
    result: subprocess.CompletedProcess[str]
    workdir: Path
    last_message: str
    report: str  # everything needed to understand a failure


def run_codex(
    codex_bin: str,
    server: Bridge,
    tmp_path: Path,
    model: str,
    prompt: str,
    files: dict[str, str] | None = None,
    provider_extra: str = "",
    check: bool = True,
    extra_flags: tuple[str, ...] = (),
) -> CodexRun:
    """`codex exec PROMPT` with an isolated CODEX_HOME, in a fresh workdir holding `files`;
    `check`: fail the test unless Codex exits 0; `extra_flags` such as `--json`."""
    codex_home = tmp_path / "codex-home"
    write_config(codex_home, server, model, provider_extra)
    workdir = tmp_path / "work"
    workdir.mkdir()
    for name, text in (files or {}).items():
        (workdir / name).write_text(text, encoding="utf-8")
    last_message = tmp_path / "last-message.txt"
    sandbox = os.environ.get("MAESTRO_CODEX_SANDBOX", "workspace-write")

    # `codex exec` never asks for approval ("approval: never"); the sandbox lets the command
    # write the workdir; the workdir is no git repository.
    flags = ["--skip-git-repo-check", "--sandbox", sandbox, "--color", "never"]
    flags += ["--cd", str(workdir), "--output-last-message", str(last_message), *extra_flags]
    command = [codex_bin, "exec", *flags, prompt]
    env = {
        **os.environ,
        "CODEX_HOME": str(codex_home),
        API_KEY_ENV: "dummy-key",
        "NO_COLOR": "1",
    }
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY"):
        env.pop(name, None)
    try:
        # `codex` is a Node launcher of the native binary: a timeout ends both.
        result = run(command, cwd=workdir, env=env, timeout=CODEX_TIMEOUT)
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
    if check:
        assert result.returncode == 0, report
    text = last_message.read_text(encoding="utf-8") if last_message.is_file() else ""
    return CodexRun(result, workdir, text.strip(), report)


@pytest.mark.timeout(CODEX_TIMEOUT + 60)
def test_codex_exec_runs_a_shell_tool(
    codex_bin: str, bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    server = bridge_server_factory(script=RULES)
    run = run_codex(
        codex_bin, server, tmp_path, "sim-echo", "Please write maestro-hello into out.txt."
    )
    report = run.report
    out = run.workdir / "out.txt"
    assert out.is_file(), f"Codex did not run the command: no out.txt\n{report}"
    assert out.read_text().strip() == "maestro-hello", report
    assert "DONE" in run.result.stdout, report
    assert run.last_message == "DONE", report
    # Codex shows the text of the first turn and the command it ran on stderr.
    assert "Writing the file." in run.result.stderr, report
    assert COMMAND in run.result.stderr, report
    server.assert_alive()


@pytest.mark.timeout(CODEX_TIMEOUT + 60)
def test_codex_gpt55_alias_runs_exec_command_and_apply_patch(
    codex_bin: str, bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    server = bridge_server_factory("--model-alias", "gpt-5.5=sim-echo", script=PATCH_RULES)
    run = run_codex(
        codex_bin,
        server,
        tmp_path,
        "gpt-5.5",
        "Please write maestro-hello into out.txt, then fix notes.txt.",
        files={"notes.txt": "first line\nold line\n"},
    )
    report = run.report
    assert (run.workdir / "out.txt").read_text().strip() == "maestro-hello", report
    notes = (run.workdir / "notes.txt").read_text()
    assert notes == "first line\npatched by maestro\n", f"notes.txt: {notes!r}\n{report}"
    assert run.last_message == "DONE", report
    assert "Now the patch." in run.result.stderr, report
    server.assert_alive()
