"""Gemini CLI for one run: GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY and GEMINI_MODEL (variables
win over its .env), and the API-key sign-in (`security.auth.selectedType: gemini-api-key`),
without which it signs in as the user's settings say (Google, a gateway that print mode
refuses...).

No variable or flag sets that sign-in, and Gemini CLI 0.61.0 reads a system settings file only
when root owns it and every folder above it; so the run gets a home of its own,
GEMINI_CLI_HOME=<run folder>/home, whose `.gemini` holds a copy of the user's settings.json with
that one key changed, and links to everything else of the user's ~/.gemini (history, trusted
folders, extensions, GEMINI.md): the agent works in the user's files, the user's settings.json
stays as it was. Where links cannot be made (Windows without the right), only the settings
copy is there.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bridge.configure.gemini_settings import gemini_dir
from bridge.run.agent_spec import Launch, Target

RUN_HOME = "home"


def gemini(target: Target, environ: Mapping[str, str]) -> Launch:
    user_folder = gemini_dir(environ)
    env: dict[str, str | None] = {
        "GOOGLE_GEMINI_BASE_URL": target.root,
        "GEMINI_API_KEY": target.key_or_placeholder,
        "GEMINI_MODEL": target.model,
        "GEMINI_CLI_HOME": f"{{run}}{os.sep}{RUN_HOME}",
        "GOOGLE_GENAI_USE_VERTEXAI": None,  # would send it to Vertex AI instead
        "GOOGLE_GENAI_USE_GCA": None,
    }
    return Launch("gemini", [], env, prepare=lambda folder: _run_home(user_folder, folder))


def _run_home(user_folder: Path, folder: Path) -> None:
    ours = folder / RUN_HOME / ".gemini"
    ours.mkdir(parents=True)
    settings = _settings(user_folder / "settings.json")
    auth = _object(_object(settings, "security"), "auth")
    auth["selectedType"] = "gemini-api-key"
    (ours / "settings.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")
    with contextlib.suppress(OSError):
        for entry in user_folder.iterdir():
            if entry.name != "settings.json":
                with contextlib.suppress(OSError):  # no right to make links: the copy only
                    (ours / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())


def _settings(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _object(container: dict[str, Any], key: str) -> dict[str, Any]:
    inner = container.get(key)
    if not isinstance(inner, dict):
        inner = container[key] = {}
    return inner
