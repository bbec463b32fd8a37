"""A real VS Code extension host, headless: code-server (VS Code's server and web workbench,
from npm) with the Maestro Bridge VSIX and the scripted-model test extension installed, its
workbench opened by headless Chromium (which is what starts the extension host).

Each window is a browser of its own on a workspace folder of its own, so it has its own extension
host and its own language server, as VS Code's windows do; closing one ends its browser.

`scripts/setup-vscode-e2e` installs code-server, Node 24, playwright-core and Chromium under the
ignored `.cache/vscode-e2e/`, and `npm run package` in editor-client/ builds the VSIX; both run
from `scripts/test`. Free of pytest, so that the benchmark (bench/vscode_host.py) starts the
same host as the tests (tests/vscode_host.py).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from processes import cmdline, is_lsp_command, is_running, kill_tree
from vscode_session import FIRST_WINDOW, Tools, VSCodeHost, Window, tail

REPO_ROOT = Path(__file__).resolve().parents[1]
CACHE = REPO_ROOT / ".cache" / "vscode-e2e"
EDITOR_CLIENT = REPO_ROOT / "editor-client"
VSIX = EDITOR_CLIENT / "dist" / "maestro-bridge.vsix"
FIXTURES = EDITOR_CLIENT / "test-fixtures"
DRIVER = Path(__file__).resolve().parent / "vscode_e2e" / "drive.js"
STARTUP_TIMEOUT = (
    180.0  # code-server + browser + extension host + language server, on a busy 2-core box
)
STOP_TIMEOUT = 15.0


def tool_paths() -> Tools:
    """Where the tools are: the cache of scripts/setup-vscode-e2e, or $MAESTRO_* overrides."""
    env = os.environ.get
    return Tools(
        node=Path(env("MAESTRO_VSCODE_NODE") or CACHE / "node24/node_modules/node/bin/node"),
        code_server=Path(
            env("MAESTRO_CODE_SERVER") or CACHE / "cs/node_modules/code-server/out/node/entry.js"
        ),
        playwright=Path(env("MAESTRO_PLAYWRIGHT") or CACHE / "tools/node_modules/playwright-core"),
        chromium=env("MAESTRO_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium",
        vsce=EDITOR_CLIENT / "node_modules" / ".bin" / "vsce",
    )


def missing_tools(tools: Tools) -> str:
    """What of the harness's needs is missing, with how to get it; "" when nothing is."""
    wanted: list[tuple[Path, str]] = [
        (tools.node, "Node 24 (bash scripts/setup-vscode-e2e)"),
        (tools.code_server, "code-server (bash scripts/setup-vscode-e2e)"),
        (tools.playwright, "playwright-core (bash scripts/setup-vscode-e2e)"),
        (Path(tools.chromium), "chromium (bash scripts/setup-vscode-e2e)"),
        (tools.vsce, "vsce (npm ci in editor-client/)"),
        (VSIX, "the extension's VSIX (npm run package in editor-client/)"),
    ]
    missing = [f"{what}: {path}" for path, what in wanted if not path.exists()]
    return "; ".join(missing)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _run(cmd: list[str], log: Path, env: dict[str, str], cwd: Path | None = None) -> None:
    with log.open("ab") as out:
        done = subprocess.run(
            cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd, timeout=300, check=False
        )
    if done.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({done.returncode}):\n{tail(log)}")


