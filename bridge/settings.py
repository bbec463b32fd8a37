"""The HTTP endpoint's settings (from the editor's initialization options)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from bridge.models import ModelNames

DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024  # several base64 images fit
DEFAULT_WEBSOCKET_MAX_SECONDS = 60 * 60  # OpenAI's WebSocket mode closes after 60 minutes too
# Emitted items kept for `item_reference` (bridge/item_cache.py): thousands of answers.
DEFAULT_ITEM_CACHE_BYTES = 16 * 1024 * 1024


class Limits(BaseModel):
    model_config = ConfigDict(extra="ignore")
    maxBodyBytes: int = Field(default=DEFAULT_MAX_BODY_BYTES, ge=1024)
    websocketMaxSeconds: float = Field(default=DEFAULT_WEBSOCKET_MAX_SECONDS, gt=0)
    # Generous for long agent sessions; they bound the work one request can cause.
    maxInputItems: int = Field(default=10_000, ge=1)
    maxTools: int = Field(default=512, ge=0)
    maxJsonDepth: int = Field(default=100, ge=8)
    # Model requests running at once; more get 429 with Retry-After.
    maxConcurrentRequests: int = Field(default=64, ge=1)
    # Seconds without a part from the editor (reasoning models can think a long while first).
    idleTimeoutSeconds: float = Field(default=300.0, gt=0)
    totalTimeoutSeconds: float = Field(default=1800.0, gt=0)
    # Seconds one write of a stream (SSE, WebSocket) may wait for a client that stopped
    # reading; then its connection is closed and its model slot freed.
    writeTimeoutSeconds: float = Field(default=30.0, gt=0)
    # Memory for emitted items that `item_reference` may name; 0 keeps none.
    itemCacheBytes: int = Field(default=DEFAULT_ITEM_CACHE_BYTES, ge=0)


class BridgeSettings(BaseModel):
    model_config = ConfigDict(extra="ignore")
    protocolVersion: int = 1
    host: str = "127.0.0.1"
    port: int = Field(default=0, ge=0, le=65535)
    # When another Maestro Bridge holds `port`, wait for it to go and take over (editors with
    # several windows, lsp/endpoint.py) instead of failing.
    standby: bool = False
    apiKey: str | None = None
    # A non-loopback host is refused unless this is true and an apiKey is set.
    allowRemote: bool = False
    # Extra Host header names accepted besides loopback names and the bound host ("*": any).
    allowedHosts: list[str] = Field(default_factory=list)
    # Browser origins (scheme://host[:port]) allowed to call the endpoint, with CORS for them.
    allowedOrigins: list[str] = Field(default_factory=list)
    limits: Limits = Field(default_factory=Limits)
    # Seconds of model silence on a stream before a `keepalive` event; 0 turns it off.
    keepaliveSeconds: float = Field(default=10.0, ge=0)
    # Requested name -> editor model id, and the model for names nobody mapped (bridge/models.py).
    modelAliases: dict[str, str] = Field(default_factory=dict)
    defaultModel: str | None = None

    def model_names(self) -> ModelNames:
        return ModelNames(dict(self.modelAliases), self.defaultModel or None)

    @classmethod
    def from_options(cls, options: Any) -> BridgeSettings:
        return cls.model_validate(options or {})
