"""A real headless Chromium (Debian's package) driven over the DevTools protocol, for tests of
the pages the bridge serves.

The browser runs with a profile folder of its own and its DevTools port on 127.0.0.1 (picked
by the browser, read from `DevToolsActivePort`); the test talks to one page over a WebSocket
(aiohttp's client). Responses can be edited on their way to the page (`edit_json_responses`).
Console errors, uncaught exceptions and Content-Security-Policy violations are collected, so a
test can assert there were none. Whatever happens, the browser
and its helper processes end with the `async with` block.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import fnmatch
import json
import os
import shutil
import subprocess
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiohttp
from processes import kill_tree

START_TIMEOUT = 30.0
COMMAND_TIMEOUT = 30.0


def chromium_path() -> str:
    """Debian's Chromium, or $MAESTRO_CHROMIUM (as tests/vscode_harness.py finds it)."""
    return os.environ.get("MAESTRO_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


class Page:
    """One browser tab: commands, and what the page complained about."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self._ws = ws
        self._next_id = 0
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.problems: list[str] = []  # console errors, exceptions, CSP violations
        self._edits: list[tuple[str, Callable[[dict[str, Any]], dict[str, Any]]]] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        async for message in self._ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            data = json.loads(message.data)
            if "id" in data:
                future = self._waiting.pop(data["id"], None)
                if future is not None and not future.done():
                    future.set_result(data)
            else:
                self._event(data.get("method", ""), data.get("params", {}))
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(ConnectionError("the browser closed the DevTools socket"))

    def _event(self, method: str, params: dict[str, Any]) -> None:
        if method == "Fetch.requestPaused":
            task = asyncio.get_running_loop().create_task(self._edit_response(params))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif method == "Runtime.exceptionThrown":
            self.problems.append(f"exception: {params['exceptionDetails']}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.problems.append(f"console.{params['type']}: {params.get('args')}")
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            entry = params["entry"]
            # A 401 or 404 the page asked for is logged too; the page handles those itself.
            if entry.get("source") != "network":
                self.problems.append(f"log: {entry.get('text')}")

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[self._next_id] = future
        await self._ws.send_str(
            json.dumps({"id": self._next_id, "method": method, "params": params})
        )
        reply = await asyncio.wait_for(future, COMMAND_TIMEOUT)
        if "error" in reply:
            raise AssertionError(f"DevTools {method} failed: {reply['error']}")
        result: dict[str, Any] = reply.get("result", {})
        return result

    async def edit_json_responses(
        self, url_pattern: str, edit: Callable[[dict[str, Any]], dict[str, Any]]
    ) -> None:
        """From now on, the JSON bodies of responses to URLs matching `url_pattern` (DevTools
        wildcards) reach the page as `edit` changes them (the server's status and headers)."""
        self._edits.append((url_pattern, edit))
        patterns = [{"urlPattern": p, "requestStage": "Response"} for p, _ in self._edits]
        await self.send("Fetch.enable", patterns=patterns)

    async def _edit_response(self, params: dict[str, Any]) -> None:
        request_id = params["requestId"]
        edit = next(e for p, e in self._edits if fnmatch.fnmatchcase(params["request"]["url"], p))
        got = await self.send("Fetch.getResponseBody", requestId=request_id)
        raw = base64.b64decode(got["body"]) if got.get("base64Encoded") else got["body"].encode()
        body = json.dumps(edit(json.loads(raw))).encode()
        headers = [
            h for h in params.get("responseHeaders", []) if h["name"].lower() != "content-length"
        ]
        await self.send(
            "Fetch.fulfillRequest",
            requestId=request_id,
            responseCode=params.get("responseStatusCode", 200),
            responseHeaders=headers,
            body=base64.b64encode(body).decode("ascii"),
        )

    async def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises awaited)."""
        result = await self.send(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def goto(self, url: str) -> None:
        await self.send("Page.navigate", url=url)

    async def wait_for(self, expression: str, timeout: float = 20.0) -> Any:
        """Polls until `expression` is truthy; its value."""
        deadline = time.monotonic() + timeout
        while True:
            with contextlib.suppress(AssertionError):  # the page may be between documents
                value = await self.evaluate(expression)
                if value:
                    return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for {expression}")
            await asyncio.sleep(0.1)

    async def screenshot(self, path: Path) -> Path:
        shot = await self.send("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await self._ws.close()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._reader


async def _devtools_port(profile: Path, process: subprocess.Popen[bytes]) -> int:
    marker = profile / "DevToolsActivePort"
    deadline = time.monotonic() + START_TIMEOUT
    while not marker.exists() or not marker.read_text().strip():
        if process.poll() is not None:
            raise AssertionError(f"chromium exited with {process.returncode} before listening")
        if time.monotonic() > deadline:
            raise AssertionError(f"chromium did not open its DevTools port in {START_TIMEOUT} s")
        await asyncio.sleep(0.1)
    return int(marker.read_text().splitlines()[0])


@contextlib.asynccontextmanager
async def chromium_page(profile: Path) -> AsyncIterator[Page]:
    """A headless Chromium with one blank page; gone when the block ends."""
    profile.mkdir(parents=True, exist_ok=True)
    command = [
        chromium_path(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--lang=en-US",
        "--window-size=1280,1000",
        "--remote-debugging-address=127.0.0.1",
        "--remote-debugging-port=0",
        f"--user-data-dir={profile}",
        "about:blank",
    ]
    log = (profile.parent / f"{profile.name}.log").open("wb")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        port = await _devtools_port(profile, process)
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{port}/json/list") as listing:
                targets = await listing.json()
            target = next(t for t in targets if t.get("type") == "page")
            async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                page = Page(ws)
                try:
                    for domain in ("Page", "Runtime", "Log"):
                        await page.send(f"{domain}.enable")
                    yield page
                finally:
                    await page.close()
    finally:
        if process.poll() is None:
            kill_tree(process.pid)
        process.wait()
        log.close()
