"""The HTTP endpoint's settings (from the editor's initialization options)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from bridge.budgets.spec import Budget, BudgetSyntaxError, parse_budget
from bridge.core.models import ModelNames
from bridge.usage.ledger import DEFAULT_RETENTION_DAYS
from bridge.usage.location import default_usage_path

DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024  # several base64 images fit
# Request bytes held at once across requests, sized for a 2-core, 8 GB laptop: a body costs
# the language server about five times its size while it is answered (decoded, converted,
# sent to the editor) and a quarter of a second of its event loop per 30 MiB. Two bodies of
# the largest size: ~320 MB at most, `/health` within half a second (bench/big_bodies.py).
DEFAULT_MAX_CONCURRENT_BODY_BYTES = 64 * 1024 * 1024
DEFAULT_WEBSOCKET_MAX_SECONDS = 60 * 60  # OpenAI's WebSocket mode closes after 60 minutes too
DEFAULT_WEBSOCKET_KEPT_BYTES = 64 * 1024 * 1024  # a few big images, or a very long session
DEFAULT_MAX_JSON_VALUES = 500_000
# Emitted items kept for `item_reference` (bridge/responses/item_cache.py): thousands of answers.
DEFAULT_ITEM_CACHE_BYTES = 16 * 1024 * 1024
DEFAULT_ANSWER_CHECK_SECONDS = 2.0


class Limits(BaseModel):
    model_config = ConfigDict(extra="ignore")
    maxBodyBytes: int = Field(default=DEFAULT_MAX_BODY_BYTES, ge=1024)
    # Bytes of request bodies held at once by the requests being received or answered,
    # reserved from Content-Length before a body is read; past it 429 with Retry-After.
    # Never below maxBodyBytes (bridge/http/body_budget.py).
    maxConcurrentBodyBytes: int = Field(default=DEFAULT_MAX_CONCURRENT_BODY_BYTES, ge=1024)
    websocketMaxSeconds: float = Field(default=DEFAULT_WEBSOCKET_MAX_SECONDS, gt=0)
    # What one WebSocket connection keeps for `previous_response_id` (its last conversation,
    # images included), in bytes of JSON text; past it a continuation is refused. 0 keeps none.
    websocketKeptBytes: int = Field(default=DEFAULT_WEBSOCKET_KEPT_BYTES, ge=0)
    # Generous for long agent sessions; they bound the work one request can cause.
    maxInputItems: int = Field(default=10_000, ge=1)
    maxTools: int = Field(default=512, ge=0)
    maxJsonDepth: int = Field(default=100, ge=8)
    # JSON values (strings, numbers, objects, arrays) in one request body: bounds the CPU that
    # parsing and converting a body can take (a full 10,000-item session holds ~150,000).
    maxJsonValues: int = Field(default=DEFAULT_MAX_JSON_VALUES, ge=1000)
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
    # A request body must arrive whole within this many seconds (else 408, connection closed);
    # it is read before the request takes a model slot, so a slow sender holds none.
    bodyTimeoutSeconds: float = Field(default=30.0, gt=0)
    # Once a request's first bytes arrived, its headers must be complete within this (slowloris).
    headerTimeoutSeconds: float = Field(default=15.0, gt=0)
    # A connection with no request running is closed after this long (HTTP keep-alive).
    keepAliveTimeoutSeconds: float = Field(default=60.0, gt=0)
    # Open connections (WebSockets included); lowered to fit the process's file descriptor
    # limit. At the cap a new connection closes the longest-idle one, else it gets 503.
    maxConnections: int = Field(default=1024, ge=1)
    # Checking a structured answer against its JSON Schema (in a worker thread): past this,
    # the answer is returned "not checked" (a schema can be made to take hours).
    answerCheckSeconds: float = Field(default=DEFAULT_ANSWER_CHECK_SECONDS, gt=0, le=60)


class CreditRate(BaseModel):
    """A model's prices in AI credits per million tokens (docs/credits.md); cache reads and
    writes cost the input price where not given."""

    model_config = ConfigDict(extra="forbid")
    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cacheRead: float | None = Field(default=None, ge=0)
    cacheWrite: float | None = Field(default=None, ge=0)


class UsageSettings(BaseModel):
    """The usage ledger (bridge/usage/): where it is kept, for how long, and the credit rates
    of models whose editor states no prices."""

    model_config = ConfigDict(extra="ignore")
    # The SQLite file: "" (the default) is the user's state folder (bridge/usage/location.py),
    # "none" records nothing.
    database: str = ""
    retentionDays: int = Field(default=DEFAULT_RETENTION_DAYS, ge=1)
    # Editor model id -> its prices, for the credits estimate where the editor states none.
    creditRates: dict[str, CreditRate] = Field(default_factory=dict)

    def path(self) -> Path | None:
        """The ledger's file, or None when it is off."""
        if self.database.strip().lower() == "none":
            return None
        return Path(self.database).expanduser() if self.database.strip() else default_usage_path()


