"""A fallback model: asked once when the requested model fails before its first part with a
rate limit, a spent quota or a server error (the kinds of bridge/core/editor_failures.py).

The fallback's request is built again from what the client sent, for the fallback model
(bridge/core/copilot/request.py: its family's tool schemas, its image input), not the same
request under another id. It sits outside the usage ledger's meter, so both attempts are
rows. If the fallback fails too (before its first part), the client gets the first model's
error: that is the model it asked for, and the one whose Retry-After tells when to come back.
The answer keeps the model name the client asked for, as with aliases.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator

from bridge.core.admission import admit
from bridge.core.backend import Backend, ChatRequest, EditorError, ModelInfo, ResponsePart
from bridge.core.copilot.request import copilot_request_for
from bridge.core.editor_failures import Failure, classify_error
from bridge.core.errors import ApiError
from bridge.core.models import ModelNames, resolve_model

log = logging.getLogger(__name__)

_WHAT = {"rate_limited": "a rate limit", "quota": "a spent quota", "upstream": "a server error"}


def falls_back(failure: Failure) -> bool:
    """A failure another model may not have: a rate limit, a spent quota, a server error."""
    if failure.kind in ("rate_limited", "quota"):
        return True
    status = failure.upstream_status
    return failure.kind == "upstream" and status is not None and (status == 429 or status >= 500)


class FallbackBackend:
    """A Backend whose chats that fail so (before any part) are asked of the fallback once."""

    def __init__(self, backend: Backend, fallback_model: str, names: ModelNames) -> None:
        self.inner = backend
        self.fallback_model = fallback_model
        # Its id or an alias; never the default model that unknown names get.
        self.names = ModelNames(dict(names.aliases), None)

    async def list_models(self) -> list[ModelInfo]:
        return await self.inner.list_models()

    async def count_tokens(self, model: str, text: str) -> int:
        return await self.inner.count_tokens(model, text)

    async def chat(self, request: ChatRequest) -> AsyncGenerator[list[ResponsePart], None]:
        first = self.inner.chat(request)
        answered = False
        try:
            async for batch in first:
                answered = True
                yield batch
            return
        except EditorError as exc:
            failure = classify_error(exc)
            if answered or not falls_back(failure):
                raise
            error = exc
        finally:
            await first.aclose()
        fallback = await self._fallback_request(request, failure)
        if fallback is None:
            raise error
        second = self.inner.chat(fallback)
        answered = False
        try:
            async for batch in second:
                answered = True
                yield batch
        except EditorError as exc:
            if answered:
                raise
            log.info(
                "The fallback model %s failed too (%s); the client gets %s's error",
                fallback.model,
                classify_error(exc).kind,
                request.model,
            )
            raise error from None
        finally:
            await second.aclose()

    async def _fallback_request(self, request: ChatRequest, failure: Failure) -> ChatRequest | None:
        """The request for the fallback model, or None when it is not to be asked."""
        try:
            model = resolve_model(self.fallback_model, await self.inner.list_models(), self.names)
        except (ApiError, EditorError) as exc:
            log.warning("The fallback model %r cannot be used: %s", self.fallback_model, exc)
            return None
        if model.id == request.model:
            return None  # the fallback itself failed
        try:
            await admit(model.id)  # its own token budget may be spent
        except ApiError as exc:
            log.info("The fallback model %s is not asked: %s", model.id, exc.message)
            return None
        rebuilt = copilot_request_for(request, model)
        if rebuilt is None:
            return None
        log.info(
            "The editor failed %s with %s before any output; asking the fallback model %s once",
            request.model,
            "a rate limit" if failure.upstream_status == 429 else _WHAT[failure.kind],
            model.id,
        )
        return rebuilt
