"""Every request a real client sent (tests/fixtures), replayed in its own dialect through the
real Copilot 0.67 provider (tests/copilot_host.py) to a model of each family Copilot serves
differently: GPT on the chat API, GPT-5 on the Responses API, Claude on the Messages API and
Gemini. Each must come back 200 with a whole answer: a request Copilot or its cloud would
refuse (a tool name, a schema, an unpaired call, the tool count) fails here as it would for a
user. The fake cloud answers every one (tests/fake_capi/).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from copilot_host import copilot_fixtures
from fake_capi import FakeCapi
from replay_captures import HOP_HEADERS, assert_normal_answer, captures, for_model, sse_data
from vscode_host import VSCodeHost

pytestmark = pytest.mark.timeout(900)

capi, vscode = copilot_fixtures()

FAMILY_MODELS = ("gpt-4.1", "gpt-5-mini", "claude-sonnet-4.5", "gemini-2.5-pro")
CAPTURES = captures()


def _post(url: str, body: Any, headers: dict[str, str]) -> tuple[int, str, str]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={**headers, "content-type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as reply:
            return reply.status, reply.headers.get("Content-Type", ""), reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, "", error.read().decode()


@pytest.mark.parametrize("model", FAMILY_MODELS)
def test_every_captured_request_passes_the_real_provider(
    vscode: VSCodeHost, capi: FakeCapi, model: str
) -> None:
    failures: list[str] = []
    before = len(capi.requests)
    for name, capture in CAPTURES:
        path, body = for_model(capture, model)
        headers = {k: str(v) for k, v in capture["headers"].items() if k.lower() not in HOP_HEADERS}
        root = vscode.base_url.removesuffix("/v1")
        status, content_type, text = _post(f"{root}{path}", body, headers)
        if status != 200:
            failures.append(f"{name}: {status} {text[:600]}")
            continue
        events = sse_data(text) if "text/event-stream" in content_type else [json.loads(text)]
        try:
            assert_normal_answer(path, events, name)
        except AssertionError as exc:
            failures.append(str(exc)[:800])
    assert not failures, f"{len(failures)} of {len(CAPTURES)} to {model}:\n" + "\n".join(failures)
    # Each went through Copilot to the cloud (a reply the bridge made up would not).
    assert len(capi.requests) - before >= len(CAPTURES), len(capi.requests) - before
