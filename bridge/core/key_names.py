"""Key names as a debug line shows them: the body's keys a dialect accepted without effect or
did not know. Names only, never values (those may be personal), and only so many of them."""

from __future__ import annotations

SHOWN_KEYS = 20  # key names shown at most (a body may hold thousands)
SHOWN_KEY_CHARS = 40


def shown_keys(keys: list[str]) -> str:
    """The first `SHOWN_KEYS` names, each cut at `SHOWN_KEY_CHARS`, and how many more."""
    shown = [key[:SHOWN_KEY_CHARS] for key in keys[:SHOWN_KEYS]]
    more = f" (and {len(keys) - SHOWN_KEYS} more)" if len(keys) > SHOWN_KEYS else ""
    return ", ".join(shown) + more
