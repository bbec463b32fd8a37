"""Model names: aliases and the default model (bridge/core/models.py), from settings and the CLI
through to a real `maestro-bridge serve`."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from conftest import REPO_ROOT, BridgeServer, StartServer
from processes import run
from spec_validation import parse_sse, validate_response, validate_stream

from bridge.cli import _parser
from bridge.core.backend import ModelInfo
from bridge.core.errors import ApiError
from bridge.core.models import ModelNames, listed_models, parse_alias, resolve_model
from bridge.settings import BridgeSettings

MODELS = [
    ModelInfo(id="sim-echo", name="Echo", vendor="sim", family="echo", maxInputTokens=1000),
    ModelInfo(id="gpt-4.1", name="GPT 4.1", vendor="copilot", family="gpt-4.1"),
]
ALIASES = ModelNames({"gpt-5.5": "sim-echo", "codex-mini": "gpt-4.1"})


def not_found(requested: str, names: ModelNames | None = None) -> ApiError:
    with pytest.raises(ApiError) as info:
        resolve_model(requested, MODELS, names)
    error = info.value
    assert (error.status, error.code, error.param) == (404, "model_not_found", "model")
    assert error.type == "invalid_request_error"
    return error


# --------------------------------------------------------------------------- resolution


def test_editor_id_without_names() -> None:
    assert resolve_model("gpt-4.1", MODELS) is MODELS[1]
    assert resolve_model("sim-echo", MODELS, ModelNames()) is MODELS[0]


def test_alias_maps_onto_its_target() -> None:
    assert resolve_model("gpt-5.5", MODELS, ALIASES) is MODELS[0]
    assert resolve_model("codex-mini", MODELS, ALIASES) is MODELS[1]


def test_editor_ids_still_resolve_with_aliases() -> None:
    assert resolve_model("sim-echo", MODELS, ALIASES) is MODELS[0]


def test_alias_beats_an_editor_id_of_the_same_name() -> None:
    names = ModelNames({"gpt-4.1": "sim-echo"})
    assert resolve_model("gpt-4.1", MODELS, names) is MODELS[0]


def test_names_are_matched_exactly() -> None:
    not_found("GPT-5.5", ALIASES)
    not_found("gpt-5.5 ", ALIASES)


def test_unknown_name_is_404_listing_models_and_aliases() -> None:
    error = not_found("gpt-6", ALIASES)
    assert "'gpt-6'" in error.message
    assert "Available models: sim-echo, gpt-4.1." in error.message
    assert "Aliases: gpt-5.5, codex-mini." in error.message


def test_unknown_name_without_aliases_lists_models_only() -> None:
    error = not_found("gpt-6")
    assert "Available models: sim-echo, gpt-4.1." in error.message
    assert "Aliases" not in error.message


def test_no_models_at_all() -> None:
    with pytest.raises(ApiError) as info:
        resolve_model("sim-echo", [], ALIASES)
    assert "Available models: none." in info.value.message
    assert "Aliases" not in info.value.message  # none of them leads anywhere


def test_alias_to_a_missing_model_is_404_naming_both() -> None:
    names = ModelNames({"gpt-5.5": "claude-9"})
    error = not_found("gpt-5.5", names)
    assert "'gpt-5.5'" in error.message and "'claude-9'" in error.message
    assert "sim-echo" in error.message


def test_broken_alias_does_not_fall_back_to_the_default() -> None:
    # A mistyped alias target must be reported, not silently answered by another model.
    not_found("gpt-5.5", ModelNames({"gpt-5.5": "claude-9"}, default="sim-echo"))


def test_default_model_answers_unknown_names() -> None:
    names = ModelNames(ALIASES.aliases, default="gpt-4.1")
    assert resolve_model("anything-at-all", MODELS, names) is MODELS[1]
    # Known ids and aliases keep their own model.
    assert resolve_model("sim-echo", MODELS, names) is MODELS[0]
    assert resolve_model("gpt-5.5", MODELS, names) is MODELS[0]


def test_default_model_that_is_missing_is_404() -> None:
    error = not_found("gpt-6", ModelNames(default="claude-9"))
    assert "'gpt-6'" in error.message and "'claude-9'" in error.message


# --------------------------------------------------------------------------- listing


def test_listing_adds_aliases_after_the_editor_models() -> None:
    listed = listed_models(MODELS, ALIASES)
    assert [entry["id"] for entry in listed] == ["sim-echo", "gpt-4.1", "gpt-5.5", "codex-mini"]
    assert [entry.get("alias_for") for entry in listed] == [None, None, "sim-echo", "gpt-4.1"]
    alias = listed[2]
    assert alias == {
        "id": "gpt-5.5",
        "object": "model",
        "created": 0,
        "owned_by": "sim",
        "name": "Echo",
        "family": "echo",
        "version": "",
        "max_input_tokens": 1000,
        "alias_for": "sim-echo",
    }


def test_listing_without_names_is_the_editor_list() -> None:
    listed = listed_models(MODELS)
    assert [entry["id"] for entry in listed] == ["sim-echo", "gpt-4.1"]
    assert all("alias_for" not in entry for entry in listed)
    assert listed[1]["owned_by"] == "copilot"


def test_listing_skips_aliases_that_lead_nowhere() -> None:
    listed = listed_models(MODELS, ModelNames({"gpt-5.5": "claude-9"}))
    assert [entry["id"] for entry in listed] == ["sim-echo", "gpt-4.1"]


def test_alias_shadowing_an_editor_id_is_listed_once_as_the_alias() -> None:
    listed = listed_models(MODELS, ModelNames({"gpt-4.1": "sim-echo"}))
    assert [(e["id"], e.get("alias_for")) for e in listed] == [
        ("sim-echo", None),
        ("gpt-4.1", "sim-echo"),
    ]


# --------------------------------------------------------------------------- configuration


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("gpt-5.5=sim-echo", ("gpt-5.5", "sim-echo")),
        (" gpt-5.5 = sim-echo ", ("gpt-5.5", "sim-echo")),
        ("a=b=c", ("a", "b=c")),
    ],
)
def test_parse_alias(text: str, expected: tuple[str, str]) -> None:
    assert parse_alias(text) == expected


@pytest.mark.parametrize("text", ["gpt-5.5", "=sim-echo", "gpt-5.5=", " = ", ""])
def test_parse_alias_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="NAME=MODEL"):
        parse_alias(text)


def test_settings_from_initialization_options() -> None:
    settings = BridgeSettings.from_options(
        {"protocolVersion": 1, "modelAliases": {"gpt-5.5": "sim-echo"}, "defaultModel": "x"}
    )
    assert settings.model_names() == ModelNames({"gpt-5.5": "sim-echo"}, "x")


def test_settings_default_to_no_names() -> None:
    assert BridgeSettings.from_options(None).model_names() == ModelNames()
    # An editor setting left empty means "no default", not a model named "".
    assert BridgeSettings.from_options({"defaultModel": ""}).model_names().default is None


def test_settings_reject_non_string_aliases() -> None:
    with pytest.raises(ValueError):
        BridgeSettings.from_options({"modelAliases": {"gpt-5.5": 3}})


def test_cli_collects_repeated_aliases() -> None:
    args = _parser().parse_args(
        ["serve", "--model-alias", "gpt-5.5=sim-echo", "--model-alias", "o9=sim-reasoning"]
    )
    assert dict(args.model_alias) == {"gpt-5.5": "sim-echo", "o9": "sim-reasoning"}
    assert args.default_model is None


def test_cli_defaults_and_default_model() -> None:
    args = _parser().parse_args(["serve", "--default-model", "sim-echo"])
    assert args.model_alias == []
    assert args.default_model == "sim-echo"


def test_cli_rejects_a_malformed_alias(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        _parser().parse_args(["serve", "--model-alias", "gpt-5.5"])
    assert info.value.code == 2
    assert "NAME=MODEL" in capsys.readouterr().err


# --------------------------------------------------------------------------- end to end


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
        yield session


async def post(
    http: aiohttp.ClientSession, server: BridgeServer, body: dict[str, Any]
) -> tuple[int, str]:
    async with http.post(f"{server.base_url}/responses", json=body) as reply:
        return reply.status, await reply.text()


async def test_served_aliases(
    http: aiohttp.ClientSession, bridge_server_factory: StartServer
) -> None:
    server = bridge_server_factory(
        "--model-alias", "gpt-5.5=sim-echo", "--model-alias", "o-think=sim-reasoning"
    )
    # JSON: the Response names the model the client asked for; sim-echo answered.
    status, text = await post(http, server, {"model": "gpt-5.5", "input": "Hello!"})
    assert status == 200, text
    response = json.loads(text)
    validate_response(response)
    assert response["model"] == "gpt-5.5"
    assert response["output"][-1]["content"][0]["text"] == "You said: Hello!"

    # SSE: every event's Response carries the alias; sim-reasoning answered (it thinks).
    body = {"model": "o-think", "input": "Hello!", "stream": True, "reasoning": {"effort": "low"}}
    status, text = await post(http, server, body)
    assert status == 200, text
    events = parse_sse(text)
    final = validate_stream(events)
    assert {e["response"]["model"] for e in events if "response" in e} == {"o-think"}
    assert [item["type"] for item in final["output"]] == ["reasoning", "message"]

    async with http.get(f"{server.base_url}/models") as reply:
        listing = await reply.json()
    # Copilot's `auto` and utility aliases are not the point here (whether /v1/models shows
    # them is the bridge's listing's business): left out of the comparison.
    internal = {"auto", "copilot-utility", "copilot-utility-small"}
    assert [(m["id"], m.get("alias_for")) for m in listing["data"] if m["id"] not in internal] == [
        ("sim-echo", None),
        ("sim-reasoning", None),
        ("sim-bench", None),
        ("sim-gemini", None),
        ("sim-text-only", None),
        ("sim-gpt5", None),
        ("gpt-5.5", "sim-echo"),
        ("o-think", "sim-reasoning"),
    ]

    # No default: an unknown name is a 404 that lists models and aliases.
    status, text = await post(http, server, {"model": "gpt-6", "input": "hi"})
    assert status == 404, text
    error = json.loads(text)["error"]
    assert error["code"] == "model_not_found" and error["param"] == "model"
    assert "sim-echo, sim-reasoning" in error["message"]
    assert "gpt-5.5, o-think" in error["message"]

    # The printed Codex configuration uses the first alias: a name Codex knows.
    deadline = time.monotonic() + 10
    while 'model = "gpt-5.5"' not in "".join(server.stdout_lines):
        assert time.monotonic() < deadline, "".join(server.stdout_lines)
        await asyncio.sleep(0.05)
    server.assert_alive()


async def test_served_default_model(
    http: aiohttp.ClientSession, bridge_server_factory: StartServer
) -> None:
    server = bridge_server_factory("--default-model", "sim-reasoning")
    asked = {"model": "some-model", "input": "Hello!", "reasoning": {"effort": "low"}}
    status, text = await post(http, server, asked)
    assert status == 200, text
    response = json.loads(text)
    validate_response(response)
    assert response["model"] == "some-model"
    assert [item["type"] for item in response["output"]] == ["reasoning", "message"]
    # A known id is still answered by its own model (sim-echo does not think).
    status, text = await post(http, server, {"model": "sim-echo", "input": "Hello!"})
    assert [item["type"] for item in json.loads(text)["output"]] == ["message"]
    server.assert_alive()


def test_serve_rejects_a_malformed_alias() -> None:
    result = run(
        [sys.executable, "-m", "bridge.cli", "serve", "--port", "0", "--model-alias", "nope"],
        cwd=REPO_ROOT,
        timeout=30,
    )
    assert result.returncode == 2
    assert "NAME=MODEL" in result.stderr
