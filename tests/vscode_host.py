"""The VS Code host of the tests: the harness of vscode_harness.py (code-server + headless
Chromium + the Maestro Bridge VSIX + the scripted-model test extension), with what is missing
failing the test when $CI is set and skipping it otherwise, and a host per test module."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from vscode_harness import (
    STARTUP_TIMEOUT,
    close_window,
    free_port,
    missing_tools,
    open_window,
    start_host,
    stop_host,
    tool_paths,
)
from vscode_session import FIRST_WINDOW, Tools, VSCodeHost

__all__ = [
    "FIRST_WINDOW",
    "STARTUP_TIMEOUT",
    "VSCodeHost",
    "close_window",
    "free_port",
    "open_window",
    "start_host",
    "stop_host",
]


def find_tools() -> Tools:
    """Everything the harness runs; fails (CI) or skips (elsewhere) naming what is missing."""
    tools = tool_paths()
    missing = missing_tools(tools)
    if missing:
        reason = "VS Code end-to-end test needs: " + missing
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return tools


@contextlib.contextmanager
def running_host(
    workdir: Path,
    settings: dict[str, Any] | None = None,
    extra_env: dict[str, str] | None = None,
    seed_storage: dict[str, str] | None = None,
    fixture_extensions: tuple[str, ...] = (),
) -> Iterator[VSCodeHost]:
    """A VS Code host for a test module, with these user settings besides the harness's own
    (and `extra_env`, `seed_storage`, `fixture_extensions` as start_host takes them);
    afterwards, no language server of it may be left."""
    host = start_host(
        find_tools(),
        workdir,
        settings,
        extra_env=extra_env,
        seed_storage=seed_storage,
        fixture_extensions=fixture_extensions,
    )
    try:
        yield host
    finally:
        left = stop_host(host)
    assert not left, f"language servers outlived VS Code: {left}\n{host.diagnostics()}"


def host_fixture(settings: dict[str, Any] | None = None) -> Any:
    """The module-scoped `vscode` fixture of a test module that talks to the extension:
    `vscode = host_fixture()` at the module's top level (one host per module), VS Code
    starting with `settings` as user settings when given."""

    @pytest.fixture(scope="module", name="vscode")
    def module_host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VSCodeHost]:
        with running_host(tmp_path_factory.mktemp("vscode"), settings) as host:
            yield host

    return module_host


def last_requests(host: VSCodeHost, count: int) -> list[dict[str, Any]]:
    """The last `count` requests the scripted provider got, oldest first."""
    requests = host.records("request")
    assert len(requests) >= count, host.diagnostics()
    return requests[-count:]
