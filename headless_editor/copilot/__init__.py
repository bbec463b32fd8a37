"""A faithful stand-in for GitHub Copilot's provider behind vscode.lm (see rules.py)."""

from __future__ import annotations

import os

from headless_editor.copilot.rules import Seen, copilot_view, model_options

PERMISSIVE_ENV = "MAESTRO_SIM_PERMISSIVE"

__all__ = ["PERMISSIVE_ENV", "Seen", "copilot_view", "model_options", "rules_on_by_env"]


def rules_on_by_env() -> bool:
    """Copilot's rules apply unless a test sets MAESTRO_SIM_PERMISSIVE=1 (test-only switch)."""
    return os.environ.get(PERMISSIVE_ENV, "") not in ("1", "true", "yes")