def start_host(
    tools: Tools,
    root: Path,
    settings: dict[str, Any] | None = None,
    reconnection_grace_seconds: int | None = None,
    extra_env: dict[str, str] | None = None,
    seed_storage: dict[str, str] | None = None,
    fixture_extensions: tuple[str, ...] = (),
    extra_vsixes: tuple[Path, ...] = (),
) -> VSCodeHost:
    """Installs the extensions into a fresh profile, starts code-server and the first window,
    and waits until the Maestro Bridge extension says its endpoint listens.

    `settings` are user settings besides the harness's own; `reconnection_grace_seconds` is how
    long code-server keeps the extension host of a window whose browser went away (3 hours by
    default, for a reconnection); `extra_env` goes to code-server and its extension hosts;
    `seed_storage` is written into each window's global state before its workbench loads
    (drive.js); `fixture_extensions` names more test extensions of editor-client/test-fixtures/
    to package and install; `extra_vsixes` are more VSIX files to install (the benchmark's
    peer, bench/agent_maestro.py)."""
    host = VSCodeHost(
        root=root, record_path=root / "record.jsonl", tools=tools, seed_storage=seed_storage
    )
    user_data, extensions = root / "user-data", root / "extensions"
    for d in (user_data / "User", extensions):
        d.mkdir(parents=True)
    host.settings_path = user_data / "User" / "settings.json"
    host.control_path = root / "control.json"
    host.write_settings(
        {
            "workbench.startupEditor": "none",
            "security.workspace.trust.enabled": False,
            "telemetry.telemetryLevel": "off",
            "extensions.autoUpdate": False,
            "extensions.autoCheckUpdates": False,
            "update.mode": "none",
            # The interpreter running these tests has this checkout installed.
            "maestroBridge.pythonPath": sys.executable,
            "maestroBridge.port": 0,
            "maestroBridge.logLevel": "debug",
            **(settings or {}),
        }
    )
    port = host.port = free_port()
    config = root / "code-server.yaml"
    config.write_text(f"bind-addr: 127.0.0.1:{port}\nauth: none\ncert: false\n", encoding="utf-8")
    env = host.env = {
        **os.environ,
        # code-server writes into these; keep it out of the home folder.
        "XDG_CONFIG_HOME": str(root / "xdg" / "config"),
        "XDG_DATA_HOME": str(root / "xdg" / "data"),
        "XDG_CACHE_HOME": str(root / "xdg" / "cache"),
        # The usage ledger of this host's bridges: apart from every other bridge of the run.
        "XDG_STATE_HOME": str(root / "xdg" / "state"),
        "MAESTRO_E2E_RECORD": str(host.record_path),
        "MAESTRO_E2E_CONTROL": str(host.control_path),
        **(extra_env or {}),
    }
    host.logs = {"setup": root / "setup.log", "code-server": root / "code-server.log"}
    fixture_vsixes = [
        _package_fixture(tools, FIXTURES / name, root, host.logs["setup"], env)
        for name in ("scripted-model", *fixture_extensions)
    ]
    base = [
        str(tools.node),
        str(tools.code_server),
        "--config",
        str(config),
        "--user-data-dir",
        str(user_data),
        "--extensions-dir",
        str(extensions),
    ]
    _run(
        [
            *base,
            "--install-extension",
            str(VSIX),
            *(
                arg
                for vsix in (*fixture_vsixes, *extra_vsixes)
                for arg in ("--install-extension", str(vsix))
            ),
        ],
        host.logs["setup"],
        env,
    )
    with host.logs["code-server"].open("wb") as out:
        host.code_server = subprocess.Popen(
            [
                *base,
                "--bind-addr",
                f"127.0.0.1:{port}",
                "--auth",
                "none",
                "--disable-telemetry",
                "--disable-update-check",
                "--disable-workspace-trust",
                "--disable-getting-started-override",
                *(
                    ["--reconnection-grace-time", str(reconnection_grace_seconds)]
                    if reconnection_grace_seconds is not None
                    else []
                ),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=root,
            start_new_session=True,
        )
    try:
        host.wait_for(lambda: _healthy(port), 60, "code-server's /healthz")
        open_window(host, FIRST_WINDOW)
        state = host.wait_for(lambda: _ready_state(host), STARTUP_TIMEOUT, "the bridge's URL")
        host.base_url = str(state["url"])
    except BaseException:
        stop_host(host)
        raise
    return host


def _package_fixture(
    tools: Tools, folder: Path, root: Path, log: Path, env: dict[str, str]
) -> Path:
    """The VSIX of a test extension of editor-client/test-fixtures/, packaged with vsce."""
    vsix = root / f"{folder.name}.vsix"
    _run(
        [
            str(tools.vsce),
            "package",
            "--allow-missing-repository",
            "--skip-license",
            "-o",
            str(vsix),
        ],
        log,
        env,
        cwd=folder,
    )
    return vsix


def open_window(host: VSCodeHost, name: str) -> Window:
    """Opens a window on a new workspace folder `name` (its own browser, so its own extension
    host); returns without waiting for the extension."""
    assert host.tools is not None and name not in host.windows
    workspace = host.root / name
    workspace.mkdir()
    log = host.logs[f"browser {name}"] = host.root / f"browser-{name}.log"
    status_path, click_path = host.root / f"status-bar-{name}.txt", host.root / f"click-{name}.txt"
    dialog_path = host.root / f"dialog-{name}.txt"
    pick_path = host.root / f"pick-{name}.txt"
    with log.open("wb") as out:
        driver = subprocess.Popen(
            [
                str(host.tools.node),
                str(DRIVER),
                f"http://127.0.0.1:{host.port}/?folder={workspace}",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={
                **host.env,
                "NODE_PATH": str(host.tools.playwright.parent),
                "CHROMIUM": host.tools.chromium,
                "STATUS_FILE": str(status_path),
                "CLICK_FILE": str(click_path),
                "DIALOG_FILE": str(dialog_path),
                "PICK_FILE": str(pick_path),
                "FRAMES_FILE": str(host.root / f"frames-{name}.json"),
                **({"SEED_STORAGE": json.dumps(host.seed_storage)} if host.seed_storage else {}),
            },
        )
    window = host.windows[name] = Window(
        name, driver, status_path, click_path, dialog_path, pick_path
    )
    return window


def close_window(host: VSCodeHost, name: str) -> None:
    """Closes a window as a person closes a tab: its browser goes away. code-server ends its
    extension host after the reconnection grace time (start_host), which ends its language
    server (its stdin closes)."""
    window = host.windows.pop(name)
    _terminate(window.driver)


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
            return bool(r.status == 200)
    except OSError:
        return False


def _ready_state(host: VSCodeHost) -> dict[str, Any] | None:
    states = host.states(FIRST_WINDOW)
    errors = [s for s in states if s.get("kind") == "error"]
    if errors:
        raise AssertionError(f"The extension reported an error: {errors[-1]}\n{host.diagnostics()}")
    ready = [s for s in states if s.get("kind") == "ready"]
    return ready[-1] if ready else None


def _terminate(proc: subprocess.Popen[bytes] | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    if sys.platform == "win32":  # no sessions to signal: the tree, at once
        kill_tree(proc.pid)
        proc.wait()
        return
    os.killpg(proc.pid, signal.SIGTERM)  # its own session: code-server and what it started
    try:
        proc.wait(STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def stop_host(host: VSCodeHost) -> list[int]:
    """Stops the browsers and code-server; the language servers still running after that."""
    lsp = set(host.lsp_pids()) | host.seen_lsp  # those of closed windows too
    for window in host.windows.values():
        _terminate(window.driver)
    _terminate(host.code_server)
    deadline = time.monotonic() + STOP_TIMEOUT
    while time.monotonic() < deadline and any(is_running(p) for p in lsp):
        time.sleep(0.2)
    # Checked by command line too: a pid seen long ago may belong to another process by now.
    left = [p for p in lsp if is_running(p) and is_lsp_command(cmdline(p))]
    for pid in left:
        kill_tree(pid)
    return left
