"""Real Claude Code, Codex and Gemini CLI set up as a user sets them up for the editor's tools:
`maestro-bridge configure <agent> --api-key KEY --tools` run in an isolated HOME writes the
bridge's models, its key and its MCP server (`maestro`, at <bridge>/mcp) into the agent's own
configuration, and the agent then runs once, non-interactively, with nothing of the bridge in
its environment (but the variable Codex reads the key from): what it knows of the bridge
comes from the files configure wrote.

Each run is bounded by a timeout and leaves no process behind (cli_runs.run_cli: the agent's
own session, killed whatever happens). A missing agent fails the test under $CI and skips it
elsewhere, as every real-client test does.
"""

from __future__ import annotations

import os
from pathlib import Path

import claude_code_cli
import gemini_cli
from cli_runs import CODEX, CliRun, client_env, run_cli
from configure_runs import run_configure

AGENT_TIMEOUT = 120.0
MCP_SERVER = "maestro"  # the name configure gives the bridge's MCP server

# Where configure tells Codex to read the key, and what Claude Code's and Gemini CLI's MCP
# header names.
API_KEY_ENV = "MAESTRO_BRIDGE_API_KEY"
# What would point Codex elsewhere: its own variables, OpenAI's, and the bridge's key.
CODEX_CLEARED = ("CODEX_", "OPENAI_", API_KEY_ENV)


def configure(target: str, args: list[str], home_env: dict[str, str], cwd: Path) -> str:
    """`maestro-bridge configure TARGET ARGS --tools` with the agent's isolated HOME (and
    nothing of the bridge or the agents in its environment); what it printed (the test fails
    unless it exits 0)."""
    cleared = (*claude_code_cli.CLEARED_ENV_PREFIXES, *gemini_cli.CLEARED_ENV_PREFIXES)
    env = client_env((*cleared, *CODEX_CLEARED), home_env)
    done = run_configure(target, [*args, "--tools"], env, cwd)
    report = f"configure {target} exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    assert done.returncode == 0, report
    return done.stdout


def run_claude_code(
    root_url: str, key: str, model: str, prompt: str, home: Path, workdir: Path
) -> claude_code_cli.ClaudeRun:
    """`claude -p PROMPT` after `configure claude-code --tools`, its MCP server's tools
    allowed (print mode cannot ask)."""
    claude = claude_code_cli.claude_or_skip()
    # Onboarding done and the folder trusted first: configure merges into that .claude.json.
    config_dir = claude_code_cli.prepare_home(home, workdir)
    home_env = {
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(config_dir),
        "XDG_CONFIG_HOME": str(home / ".config"),
    }
    args = ["--url", root_url, "--api-key", key, "--model", model]
    configure("claude-code", args, home_env, workdir)
    command = claude_code_cli.claude_command(
        claude, prompt, extra_args=("--allowedTools", f"mcp__{MCP_SERVER}")
    )
    # The MCP server's header names $MAESTRO_BRIDGE_API_KEY: the agent's environment has it, as
    # VS Code's integrated terminals do.
    key_env = {API_KEY_ENV: key}
    env = client_env(
        claude_code_cli.CLEARED_ENV_PREFIXES, claude_code_cli.OFFLINE_ENV, home_env, key_env
    )
    return claude_code_cli.ClaudeRun(command, *run_cli(command, workdir, env, AGENT_TIMEOUT))


def run_codex(
    base_url: str,
    key: str,
    model: str,
    prompt: str,
    home: Path,
    workdir: Path,
    approve_all: bool = True,
) -> CliRun:
    """`codex exec PROMPT` after `configure codex --tools` (CODEX_HOME in `home`), its MCP
    server's tools approved (`codex exec` never asks: a tool that wants approval is refused,
    "MCP tool call requires approval, but approval policy is never"; measured with Codex
    0.169.0, only a tool annotated `readOnlyHint: true` runs without: the bridge's `editor_*`
    tools are, the editor's own are not); `approve_all=False` leaves Codex's defaults. Its
    stdout is the final answer."""
    codex = CODEX.or_skip()
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    home_env = {"HOME": str(home), "CODEX_HOME": str(codex_home)}
    args = ["--base-url", base_url, "--api-key", key, "--model", model]
    configure("codex", args, home_env, workdir)
    # Where Codex's bubblewrap sandbox cannot run (containers without user namespaces):
    # MAESTRO_CODEX_SANDBOX=danger-full-access, as in test_e2e_codex.py.
    sandbox = os.environ.get("MAESTRO_CODEX_SANDBOX", "workspace-write")
    flags = ["--skip-git-repo-check", "--sandbox", sandbox, "--color", "never"]
    if approve_all:  # as `--allowedTools mcp__maestro` for Claude Code: every tool may run
        flags += ["-c", f'mcp_servers.{MCP_SERVER}.default_tools_approval_mode="approve"']
    command = [codex, "exec", *flags, "--cd", str(workdir), prompt]
    # configure wrote the variable's name (the provider's env_key, the MCP server's
    # bearer_token_env_var), never the key: the user exports it.
    env = client_env(CODEX_CLEARED, {**home_env, API_KEY_ENV: key, "NO_COLOR": "1"})
    return CliRun(command, *run_cli(command, workdir, env, AGENT_TIMEOUT))


def run_gemini_cli(
    root_url: str, key: str, model: str, prompt: str, home: Path, workdir: Path
) -> gemini_cli.GeminiRun:
    """`gemini --prompt PROMPT` after `configure gemini --tools`, in YOLO mode (print mode
    cannot ask before a tool runs)."""
    gemini = gemini_cli.gemini_or_skip()
    # The offline settings first: configure merges its keys into that settings.json.
    gemini_cli.prepare_home(home)
    home_env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "TMPDIR": str(home / "tmp"),
    }
    configure("gemini", ["--url", root_url, "--api-key", key, "--model", model], home_env, workdir)
    command = gemini_cli.gemini_command(gemini, prompt, approval_mode=gemini_cli.YOLO)
    key_env = {API_KEY_ENV: key}  # the MCP server's header names it (as claude's above)
    env = client_env(gemini_cli.CLEARED_ENV_PREFIXES, gemini_cli.OFFLINE_ENV, home_env, key_env)
    return gemini_cli.GeminiRun(command, *run_cli(command, workdir, env, AGENT_TIMEOUT))
