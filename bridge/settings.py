"""The HTTP endpoint's settings (from the editor's initialization options).

Read by the layers above it (docs/architecture.md), so it imports only the core: the
request limits (bridge/core/limits.py), model names, the budgets' syntax. Where the usage ledger
is by default is bridge/usage/location.py's `ledger_path`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from bridge.core.budget_spec import Budget, BudgetSyntaxError, parse_budget
from bridge.core.limits import Limits
from bridge.core.models import ModelNames

# How long the usage ledger keeps its rows (bridge/usage/ledger.py): a year of monthly budgets
# and trends, with room to compare.
DEFAULT_RETENTION_DAYS = 400


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
    # /mcp wants the API key (apiKey): with no key set it refuses every request. False turns
    # that off on purpose (a warning is logged): any local process may then call the tools.
    requireKey: bool = True
    # Tool names as globs (fnmatch, case-sensitive): [] offers the default set (the language
    # tools and the editor's read-only tools, bridge/mcp/tool_classes.py); `@default` in the
    # list stands for that set; deny always wins.
    allow: list[str] = Field(default_factory=list)
    deny: list[str] = Field(default_factory=list)
    timeoutSeconds: float = Field(default=120.0, gt=0)
    maxResultChars: int = Field(default=100_000, ge=1000)


class WebSearchSettings(BaseModel):
    """The search service behind the clients' hosted search tools (bridge/web_search/,
    docs/web-search.md); off ("") until one is chosen."""

    model_config = ConfigDict(extra="ignore")
    backend: Literal["", "searxng", "brave", "tavily", "tool"] = ""
    # SearXNG's base URL; for brave and tavily, another address for their API (else theirs).
    url: str = ""
    tool: str = ""  # the editor's tool (`vscode.lm.tools`) that searches, for backend "tool"
    # Brave's or Tavily's key; else $MAESTRO_WEB_SEARCH_API_KEY. Never logged or shown.
    apiKey: str | None = Field(default=None, repr=False)
    maxResults: int = Field(default=5, ge=1, le=20)
    timeoutSeconds: float = Field(default=15.0, gt=0, le=120)


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
    webSearch: WebSearchSettings = Field(default_factory=WebSearchSettings)
    # The editor counts a chat's input itself when asked (`countInput`, docs/protocol.md); an
    # older one does not say, and the server counts before sending instead.
    countsChatInput: bool = False

    def model_names(self) -> ModelNames:
        return ModelNames(dict(self.modelAliases), self.defaultModel or None)

    @classmethod
    def from_options(cls, options: Any) -> BridgeSettings:
        return cls.model_validate(options or {})
