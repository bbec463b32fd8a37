"""The VS Code extension's settings for the bridge (editor-client/package.json) show the
server's own defaults and minimums (bridge/settings.py): the extension sends only what the
user set, so the defaults its Settings UI shows must be the ones the server applies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import annotated_types
import pytest
from pydantic.fields import FieldInfo

from bridge.core.limits import Limits
from bridge.settings import BridgeSettings, UsageSettings

PACKAGE_JSON = Path(__file__).resolve().parents[1] / "editor-client" / "package.json"
TOP_LEVEL = [
    "modelAliases",
    "defaultModel",
    "keepaliveSeconds",
    "allowRemote",
    "allowedHosts",
    "allowedOrigins",
]


def properties() -> dict[str, dict[str, Any]]:
    manifest = json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))
    props: dict[str, dict[str, Any]] = manifest["contributes"]["configuration"]["properties"]
    return props


def server_fields() -> list[tuple[str, FieldInfo]]:
    top = [(name, BridgeSettings.model_fields[name]) for name in TOP_LEVEL]
    limits = [(f"limits.{name}", info) for name, info in Limits.model_fields.items()]
    usage = [(f"usage.{name}", info) for name, info in UsageSettings.model_fields.items()]
    return top + limits + usage


def test_every_bridge_setting_has_a_vscode_setting() -> None:
    ours = {k.removeprefix("maestroBridge.") for k in properties()}
    server = {name for name, _ in server_fields()}
    assert server <= ours, server - ours


@pytest.mark.parametrize(("name", "info"), server_fields(), ids=[n for n, _ in server_fields()])
def test_default_and_minimum_match_the_server(name: str, info: FieldInfo) -> None:
    prop = properties()[f"maestroBridge.{name}"]
    default = info.get_default(call_default_factory=True)
    # The server's "none" for defaultModel is the setting's empty string.
    assert prop["default"] == ("" if default is None else default)
    bounds = {type(m): m for m in info.metadata}
    if annotated_types.Ge in bounds:
        assert prop["minimum"] == bounds[annotated_types.Ge].ge
    if annotated_types.Gt in bounds:
        assert prop["exclusiveMinimum"] == bounds[annotated_types.Gt].gt
    assert ("minimum" in prop) == (annotated_types.Ge in bounds)
    expected_type = {int: "integer", float: "number", bool: "boolean", str: "string"}
    if info.annotation in expected_type:
        assert prop["type"] == expected_type[info.annotation]
