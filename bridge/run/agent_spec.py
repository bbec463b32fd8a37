"""What pointing an agent at the bridge for one run amounts to: the program, the arguments
that go before the user's, the variables set (or removed) in its environment, and files made
in a temporary folder that lives as long as the run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

# What an agent must be given as a key when the bridge wants none: agents refuse to start
# without one, and a bridge without a key accepts any.
PLACEHOLDER_KEY = "maestro-bridge-no-key"


@dataclass(frozen=True)
class Target:
    """The bridge and the model, as this run uses them."""

    root: str  # without /v1
    api_key: str | None
    model: str
    context_window: int | None
    models: tuple[str, ...]  # every id the bridge lists

    @property
    def base_url(self) -> str:
        return f"{self.root}/v1"

    @property
    def key_or_placeholder(self) -> str:
        return self.api_key or PLACEHOLDER_KEY


@dataclass
class Launch:
    program: str  # the agent's command, looked up on PATH
    args: list[str] = field(default_factory=list)  # before the user's own
    env: dict[str, str | None] = field(default_factory=dict)  # None: removed for the run
    files: dict[str, str] = field(default_factory=dict)  # name in the run's folder -> text
    notes: list[str] = field(default_factory=list)  # printed before the agent starts
    prepare: Callable[[Path], None] | None = None  # fills the run's folder (beside `files`)

    @property
    def needs_folder(self) -> bool:
        return bool(self.files) or self.prepare is not None

    def environment(self, base: dict[str, str], folder: Path | None) -> dict[str, str]:
        """`base` with our variables; `{run}` in a value is the run's temporary folder."""
        env = dict(base)
        for name, value in self.env.items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value.replace("{run}", str(folder)) if folder else value
        return env
