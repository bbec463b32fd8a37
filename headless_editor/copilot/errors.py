"""The errors GitHub Copilot's provider throws, as the headless editor carries them.

Copilot throws a plain `Error` (name "Error") for everything it checks itself and for
whatever its upstream (CAPI) refuses; VS Code gives it to the caller with no
LanguageModelError code, so its code here is "Other". CAPI's refusals arrive as
`Request Failed: <status> <body>` (src/extension/prompt/node/chatMLFetcher.ts). Where CAPI
answers a blank 400, the body here is CAPI's usual envelope with a message saying what was
refused, so a failing test says which rule it hit.
"""

from __future__ import annotations

import json

from bridge.core.parts import EditorError

ERROR_NAME = "Error"  # a plain JavaScript Error's name


def provider_error(message: str) -> EditorError:
    """What Copilot's provider throws itself (languageModelAccess.ts)."""
    return EditorError("Other", message, ERROR_NAME)


def upstream_error(
    message: str, status: int = 400, code: str = "invalid_request_body"
) -> EditorError:
    """What CAPI refuses, as Copilot passes it on: `Request Failed: 400 {"error": ...}`."""
    body = json.dumps({"error": {"message": message, "code": code}}, separators=(",", ":"))
    return EditorError("Other", f"Request Failed: {status} {body}", ERROR_NAME)


# Copilot's own messages, verbatim (languageModelAccess.ts, chatMLFetcher.ts).
NO_MESSAGES = "Invalid request: no messages."
TOKEN_LIMIT = "Message exceeds token limit."
TOO_MANY_TOOLS = "Cannot have more than 128 tools per request."  # unless tool search
REQUIRED_WITH_MANY = "LanguageModelChatToolMode.Required is not supported with more than one tool"
MAX_TOOLS = 128


def invalid_tool_name(name: str) -> str:
    return (
        f'Invalid tool name "{name}": only alphanumeric characters, hyphens, '
        "and underscores are allowed."
    )
