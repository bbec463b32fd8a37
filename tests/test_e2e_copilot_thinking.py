"""Reasoning kept across turns through the real Copilot 0.67 provider (tests/copilot_host.py):
the model's thought reaches the client with the provider's own seal (Claude's signature, a
Responses reasoning item's encrypted content), and given back in the next turn it reaches
Copilot's cloud again exactly as the cloud emitted it. Asserted on the requests the fake cloud
(tests/fake_capi/) received.

    client -> bridge -> lsp -> extension -> vscode.lm -> Copilot 0.67 -> fake CAPI
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from copilot_cloud import CLAUDE, RESPONSES_MODEL, call_rule, nonce, scripted, upstream
from copilot_host import copilot_fixtures
from fake_capi import FakeCapi
from plain_http import post
from vscode_host import VSCodeHost

pytestmark = pytest.mark.timeout(600)

capi, vscode = copilot_fixtures()

WEATHER = {
    "name": "weather",
    "description": "The weather of a city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}


def _anthropic(host: VSCodeHost, messages: list[dict[str, Any]]) -> dict[str, Any]:
    body = {
        "model": CLAUDE,
        "max_tokens": 4000,
        "thinking": {"type": "enabled", "budget_tokens": 2000},
        "tools": [WEATHER],
        "messages": messages,
    }
    reply = post(f"{host.base_url}/messages", body)
    assert reply.status_code == 200, f"{reply.text}\n{host.diagnostics()}"
    answer: dict[str, Any] = reply.json()
    return answer


def test_claude_thinking_and_its_signature_go_back_to_the_cloud_as_emitted(
    vscode: VSCodeHost, capi: FakeCapi
) -> None:
    """An agent's tool loop on Claude with thinking: the thinking block carries the cloud's
    signature (not one the bridge made up), and the next turn sends Copilot's cloud that block,
    text and signature, exactly as the cloud emitted it."""
    first, second = nonce(), nonce()
    ask = {"role": "user", "content": f"Weather in Paris? {first}"}
    with scripted(capi, [call_rule(first, "weather", {"city": "Paris"})]):
        answer = _anthropic(vscode, [ask])
    kinds = [block["type"] for block in answer["content"]]
    assert kinds[0] == "thinking" and "tool_use" in kinds, kinds
    thought = answer["content"][0]
    # The fake cloud's own signature (tests/fake_capi/sse_messages.py), verbatim.
    assert base64.b64decode(thought["signature"]).startswith(b"fake-capi-signature:"), thought
    call = next(block for block in answer["content"] if block["type"] == "tool_use")
    result = {"type": "tool_result", "tool_use_id": call["id"], "content": f"Sunny {second}"}
    _anthropic(
        vscode,
        [
            ask,
            {"role": "assistant", "content": answer["content"]},
            {"role": "user", "content": [result]},
        ],
    )
    sent = upstream(capi, second).body
    assistant = next(m for m in sent["messages"] if m["role"] == "assistant")
    thinking = [b for b in assistant["content"] if b.get("type") == "thinking"]
    assert thinking == [
        {"type": "thinking", "thinking": thought["thinking"], "signature": thought["signature"]}
    ], assistant["content"]


def test_a_made_up_signature_never_reaches_the_cloud(vscode: VSCodeHost, capi: FakeCapi) -> None:
    """A thinking block whose signature is not the provider's (another bridge's, a client's
    own) is not sent to Copilot: Anthropic would refuse it."""
    marker = nonce()
    forged = {"type": "thinking", "thinking": "I guessed.", "signature": "AM-not-a-real-one"}
    _anthropic(
        vscode,
        [
            {"role": "user", "content": "Hello"},
            {"role": "assistant", "content": [forged, {"type": "text", "text": "Hi."}]},
            {"role": "user", "content": f"Again {marker}"},
        ],
    )
    sent = upstream(capi, marker).body
    blocks = [b for m in sent["messages"] for b in m["content"] if isinstance(b, dict)]
    assert not [b for b in blocks if b.get("type") == "thinking"], blocks


def _responses(host: VSCodeHost, items: list[dict[str, Any]]) -> dict[str, Any]:
    body = {
        "model": RESPONSES_MODEL,
        "input": items,
        "reasoning": {"effort": "low", "summary": "auto"},
        "include": ["reasoning.encrypted_content"],
        "store": False,
    }
    reply = post(f"{host.base_url}/responses", body)
    assert reply.status_code == 200, f"{reply.text}\n{host.diagnostics()}"
    answer: dict[str, Any] = reply.json()
    return answer


def test_a_responses_reasoning_item_goes_back_to_the_cloud_with_its_encrypted_content(
    vscode: VSCodeHost, capi: FakeCapi
) -> None:
    """Codex's way: `include: ["reasoning.encrypted_content"]`, the output items sent back in
    the next request. The cloud gets its reasoning item again, with its id and encrypted
    content as it emitted them."""
    first, second = nonce(), nonce()
    ask = {"role": "user", "content": f"Plan a trip {first}"}
    answer = _responses(vscode, [ask])
    reasoning = [item for item in answer["output"] if item["type"] == "reasoning"]
    assert len(reasoning) == 1 and reasoning[0].get("encrypted_content"), answer["output"]
    summary = "".join(part["text"] for part in reasoning[0]["summary"])
    assert summary, reasoning
    _responses(vscode, [ask, *answer["output"], {"role": "user", "content": f"Go on {second}"}])
    sent = upstream(capi, second).body["input"]
    back = [item for item in sent if item.get("type") == "reasoning"]
    assert len(back) == 1 and back[0]["id"].startswith("rs_"), sent
    # The fake cloud's own encrypted content for that thought (tests/fake_capi/sse_responses.py).
    expected = base64.b64encode(f"fake-capi-reasoning:{summary}".encode()).decode()
    assert back[0] == {
        "type": "reasoning",
        "id": back[0]["id"],
        "summary": [],
        "encrypted_content": expected,
    }, back


def test_without_include_no_encrypted_content_is_given(vscode: VSCodeHost, capi: FakeCapi) -> None:
    marker = nonce()
    body = {"model": RESPONSES_MODEL, "input": f"Plan {marker}", "reasoning": {"effort": "low"}}
    reply = post(f"{vscode.base_url}/responses", body)
    assert reply.status_code == 200
    items = reply.json()["output"]
    assert not [i for i in items if i["type"] == "reasoning" and "encrypted_content" in i], items
