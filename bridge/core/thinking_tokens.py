"""A provider's thought, handed to a client and taken back from it, so reasoning survives turns.

Copilot 0.67 gives, after a thought's text, a thinking part whose `metadata` holds
`encrypted_content` (Claude's signature, a Responses reasoning item's encrypted content) and
`vscode_thinking_origin_api` (`messages`, `responses`, `chatCompletions`); given back in an
assistant message as a thinking part with an `id` and that metadata, it sends the thought to
the model again (docs/credits.md). The bridge stays stateless: what it needs to rebuild the
part travels inside what the client already sends back, as

- an Anthropic thinking block's `signature`: Claude's own signature, verbatim, for a thought of
  the Messages API (as Anthropic's API would give it); otherwise a token;
- a Responses `reasoning` item's `encrypted_content`: a token;
- a Gemini part's `thoughtSignature`: a token.

A token is `mbt1.` and the base64url of `{"i": id, "m": metadata}`: opaque to clients, read
only by this module.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from bridge.core.parts import ThinkingPart

TOKEN_PREFIX = "mbt1."
ENCRYPTED = "encrypted_content"
ORIGIN = "vscode_thinking_origin_api"
MESSAGES_API = "messages"
# The made-up signature of a thought the provider did not sign: dropped when it comes back.
UNSIGNED_PREFIX = "AM-"


def is_sealed(part: ThinkingPart) -> bool:
    """The part carries the provider's encrypted thought (Copilot sends it after the text)."""
    return bool(part.metadata) and isinstance(part.metadata.get(ENCRYPTED), str)  # type: ignore[union-attr]


def token_of(part: ThinkingPart) -> str:
    """The opaque token that gives `part` back (its id and metadata)."""
    raw = json.dumps({"i": part.id or "", "m": part.metadata or {}}, separators=(",", ":"))
    return TOKEN_PREFIX + base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def signature_of(part: ThinkingPart) -> str:
    """An Anthropic `signature` for a sealed part: Claude's own when the thought is one."""
    metadata = part.metadata or {}
    if metadata.get(ORIGIN) == MESSAGES_API:
        return str(metadata[ENCRYPTED])
    return token_of(part)


def from_token(token: str, text: str) -> ThinkingPart | None:
    """The part a token stands for, with the thought's text as the client gives it back; None
    for anything that is not a token of this bridge."""
    if not token.startswith(TOKEN_PREFIX):
        return None
    body = token[len(TOKEN_PREFIX) :]
    try:
        decoded = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(decoded, dict):
        return None
    thought_id, metadata = decoded.get("i"), decoded.get("m")
    if not isinstance(thought_id, str) or not isinstance(metadata, dict):
        return None
    if not isinstance(metadata.get(ENCRYPTED), str):
        return None
    return ThinkingPart(value=text, id=thought_id or "thinking", metadata=metadata)


def from_signature(signature: str, text: str, position: int) -> ThinkingPart | None:
    """The part an Anthropic thinking block gives back: a token, or Claude's own signature (a
    Messages-API thought, given the id `thinking_<position>` so that Copilot keeps the
    message's thoughts apart); None for the bridge's made-up signatures and empty ones."""
    if not signature or signature.startswith(UNSIGNED_PREFIX):
        return None
    if signature.startswith(TOKEN_PREFIX):
        return from_token(signature, text)
    metadata: dict[str, Any] = {ENCRYPTED: signature, ORIGIN: MESSAGES_API}
    return ThinkingPart(value=text, id=f"thinking_{position}", metadata=metadata)
