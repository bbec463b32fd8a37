"""What many end-to-end tests share: a sample tool and reading a Response's answer."""

from __future__ import annotations

from typing import Any

WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "name": "get_weather",
    "description": "The weather in a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    },
    "strict": True,
}


def output_text(response: dict[str, Any]) -> str:
    """The text of the Response's message items (what the SDKs call `output_text`)."""
    return "".join(
        part.get("text", "")
        for item in response["output"]
        if item["type"] == "message"
        for part in item["content"]
        if part["type"] == "output_text"
    )
