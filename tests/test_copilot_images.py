"""Images as Copilot takes them, through a real `serve` in every dialect: labelled by their
bytes (an image over 768 px on both sides as PNG, which VS Code re-encodes it to), and a clear
400 for images to a model without image input (Copilot sends them and its upstream fails).
The simulated models are Copilot-faithful: a label that does not match the bytes, or an image
to `sim-text-only`, fails there as upstream."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import BridgeServer, running_bridge_server
from gemini_http import model_url
from plain_http import Reply, post
from test_hardening_volume import png

DIALECTS = ["responses", "messages", "chat", "gemini"]
LABEL = "image/jpeg"  # what the client says; the bytes are PNG


@pytest.fixture(scope="module")
def server() -> Iterator[BridgeServer]:
    with running_bridge_server() as started:
        yield started


def send(server: BridgeServer, dialect: str, model: str, image: bytes) -> Reply:
    data = base64.b64encode(image).decode("ascii")
    url = f"data:{LABEL};base64,{data}"
    if dialect == "responses":
        content: list[Any] = [
            {"type": "input_text", "text": "What is in it?"},
            {"type": "input_image", "image_url": url},
        ]
        body: dict[str, Any] = {"model": model, "input": [{"role": "user", "content": content}]}
        return post(f"{server.base_url}/responses", body)
    if dialect == "messages":
        content = [
            {"type": "image", "source": {"type": "base64", "media_type": LABEL, "data": data}},
            {"type": "text", "text": "What is in it?"},
        ]
        body = {
            "model": model,
            "max_tokens": 50,
            "messages": [{"role": "user", "content": content}],
        }
        return post(f"{server.base_url}/messages", body)
    if dialect == "chat":
        content = [
            {"type": "text", "text": "What is in it?"},
            {"type": "image_url", "image_url": {"url": url}},
        ]
        body = {"model": model, "messages": [{"role": "user", "content": content}]}
        return post(f"{server.base_url}/chat/completions", body)
    parts = [{"text": "What is in it?"}, {"inlineData": {"mimeType": LABEL, "data": data}}]
    body = {"contents": [{"role": "user", "parts": parts}]}
    return post(model_url(server, model, "generateContent"), body)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_large_image_is_labelled_as_it_will_arrive(server: BridgeServer, dialect: str) -> None:
    # Labelled JPEG, PNG bytes, 800 x 900: Copilot's upstream checks the bytes against the
    # label ("Image does not match the provided media type"); the bridge labels it PNG.
    reply = send(server, dialect, "sim-echo", png(800, 900, filler=64))
    assert reply.status_code == 200, reply.text


@pytest.mark.parametrize("dialect", DIALECTS)
def test_an_image_to_a_model_without_vision_is_a_400(server: BridgeServer, dialect: str) -> None:
    reply = send(server, dialect, "sim-text-only", png(64, 64))
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert "does not accept images" in error["message"]
    if dialect == "messages":
        assert error["type"] == "invalid_request_error"
    elif dialect == "gemini":
        assert error["status"] == "INVALID_ARGUMENT"
    else:
        assert error["type"] == "invalid_request_error"
