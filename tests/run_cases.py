"""Each agent as the `run` tests give it a task: its user's configuration (pointing elsewhere,
so that only `run` can send it to the bridge), its non-interactive command line, the script
rule that makes the simulated model call its tool, and what proves the round trip on disk.

A test helper, not a test module. Every agent runs in an isolated HOME with the switches that
keep it offline (tests/*_cli.py say how each was measured), with its binary's folder first on
PATH: `run` looks it up there, as it does for a user.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aider_cli
import claude_code_cli
import gemini_cli
import opencode_qwen_cli as oq
from aider_scenario import BEFORE, FILE_NAME, WHOLE_FILE, make_repository
from cli_runs import CODEX, ClientBinary, CliRun, client_env, run_cli

ELSEWHERE = "http://127.0.0.1:9"  # where the user's own configuration points: nothing answers
RUN_TIMEOUT = 150.0
MADE = "made.txt"
# What every agent writes (its tool's call) and then answers.
CONTENT = "made through the bridge\n"
FINAL = "The file is made."


@dataclass
class Case:
    agent: str
    binary: ClientBinary
    prompt: str
    args: Callable[[Path], list[str]]  # the agent's own arguments, given its working folder
    tool_rules: Callable[[Path], list[dict[str, Any]]]  # the script rules of its task
    home: Callable[[Path, Path], dict[str, str]]  # prepares HOME (and workdir): env vars
    config_files: Callable[[Path], list[Path]]  # the user's files that must stay as they were
    cleared: tuple[str, ...] = ()
    offline_env: dict[str, str] = field(default_factory=dict)
    model: str | None = None  # --model for run (None: the editor default, sim-echo)


def tool_rule(match: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "match": match,
        "reply": [
            {"type": "text", "text": f"Calling {name}."},
            {"type": "tool_call", "name": name, "arguments": arguments},
        ],
    }


def write_rules(match: str, name: str, path_key: str) -> Callable[[Path], list[dict[str, Any]]]:
    """The agent's file-writing tool `name`, called with the absolute path of made.txt."""
    return lambda work: [tool_rule(match, name, {path_key: str(work / MADE), "content": CONTENT})]


def _codex_home(home: Path, work: Path) -> dict[str, str]:
    folder = home / ".codex"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text(
        'model = "elsewhere-model"\nmodel_provider = "elsewhere"\n\n'
        f'[model_providers.elsewhere]\nname = "Elsewhere"\nbase_url = "{ELSEWHERE}/v1"\n'
        'wire_api = "responses"\n'
    )
    return {"HOME": str(home), "CODEX_HOME": str(folder), "NO_COLOR": "1"}


def _claude_home(home: Path, work: Path) -> dict[str, str]:
    folder = claude_code_cli.prepare_home(home, work)
    settings = {"env": {"ANTHROPIC_BASE_URL": ELSEWHERE, "ANTHROPIC_MODEL": "elsewhere-model"}}
    (folder / "settings.json").write_text(json.dumps(settings, indent=2))
    return {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(folder), **claude_code_cli.OFFLINE_ENV}


def _gemini_home(home: Path, work: Path) -> dict[str, str]:
    settings = json.loads(json.dumps(gemini_cli.OFFLINE_SETTINGS))
    settings["security"]["auth"]["selectedType"] = "oauth-personal"  # Google sign-in: not ours
    gemini_cli.prepare_home(home, settings)
    (home / ".gemini" / ".env").write_text(
        f"GOOGLE_GEMINI_BASE_URL={ELSEWHERE}\nGEMINI_MODEL=elsewhere-model\n"
    )
    env = {"HOME": str(home), "TMPDIR": str(home / "tmp"), **gemini_cli.OFFLINE_ENV}
    return {**env, "XDG_CONFIG_HOME": str(home / ".config")}


def _aider_home(home: Path, work: Path) -> dict[str, str]:
    aider_cli.prepare_home(home, "openai/sim-echo")
    (home / ".aider.conf.yml").write_text(f"openai-api-base: {ELSEWHERE}/v1\nmodel: elsewhere\n")
    work.rmdir()
    make_repository(work, home)
    return {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), **aider_cli.OFFLINE_ENV}


def _opencode_home(home: Path, work: Path) -> dict[str, str]:
    env = oq.opencode_home_env(home)
    folder = Path(env["XDG_CONFIG_HOME"]) / "opencode"
    folder.mkdir(parents=True)
    # With its `$schema`: OpenCode adds that key to a file without it (its own write, not run's).
    config = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {
            "elsewhere": {
                "npm": "@ai-sdk/openai-compatible",
                "options": {"baseURL": f"{ELSEWHERE}/v1", "apiKey": "theirs"},
                "models": {"elsewhere-model": {}},
            }
        },
        "model": "elsewhere/elsewhere-model",
    }
    (folder / "opencode.json").write_text(json.dumps(config, indent=2))
    return {**env, **oq.OPENCODE_OFFLINE_ENV}


