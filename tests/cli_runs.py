"""What every real command-line client in the tests shares (Claude Code, Aider, Gemini CLI):
finding its binary, skipping or failing without it, an environment cleared of the developer's
own settings, and one run that leaves no process behind.

A run starts the client in a session of its own (its own process group). Whatever happens (an
exit, a timeout, an exception in the caller's thread), the client, everything it started and
every process left in its session are killed before `run_cli` returns or raises.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from processes import HAS_PROC, kill_tree

from headless_editor.process_group import own_group


@dataclass(frozen=True)
class ClientBinary:
    """Where a client's binary is looked for, and what to say when it is nowhere."""

    variable: str  # the environment variable that names it
    cached_bin: Path  # where scripts/test installs it
    name: str  # its name on PATH
    label: str  # the client, as the skip message names it
    install: str  # the command that installs it at `cached_bin`

    def candidates(self) -> list[str]:
        return binary_candidates(self.variable, self.cached_bin)

    def find(self) -> str | None:
        return find_binary(self.candidates(), self.name)

    def or_skip(self) -> str:
        """The binary; else the test fails under $CI and is skipped otherwise."""
        reason = (
            f"{self.label} not found: looked in ${self.variable}, {self.candidates()[-1]} and "
            f"PATH. Install it with `{self.install}` (scripts/test does)."
        )
        return binary_or_skip(self.find(), reason)


CODEX = ClientBinary(
    "MAESTRO_CODEX_BIN",
    Path(__file__).resolve().parents[1] / ".cache" / "codex" / "node_modules" / ".bin" / "codex",
    "codex",
    "Codex CLI",
    "npm install --prefix .cache/codex @openai/codex@0.169.0",
)


def binary_candidates(variable: str, cached_bin: Path) -> list[str]:
    """Where a client's binary may be: $`variable` when set, then where scripts/test installs it."""
    candidates = []
    if os.environ.get(variable):
        candidates.append(os.environ[variable])
    candidates.append(str(cached_bin))
    return candidates


def client_env(
    cleared_prefixes: tuple[str, ...],
    *layers: dict[str, str] | None,
    any_case: bool = False,
) -> dict[str, str]:
    """Our environment minus the variables named with `cleared_prefixes` (with `any_case`,
    matched in upper case), then each of `layers` on top, in order."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not (name.upper() if any_case else name).startswith(cleared_prefixes)
    }
    for layer in layers:
        env.update(layer or {})
    return env


def given_options(*options: tuple[str, str | None]) -> list[str]:
    """`--name value` for each option given a value, in order; None leaves it out."""
    return [arg for name, value in options if value is not None for arg in (name, value)]


def find_binary(candidates: list[str], name: str) -> str | None:
    """The first executable candidate, else `name` on PATH."""
    for candidate in candidates:
        if Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which(name)


def binary_or_skip(found: str | None, reason: str) -> str:
    """`found`; else the test fails under $CI (a missing client is a broken install there)
    and is skipped otherwise."""
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return found


@dataclass
class CliRun:
    command: list[str]
    pid: int  # also the id of its process group and session
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False

    @property
    def report(self) -> str:
        """Everything needed to understand a failure."""
        state = "timed out" if self.timed_out else f"exit code {self.returncode}"
        name = Path(self.command[0]).name if self.command else "command"
        return f"{name} {state}\nstdout:\n{self.stdout}\nstderr:\n{self.stderr}"

    def json_result(self) -> dict[str, Any]:
        """stdout of `--output-format json`: one JSON object (the run's result)."""
        parsed = json.loads(self.stdout)
        assert isinstance(parsed, dict), self.report
        return parsed


def run_cli(
    command: list[str], cwd: Path, env: dict[str, str], timeout: float
) -> tuple[int, int, str, str, bool]:
    """Run `command` to its end or `timeout` (no exception: the last value says timed out);
    (pid, returncode, stdout, stderr, timed_out)."""
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **own_group(),  # its own process group, so stragglers can be found
    )
    timed_out = False
    try:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_tree(process.pid)
            stdout, stderr = process.communicate()
    finally:
        if process.poll() is None:
            kill_tree(process.pid)
            process.wait()
        kill_process_group(process.pid)
    return process.pid, process.returncode, stdout, stderr, timed_out


def process_group_members(pgid: int) -> list[int]:
    """Processes in group `pgid` of session `pgid` (the session `run_cli` starts), from
    /proc: also those handed to init after their parent died."""
    members: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        # After the command name: state, ppid, pgrp, session. Zombies are gone already.
        in_session = len(fields) > 3 and fields[2] == fields[3] == str(pgid)
        if in_session and fields[0] not in ("Z", "X"):
            members.append(int(entry.name))
    return members


def kill_process_group(pgid: int) -> None:
    """SIGKILL what is left of the client's session (background commands it left behind).
    Read from /proc rather than killpg, which would hit the group even if it were someone
    else's by now: only members of a session led by that id are killed. Without /proc
    (macOS), killpg; Windows' groups are no sessions: `taskkill /T` ended the tree already."""
    if sys.platform == "win32":
        return
    if not HAS_PROC:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
        return
    for pid in process_group_members(pgid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
