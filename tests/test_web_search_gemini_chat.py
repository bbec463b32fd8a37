"""Issue 44: Google's hosted `googleSearch` tool and Chat Completions' `web_search_options`
through a real `serve` with SearXNG (a FAKE one, tests/fake_search.py). Gemini: the answer's
candidate carries `groundingMetadata` (the queries, the results as `groundingChunks`, the cited
span as a `groundingSupport`), streamed and not, checked against the Gemini schema. Chat
Completions: the message carries `url_citation` annotations, checked against its schema."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chat_validation import validate_completion
from conftest import BridgeServer, running_bridge_server
from fake_search import PAGE_TITLE, PAGE_URL, fake_search
from gemini_validation import check_stream, parse_sse, validate_answer
from plain_http import post
from web_search_script import ANSWER, QUERY, search_rules

GROUNDING = {
    "webSearchQueries": [QUERY],
    "groundingChunks": [
        {"web": {"uri": PAGE_URL, "title": PAGE_TITLE}},
        {"web": {"uri": "https://other.example/news", "title": "Other news"}},
    ],
}


def _script(folder: Path) -> str:
    path = folder / "script.json"
    path.write_text(json.dumps({"rules": search_rules()}), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BridgeServer]:
    script = _script(tmp_path_factory.mktemp("script"))
    with fake_search() as search:
        args = ("--script", script, "--web-search", "searxng", "--web-search-url", search.url)
        with running_bridge_server(*args) as bridge:
            yield bridge


def _generate(server: BridgeServer, stream: bool, tools: list[Any]) -> dict[str, Any]:
    body = {"contents": [{"role": "user", "parts": [{"text": "Please search the web."}]}]}
    body["tools"] = tools
    method = "streamGenerateContent?alt=sse" if stream else "generateContent"
    reply = post(f"{server.root_url}/v1beta/models/sim-echo:{method}", body)
    assert reply.status_code == 200, reply.text
    if stream:
        return check_stream(parse_sse(reply.text).chunks)
    answer: dict[str, Any] = reply.json()
    validate_answer(answer)
    return answer


@pytest.mark.parametrize("stream", [True, False])
def test_google_search_grounds_the_answer(server: BridgeServer, stream: bool) -> None:
    answer = _generate(server, stream, [{"googleSearch": {}}])
    candidate = answer["candidates"][0]
    text = "".join(part.get("text", "") for part in candidate["content"]["parts"])
    # Google's text has no citation marks: the supports say what is cited.
    cited = ANSWER.replace(" [1]", "")
    assert text == "Let me look that up." + cited
    grounding = candidate["groundingMetadata"]
    assert {k: grounding[k] for k in GROUNDING} == GROUNDING
    start = len("Let me look that up.")
    assert grounding["groundingSupports"] == [
        {
            # The sentence, in UTF-8 bytes (all ASCII here).
            "segment": {"startIndex": start, "endIndex": len(text) - 1, "text": cited[:-1]},
            "groundingChunkIndices": [0],
        }
    ]


def test_without_a_search_tool_there_is_no_grounding(server: BridgeServer) -> None:
    answer = _generate(server, False, [{"google_search_retrieval": {}}])
    assert "groundingMetadata" in answer["candidates"][0]  # the older name runs it too
    answer = _generate(server, False, [{"functionDeclarations": []}])
    assert "groundingMetadata" not in answer["candidates"][0]


def test_chat_completions_web_search_options_annotate_the_message(server: BridgeServer) -> None:
    body = {
        "model": "sim-echo",
        "messages": [{"role": "user", "content": "Please search the web."}],
        "web_search_options": {"search_context_size": "low"},
    }
    reply = post(f"{server.base_url}/chat/completions", body)
    assert reply.status_code == 200, reply.text
    completion = reply.json()
    validate_completion(completion)
    message = completion["choices"][0]["message"]
    assert message["content"] == "Let me look that up." + ANSWER
    start = len("Let me look that up.")
    assert message["annotations"] == [
        {
            "type": "url_citation",
            "url_citation": {
                "start_index": start,
                "end_index": len(message["content"]) - 1,
                "url": PAGE_URL,
                "title": PAGE_TITLE,
            },
        }
    ]
