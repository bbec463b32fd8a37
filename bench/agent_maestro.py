"""Agent Maestro, the peer that serves `vscode.lm` from inside the extension host, as the
side-by-side benchmark (bench/side_by_side.py) runs it: its VSIX, where it listens, its routes.

Nothing of Agent Maestro is in this repository, and the repository does not build it: the
benchmark installs a VSIX built from Agent Maestro's own repository with its own packaging
scripts (docs/benchmarks.md says how), found at $MAESTRO_AGENT_MAESTRO_VSIX or at
`.cache/agent-maestro/agent-maestro.vsix`. Without one, the benchmark says so and measures the
provider and the bridge alone.
"""

from __future__ import annotations

import os
import urllib.error
import urllib.request
from pathlib import Path

from bench.side_client import ANTHROPIC, Route

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_VSIX = REPO_ROOT / ".cache" / "agent-maestro" / "agent-maestro.vsix"
PORT_SETTING = "agent-maestro.proxyServerPort"

# Its routes as its source registers them (`/api/anthropic` for Claude Code, `/api/openai` for
# Codex and the Chat Completions clients). The benchmark asks each once before measuring and
# leaves out a dialect that does not answer.
ROUTES = (
    Route("messages", "/api/anthropic/v1/messages", ANTHROPIC),
    Route("chat", "/api/openai/chat/completions", {}),
    Route("responses", "/api/openai/responses", {}),
    Route("gemini", "/api/gemini/v1beta/models/{model}:streamGenerateContent?alt=sse", {}),
)


def vsix() -> Path | None:
    """The VSIX to install, or None when there is none."""
    named = os.environ.get("MAESTRO_AGENT_MAESTRO_VSIX")
    path = Path(named) if named else DEFAULT_VSIX
    return path if path.is_file() else None


def missing_message() -> str:
    return (
        "Agent Maestro is left out: no VSIX at $MAESTRO_AGENT_MAESTRO_VSIX or "
        f"{DEFAULT_VSIX.relative_to(REPO_ROOT)} (build it from its repository with its own "
        "packaging scripts: docs/benchmarks.md, 'Side by side with Agent Maestro')"
    )


def listening(port: int) -> bool:
    """Its HTTP server answers (any status: it is up)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/openapi.json", timeout=2):
            return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False
