"""The server-side tool loop: the model's web searches run by the bridge, the same answer
continued after each, for every dialect.

`SearchingBackend` wraps the backend every dialect asks (bridge/http/app.py). A request with a
`webSearch` ask (a dialect offered its hosted search tool as the function `web_search`) is
answered in rounds: the model's parts stream on as they come, but its calls of `web_search`
do not reach the client; once its round ends, the bridge runs them, streams each search as a
data part (events.py) the dialect shows in its own shape, and asks the model again with the
calls and their results in the conversation. The rounds stop when the model answers without
a search, or after the client's limit of searches: a further call gets `max_uses_exceeded`
(as Anthropic's API answers it), and the round after it is asked without the tool. A round
that also calls a client tool ends the answer there, since the client must run its tool
first. The rounds' usage is summed into one `usage` part at the end.
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
from collections.abc import AsyncGenerator

from bridge.core.backend import (
    Backend,
    ChatMessage,
    ChatRequest,
    DataPart,
    ModelInfo,
    ResponsePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from bridge.core.editor_usage import UsageCounts, usage_of_part
from bridge.web_search.events import result_text, search_part
from bridge.web_search.request import SEARCH_TOOL, SearchAsk
from bridge.web_search.results import MAX_USES_EXCEEDED, SearchOutcome
from bridge.web_search.service import SearchService

log = logging.getLogger(__name__)


class SearchingBackend:
    def __init__(self, backend: Backend, service: SearchService) -> None:
        self._backend = backend
        self._service = service

    async def list_models(self) -> list[ModelInfo]:
        return await self._backend.list_models()

    async def count_tokens(self, model: str, text: str) -> int:
        return await self._backend.count_tokens(model, text)

    def chat(self, request: ChatRequest) -> AsyncGenerator[list[ResponsePart], None]:
        ask = request.webSearch
        if not isinstance(ask, SearchAsk):
            return self._backend.chat(request)
        return self._rounds(request, ask)

    async def _rounds(
        self, request: ChatRequest, ask: SearchAsk
    ) -> AsyncGenerator[list[ResponsePart], None]:
        chat = request
        uses = 0
        numbered = 0  # results the model has read, numbered on across searches
        usage = _Usage()
        while True:
            searches: list[ToolCallPart] = []
            said: list[str] = []  # the round's text, kept in the history with its calls
            client_calls = False
            space: ResponsePart | None = None  # Copilot's " " before a call (answer.py)
            async with contextlib.aclosing(self._backend.chat(chat)) as batches:
                async for batch in batches:
                    kept: list[ResponsePart] = []
                    for part in batch:
                        if isinstance(part, ToolCallPart) and _is_search(part, chat):
                            searches.append(part)
                            space = None  # the call the space came before never shows
                            continue
                        if isinstance(part, DataPart) and part.mimeType == "usage":
                            usage.add(part)
                            continue
                        if space is not None:
                            kept.append(space)
                            space = None
                        if isinstance(part, TextPart) and part.value == " ":
                            space = part
                            continue
                        client_calls |= isinstance(part, ToolCallPart)
                        if isinstance(part, TextPart):
                            said.append(part.value)
                        kept.append(part)
                    if kept:
                        yield kept
            if space is not None:
                yield [space]
            usage.round_ended()
            if not searches:
                break
            results: list[ToolResultPart] = []
            refused = False
            for call in searches:
                if uses >= ask.max_uses:
                    refused = True
                    query = call.input.get("query")
                    outcome = SearchOutcome(call.callId, str(query or ""), error=MAX_USES_EXCEEDED)
                else:
                    uses += 1
                    outcome = await self._service.run(call.callId, call.input.get("query"), ask)
                yield [search_part(outcome)]
                text = result_text(outcome, numbered + 1)
                numbered += len(outcome.results)
                results.append(ToolResultPart(callId=call.callId, content=[TextPart(value=text)]))
            if client_calls:
                break  # the client runs its tool first; the searches were shown
            messages = [
                *chat.messages,
                ChatMessage(role="assistant", content=[*_text(said), *searches]),
                ChatMessage(role="user", content=list(results)),
            ]
            # A choice that forced a call is met: the model now chooses (and may answer).
            update: dict[str, object] = {
                "messages": messages,
                "countInput": None,
                "toolMode": "auto",
                "toolCallRequired": False,
            }
            if refused:  # past the limit: the last round, asked without the tool
                update["tools"] = [tool for tool in chat.tools if tool.name != SEARCH_TOOL]
            chat = chat.model_copy(update=update)
        total = usage.total()
        if total is not None:
            yield [total]


def _text(said: list[str]) -> list[TextPart]:
    text = "".join(said).strip()
    return [TextPart(value=text)] if text else []


def _is_search(part: ToolCallPart, chat: ChatRequest) -> bool:
    return chat.clientToolNames.get(part.name, part.name) == SEARCH_TOOL and any(
        tool.name == part.name for tool in chat.tools
    )


class _Usage:
    """The rounds' usage parts, summed; none when a round reported none (the dialect then
    counts the answer itself)."""

    def __init__(self) -> None:
        self.sum = UsageCounts(0, 0, nano_credits=0)
        self.complete = True
        self._seen = False

    def add(self, part: DataPart) -> None:
        counts = usage_of_part(part.mimeType, part.data)
        if counts is None:
            return
        self._seen = True
        total, more = self.sum, counts
        self.sum = UsageCounts(
            total.input_tokens + more.input_tokens,
            total.output_tokens + more.output_tokens,
            total.reasoning_tokens + more.reasoning_tokens,
            total.cached_tokens + more.cached_tokens,
            total.cache_write_tokens + more.cache_write_tokens,
            # Copilot's bill of the whole answer: known only when every round's is.
            None
            if total.nano_credits is None or more.nano_credits is None
            else total.nano_credits + more.nano_credits,
        )

    def round_ended(self) -> None:
        self.complete &= self._seen
        self._seen = False

    def total(self) -> DataPart | None:
        if not self.complete:
            return None
        raw = {
            "prompt_tokens": self.sum.input_tokens,
            "completion_tokens": self.sum.output_tokens,
            "completion_tokens_details": {"reasoning_tokens": self.sum.reasoning_tokens},
            "prompt_tokens_details": {
                "cached_tokens": self.sum.cached_tokens,
                "cache_creation_input_tokens": self.sum.cache_write_tokens,
            },
        }
        if self.sum.nano_credits is not None:
            raw["copilot_usage"] = {"total_nano_aiu": self.sum.nano_credits}
        data = base64.b64encode(json.dumps(raw).encode()).decode()
        return DataPart(mimeType="usage", data=data)
