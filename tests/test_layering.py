"""Issue 27: the shared layers know no dialect; the dialects use them.

`bridge/core` and `bridge/http` are what every dialect shares; each dialect (`bridge/responses`,
`bridge/anthropic`, `bridge/chat`, `bridge/gemini`) imports them, never the other way round,
so a dialect can be changed or left out alone. The one exception is the application itself
(`bridge/http/app.py`), which lists the dialects it mounts. `bridge/gemini/models.py` and
`bridge/http/model_routes.py` imported each other (the shared model list asked the Gemini
dialect for Google's shape); now the dialect registers that answer. Checked on the source
(every import, also inside functions), and on a real `serve` (both shapes still answered).
"""

from __future__ import annotations

import ast
from pathlib import Path

import aiohttp
from conftest import REPO_ROOT, BridgeServer

DIALECTS = ("bridge.responses", "bridge.anthropic", "bridge.chat", "bridge.gemini")
SHARED = ("bridge/core", "bridge/http")
COMPOSITION_ROOT = Path("bridge/http/app.py")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_the_shared_layers_import_no_dialect() -> None:
    offending: dict[str, list[str]] = {}
    for folder in SHARED:
        for path in sorted((REPO_ROOT / folder).rglob("*.py")):
            relative = path.relative_to(REPO_ROOT)
            if relative == COMPOSITION_ROOT:
                continue
            dialects = sorted(
                name
                for name in imported_modules(path)
                if any(name == d or name.startswith(f"{d}.") for d in DIALECTS)
            )
            if dialects:
                offending[str(relative)] = dialects
    assert offending == {}, offending


async def test_the_shared_model_list_answers_google_clients_in_their_shape(
    bridge_server: BridgeServer,
) -> None:
    url = f"{bridge_server.base_url}/models"
    google = {"x-goog-api-key": "any"}
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
        async with http.get(url) as reply:
            openai_shape = await reply.json()
        async with http.get(url, headers=google) as reply:
            google_shape = await reply.json()
        async with http.get(f"{url}/sim-echo", headers=google) as reply:
            one = await reply.json()
        async with http.get(f"{url}/no-such-model", headers=google) as reply:
            missing = await reply.json()
            missing_status = reply.status
    assert openai_shape["object"] == "list"
    assert "sim-echo" in [entry["id"] for entry in openai_shape["data"]]
    assert "models/sim-echo" in [entry["name"] for entry in google_shape["models"]]
    assert (
        one["name"] == "models/sim-echo" and "generateContent" in one["supportedGenerationMethods"]
    )
    assert missing_status == 404
    assert missing["error"]["status"] == "NOT_FOUND", missing
