"""A running VS Code host as the harness sees it (vscode_harness.py starts and stops it): its
windows, what the scripted-model test extension recorded, and the control file through which
that extension acts inside a window (settings, commands, benchmark runs)."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from processes import cmdline, descendants, is_lsp_command

LOG_TAIL = 15_000


@dataclass(frozen=True)
class Tools:
    node: Path
    code_server: Path
    playwright: Path
    chromium: str
    vsce: Path


def tail(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[-LOG_TAIL:]
    except OSError:
        return ""


FIRST_WINDOW = "workspace"


@dataclass
class Window:
    """One VS Code window: a browser on the workbench of one workspace folder."""

    name: str  # the folder's name, which the scripted-model extension records as `window`
    driver: subprocess.Popen[bytes]
    status_path: Path
    click_path: Path
    dialog_path: Path
    pick_path: Path


@dataclass
class VSCodeHost:
    root: Path
    record_path: Path
    code_server: subprocess.Popen[bytes] | None = None
    windows: dict[str, Window] = field(default_factory=dict)  # open ones, by name
    port: int = 0  # code-server's
    env: dict[str, str] = field(default_factory=dict)
    tools: Tools | None = None
    base_url: str = ""
    logs: dict[str, Path] = field(default_factory=dict)
    settings_path: Path = Path()
    control_path: Path = Path()
    control_id: int = 0
    seen_lsp: set[int] = field(default_factory=set)
    seed_storage: dict[str, str] | None = None  # drive.js writes it before a workbench loads

    def write_settings(self, settings: dict[str, Any]) -> None:
        """The user settings VS Code starts with."""
        self.settings_path.write_text(json.dumps(settings, indent=2), encoding="utf-8")

    def _control(
        self, request: dict[str, Any], timeout: float, window: str = FIRST_WINDOW
    ) -> dict[str, Any]:
        """Asks the scripted-model extension to act inside a window; its record of the result."""
        request_id = self.send_control(request, window)
        return self.control_answer(request_id, request, timeout)

    def send_control(self, request: dict[str, Any], window: str = FIRST_WINDOW) -> int:
        """Sends a request to a window's scripted-model extension; its id."""
        self.control_id += 1
        request_id = self.control_id
        tmp = self.control_path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"id": request_id, "window": window, **request}), "utf-8")
        tmp.replace(self.control_path)
        return request_id

    def control_answer(
        self, request_id: int, request: dict[str, Any], timeout: float
    ) -> dict[str, Any]:
        """The scripted-model extension's record of what it did for request `request_id`."""

        def answer() -> dict[str, Any] | None:
            for entry in self.records():
                if entry.get("id") != request_id:
                    continue
                if entry["event"].endswith("-failed"):
                    raise AssertionError(f"VS Code refused {request}: {entry}")
                return entry
            return None

        result: dict[str, Any] = self.wait_for(answer, timeout, f"VS Code to do {request}")
        return result

    def update_settings(self, settings: dict[str, Any], timeout: float = 60) -> None:
        """Changes user settings in the running VS Code, through its configuration API."""
        self._control({"settings": settings}, timeout)

    def run_command(self, command: str, timeout: float = 60, window: str = FIRST_WINDOW) -> str:
        """Runs a VS Code command in a window; the clipboard's text afterwards."""
        return str(self._control({"command": command}, timeout, window)["clipboard"])

    def click(self, button: str, timeout: float = 30, window: str = FIRST_WINDOW) -> str:
        """Clicks a button of a notification, as a person would (drive.js does it); the
        notification's message."""
        click_path = self.windows[window].click_path
        said = click_path.with_name(click_path.name + ".message")
        said.unlink(missing_ok=True)
        click_path.write_text(button, encoding="utf-8")
        self.wait_for(lambda: not click_path.exists(), timeout, f"a click on {button!r}")
        return said.read_text(encoding="utf-8")

    def click_dialog(self, button: str, timeout: float = 60, window: str = FIRST_WINDOW) -> str:
        """Clicks a button of the workbench's modal dialog (VS Code's own, in the page: as for
        the language-model access it asks a person to allow), as a person would (drive.js does
        it, once the dialog shows); the dialog's message and detail."""
        dialog_path = self.windows[window].dialog_path
        said = dialog_path.with_name(dialog_path.name + ".message")
        said.unlink(missing_ok=True)
        dialog_path.write_text(button, encoding="utf-8")
        self.wait_for(lambda: not dialog_path.exists(), timeout, f"a dialog's {button!r} button")
        return said.read_text(encoding="utf-8")

    def pick(self, text: str, timeout: float = 60, window: str = FIRST_WINDOW) -> str:
        """Picks the first item of the open quick pick whose text contains `text`, as a person
        would (drive.js does it, once the quick pick shows); the item's text."""
        pick_path = self.windows[window].pick_path
        said = pick_path.with_name(pick_path.name + ".message")
        said.unlink(missing_ok=True)
        pick_path.write_text(text, encoding="utf-8")
        self.wait_for(lambda: not pick_path.exists(), timeout, f"a quick pick item with {text!r}")
        return said.read_text(encoding="utf-8")

    def run_command_picking(
        self, command: str, text: str, timeout: float = 60, window: str = FIRST_WINDOW
    ) -> str:
        """Runs a command that asks for a pick, picks the item with `text`; the clipboard."""
        request = {"command": command}
        request_id = self.send_control(request, window)
        self.pick(text, timeout, window)
        return str(self.control_answer(request_id, request, timeout)["clipboard"])

    def open_file(self, path: str, timeout: float = 60, window: str = FIRST_WINDOW) -> None:
        """Opens a file of the window's folder (a relative path) in an editor tab."""
        self._control({"open": path}, timeout, window)

    def status_bar(self, window: str = FIRST_WINDOW) -> str:
        """The Maestro Bridge status bar item's text as the browser shows it (drive.js)."""
        try:
            return self.windows[window].status_path.read_text(encoding="utf-8").strip()
        except OSError:
            return ""

    def records(self, event: str | None = None, window: str | None = None) -> list[dict[str, Any]]:
        """What the scripted-model extension recorded (in `window`, else in any), oldest
        first."""
        try:
            lines = self.record_path.read_text(encoding="utf-8").splitlines()
        except OSError:
            return []
        entries = [json.loads(line) for line in lines if line.strip()]
        return [
            e
            for e in entries
            if (event is None or e.get("event") == event)
            and (window is None or e.get("window") == window)
        ]

    def states(self, window: str) -> list[dict[str, Any]]:
        """The Maestro Bridge extension's states in `window`, oldest first."""
        return [e["state"] for e in self.records("bridge-state", window)]

    def wait_for(
        self, predicate: Callable[[], Any], timeout: float, what: str
    ) -> Any:  # the predicate's first truthy value
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = predicate()
            if value:
                return value
            procs = [("code-server", self.code_server)]
            procs += [(f"browser of {w.name}", w.driver) for w in self.windows.values()]
            for name, proc in procs:
                if proc is not None and proc.poll() is not None:
                    raise AssertionError(
                        f"{name} exited with {proc.returncode}\n{self.diagnostics()}"
                    )
            time.sleep(0.2)
        raise AssertionError(f"Timed out waiting for {what}\n{self.diagnostics()}")

    def diagnostics(self) -> str:
        parts = [f"--- {name} ---\n{tail(path)}" for name, path in self.logs.items()]
        parts.append(f"--- records ---\n{tail(self.record_path)}")
        return "\n".join(parts)

    def lsp_pids(self) -> list[int]:
        """The language servers that code-server's extension hosts run now."""
        if self.code_server is None:
            return []
        found = [p for p in descendants(self.code_server.pid) if is_lsp_command(cmdline(p))]
        self.seen_lsp.update(found)  # one whose extension host ended is no descendant any more
        return found
