"""Identifiers for everything the bridge creates; the `AM-` prefix marks them as ours."""

from __future__ import annotations

import secrets
import string
import time

_ALPHABET = string.ascii_lowercase + string.digits


def _random(n: int) -> str:
    # One draw from the OS for the whole id (secrets.choice per character costs a syscall each).
    value = secrets.randbelow(len(_ALPHABET) ** n)
    chars = []
    for _ in range(n):
        value, digit = divmod(value, len(_ALPHABET))
        chars.append(_ALPHABET[digit])
    return "".join(chars)


def response_id() -> str:
    return f"resp_AM-{int(time.time() * 1000)}-{_random(8)}"


def message_id() -> str:
    return f"msg_AM-{_random(12)}"


def function_call_id() -> str:
    return f"fc_AM-{_random(12)}"


def custom_tool_call_id() -> str:
    return f"ctc_AM-{_random(12)}"


def tool_search_call_id() -> str:
    return f"tsc_AM-{_random(12)}"


def web_search_call_id() -> str:
    return f"ws_AM-{_random(12)}"


def reasoning_id() -> str:
    return f"rs_AM-{_random(12)}"


def call_id() -> str:
    return f"call_AM-{_random(12)}"


def tool_use_id() -> str:
    return f"toolu_AM-{_random(12)}"


def chat_completion_id() -> str:
    return f"chatcmpl-AM-{_random(24)}"


def gemini_response_id() -> str:
    return f"AM-{_random(20)}"


def gemini_call_id() -> str:
    return f"AM-call-{_random(12)}"
