"""Which model names Codex offers its full tool set to.

Codex picks its tools by the model name, from the model catalog bundled with it: a name is
matched to the catalog entry whose slug is its longest prefix (`gpt-5.5-mini` gets the
`gpt-5.5` entry; matching is case-sensitive). Measured with Codex 0.169.0 against a server
that records the requests' `tools`:

- `gpt-5.5`: `exec_command` (function), `apply_patch` (custom, freeform) and the rest;
- the other catalog entries (`gpt-6-astra`, `gpt-5.6-sol`, ...): `tool_mode: code_mode_only`
  and the "responses lite" request shape: no tools in the request at all, which an editor's
  model cannot serve;
- any other name (`sim-echo`, `gpt-4.1`, `gpt-5`): `exec_command` but no `apply_patch`.

Source of the slugs: `codex debug models --bundled` of Codex 0.169.0 (Apache-2.0).
"""

from __future__ import annotations

# The name written into Codex's config when the editor's model name is not one of these.
PREFERRED_CODEX_MODEL = "gpt-5.5"

# Catalog slugs whose requests carry Codex's ordinary tools, apply_patch included.
TOOL_MODELS = frozenset({"gpt-5.5"})

# Catalog slugs that Codex serves in code mode (no tools in the request).
CODE_MODE_MODELS = frozenset(
    {
        "gpt-6-astra",
        "gpt-6.1-sol",
        "gpt-6.1-terra",
        "gpt-6-sol",
        "gpt-6-luna",
        "gpt-5.6-sol",
        "gpt-5.6-terra",
        "gpt-5.6-luna",
        "gpt-daybreak-blue-latest",
        "gpt-daybreak-red-latest",
        "codex-auto-review",
    }
)


def catalog_entry(name: str) -> str | None:
    """The catalog slug Codex uses for `name`: its longest prefix among the slugs, if any."""
    matches = [slug for slug in TOOL_MODELS | CODE_MODE_MODELS if name.startswith(slug)]
    return max(matches, key=len, default=None)


def codex_offers_all_tools(name: str) -> bool:
    """True when Codex, asking for `name`, offers `exec_command` and `apply_patch`."""
    return catalog_entry(name) in TOOL_MODELS
