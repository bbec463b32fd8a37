"""Real Node clients in the end-to-end tests: the environment that lets `node` require the
packages pinned by tests/node/ (installed by scripts/test), and one run of a client script."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT, BridgeServer
from processes import run

NODE_TIMEOUT = 90.0


def node_modules_candidates() -> list[Path]:
    candidates = [REPO_ROOT / ".cache" / "node-sdk" / "node_modules"]
    if os.environ.get("MAESTRO_NODE_MODULES"):
        candidates.insert(0, Path(os.environ["MAESTRO_NODE_MODULES"]))
    return candidates


def node_env_with(packages: tuple[str, ...], what: str) -> dict[str, str]:
    """The environment that lets `node` require `packages` (pinned by tests/node/); without
    node or them, the test fails when $CI is set and is skipped otherwise."""
    node = shutil.which("node")
    modules = next(
        (
            path
            for path in node_modules_candidates()
            if all((path / package).is_dir() for package in packages)
        ),
        None,
    )
    if node is None or modules is None:
        reason = (
            "node is not on PATH"
            if node is None
            else f"{what} is not installed (looked in "
            + ", ".join(map(str, node_modules_candidates()))
            + "); `bash scripts/test` installs it"
        )
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return {**os.environ, "NODE_PATH": str(modules)}


def run_node_client(
    client: Path,
    node_env: dict[str, str],
    scenario: str,
    server: BridgeServer,
    model: str = "sim-echo",
) -> dict[str, Any]:
    """`node CLIENT SCENARIO BASE_URL MODEL`; its stdout, one JSON object. A hang, or an
    exit other than 0, fails the test with the bridge's stderr."""
    try:
        result = run(
            ["node", str(client), scenario, server.base_url, model],
            env=node_env,
            timeout=NODE_TIMEOUT,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the Node client hung: {exc.stderr!r}\n{server.stderr_text()}")
    assert result.returncode == 0, (
        f"the Node client failed ({result.returncode}):\n{result.stderr}\n"
        f"bridge stderr:\n{server.stderr_text()}"
    )
    output: dict[str, Any] = json.loads(result.stdout)
    return output