def _qwen_home(home: Path, work: Path) -> dict[str, str]:
    entry = {"id": "elsewhere-model", "baseUrl": f"{ELSEWHERE}/v1", "envKey": "THEIR_KEY"}
    oq.write_qwen_settings(
        home,
        {
            "modelProviders": {"openai": [entry]},
            "security": {"auth": {"selectedType": "openai"}},
            "model": {"name": "elsewhere-model"},
        },
    )
    return {"HOME": str(home), "NO_COLOR": "1"}


def _sandbox() -> str:
    # Where Codex's bubblewrap sandbox cannot run: MAESTRO_CODEX_SANDBOX, as test_e2e_codex.py.
    return os.environ.get("MAESTRO_CODEX_SANDBOX", "workspace-write")


CASES = {
    "codex": Case(
        "codex",
        CODEX,
        "codex, make the file",
        lambda work: [
            "exec",
            "--skip-git-repo-check",
            "--sandbox",
            _sandbox(),
            "--color",
            "never",
            "--cd",
            str(work),
            "codex, make the file",
        ],
        lambda work: [
            tool_rule(
                "codex, make the file",
                "exec_command",
                {"cmd": f"printf 'made through the bridge\\n' > {MADE}"},
            )
        ],
        _codex_home,
        lambda home: [home / ".codex" / "config.toml"],
        cleared=("CODEX_", "OPENAI_", "MAESTRO_BRIDGE_"),
    ),
    "claude": Case(
        "claude",
        claude_code_cli.CLAUDE,
        "claude, make the file",
        lambda work: [
            "-p",
            "--permission-mode",
            "dontAsk",
            "--allowedTools",
            "Write",
            "--",
            "claude, make the file",
        ],
        write_rules("claude, make the file", "Write", "file_path"),
        _claude_home,
        lambda home: [home / ".claude" / "settings.json"],
        cleared=claude_code_cli.CLEARED_ENV_PREFIXES,
    ),
    "gemini": Case(
        "gemini",
        gemini_cli.GEMINI,
        "gemini, make the file",
        lambda work: ["--approval-mode", "yolo", "--prompt", "gemini, make the file"],
        write_rules("gemini, make the file", "write_file", "file_path"),
        _gemini_home,
        lambda home: [home / ".gemini" / "settings.json", home / ".gemini" / ".env"],
        cleared=gemini_cli.CLEARED_ENV_PREFIXES,
    ),
    "aider": Case(
        "aider",
        aider_cli.AIDER,
        "Please fix the typo in the greeting.",
        lambda work: [
            *aider_cli.OFFLINE_ARGS,
            *aider_cli.PIPE_ARGS,
            "--yes-always",
            "--message",
            "Please fix the typo in the greeting.",
            FILE_NAME,
        ],
        lambda work: [
            {"match": "# Diffs:", "reply": [{"type": "text", "text": "Fix the typo"}]},
            {"match": "fix the typo", "reply": [{"type": "text", "text": WHOLE_FILE}]},
        ],
        _aider_home,
        lambda home: [home / ".aider.conf.yml"],
        cleared=aider_cli.CLEARED_ENV_PREFIXES,
    ),
    "opencode": Case(
        "opencode",
        oq.OPENCODE,
        "opencode, make the file",
        lambda work: ["run", "--auto", "opencode, make the file"],
        write_rules("opencode, make the file", "write", "filePath"),
        _opencode_home,
        lambda home: [home / ".config" / "opencode" / "opencode.json"],
        cleared=oq.OPENCODE_CLEARED,
    ),
    "qwen": Case(
        "qwen",
        oq.QWEN,
        "qwen, make the file",
        lambda work: ["--approval-mode", "yolo", "qwen, make the file"],
        write_rules("qwen, make the file", "write_file", "file_path"),
        _qwen_home,
        lambda home: [home / ".qwen" / "settings.json"],
        cleared=oq.QWEN_CLEARED,
    ),
}


def all_rules(work_for: Callable[[str], Path]) -> list[dict[str, Any]]:
    """Every agent's rules (each matches its own prompt), then the final answer for the rest
    (tool results, titles, commit messages' follow-ups)."""
    rules = [rule for name, case in CASES.items() for rule in case.tool_rules(work_for(name))]
    return [*rules, {"match": ".", "reply": [{"type": "text", "text": FINAL}]}]


def fingerprint(paths: list[Path]) -> dict[str, str | None]:
    """Each file's SHA-256 (None: not there)."""
    return {
        str(path): hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None
        for path in paths
    }


def run_agent(
    case: Case, root: str, home_env: dict[str, str], work: Path, extra: tuple[str, ...] = ()
) -> CliRun:
    """`maestro-bridge run AGENT --url ROOT [EXTRA] -- ARGS` in `work`, the agent's binary first
    on PATH, the developer's own settings of that agent cleared."""
    binary = Path(case.binary.or_skip())
    path = f"{binary.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = client_env((*case.cleared, "MAESTRO_BRIDGE_"), home_env, {"PATH": path})
    command = [sys.executable, "-m", "bridge.cli", "run", case.agent, "--url", root, *extra]
    command += ["--", *case.args(work)]
    return CliRun(command, *run_cli(command, work, env, RUN_TIMEOUT))


__all__ = ["BEFORE", "FILE_NAME"]