class BudgetSettings(BaseModel):
    """Token budgets (bridge/budgets/): input + output tokens per local day or calendar month,
    counted from the usage ledger. None and [] (the defaults): no budget."""

    model_config = ConfigDict(extra="ignore")
    daily: int | None = Field(default=None, ge=1)  # every request, per local day
    monthly: int | None = Field(default=None, ge=1)  # every request, per calendar month
    # "SCOPE=TOKENS/PERIOD" as `--token-budget` takes it: a client name or model:EDITOR_MODEL_ID
    # ("claude-code=2000000/day", "model:gpt-5=10000000/month").
    scoped: list[str] = Field(default_factory=list)

    @field_validator("scoped")
    @classmethod
    def _readable(cls, value: list[str]) -> list[str]:
        for text in value:
            try:
                parse_budget(text)
            except BudgetSyntaxError as exc:
                raise ValueError(str(exc)) from None
        return value

    def budgets(self) -> list[Budget]:
        """Every budget set (one per scope and period: a later one replaces an earlier)."""
        found: dict[tuple[str, str | None, str], Budget] = {}
        if self.daily is not None:
            found["all", None, "day"] = Budget("all", None, "day", self.daily)
        if self.monthly is not None:
            found["all", None, "month"] = Budget("all", None, "month", self.monthly)
        for text in self.scoped:
            budget = parse_budget(text)
            found[budget.scope, budget.name, budget.period] = budget
        return list(found.values())


class ToolSettings(BaseModel):
    """The MCP server at /mcp (bridge/mcp/): the editor's tools and language features, off
    until the user turns it on."""

    model_config = ConfigDict(extra="ignore")
    enable: bool = False
    # Tool names as globs (fnmatch, case-sensitive): [] allows every tool; deny always wins.
    allow: list[str] = Field(default_factory=list)
    deny: list[str] = Field(default_factory=list)
    timeoutSeconds: float = Field(default=120.0, gt=0)
    maxResultChars: int = Field(default=100_000, ge=1000)


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
    # Seconds of model silence on a stream before a keepalive (each dialect has its own form:
    # a `keepalive` event, `event: ping`, a `: keepalive` comment, a blank line); 0: off.
    keepaliveSeconds: float = Field(default=10.0, ge=0)
    # Requested name -> editor model id, and the model for names nobody mapped
    # (bridge/core/models.py).
    modelAliases: dict[str, str] = Field(default_factory=dict)
    defaultModel: str | None = None
    usage: UsageSettings = Field(default_factory=UsageSettings)
    budgets: BudgetSettings = Field(default_factory=BudgetSettings)
    # The editor model asked once more when the requested one fails with a rate limit, a spent
    # quota or a server error before its first part (bridge/core/fallback.py); None: none.
    fallbackModel: str | None = None
    tools: ToolSettings = Field(default_factory=ToolSettings)
    # The editor counts a chat's input itself when asked (`countInput`, docs/protocol.md); an
    # older one does not say, and the server counts before sending instead.
    countsChatInput: bool = False

    def model_names(self) -> ModelNames:
        return ModelNames(dict(self.modelAliases), self.defaultModel or None)

    @classmethod
    def from_options(cls, options: Any) -> BridgeSettings:
        return cls.model_validate(options or {})
