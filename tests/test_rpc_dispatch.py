"""The language server's message dispatch picks the same pygls handler as pygls itself."""

from __future__ import annotations

from typing import Any

import pytest
from pygls.protocol import LanguageServerProtocol

from lsp import rpc
from lsp.server import create_server

MESSAGES = [
    {"jsonrpc": "2.0", "id": 1, "method": "shutdown", "params": None},
    {"jsonrpc": "2.0", "id": "c", "method": rpc.CHAT, "params": {"chatId": "c"}},
    {"jsonrpc": "2.0", "method": rpc.MODELS_CHANGED, "params": None},
    {"jsonrpc": "2.0", "method": "initialized", "params": {}},
    {"jsonrpc": "2.0", "id": "chat-1", "result": {}},
    {"jsonrpc": "2.0", "id": "chat-2", "error": {"code": -32001, "message": "x"}},
]


def recorded(protocol: Any, message: dict[str, Any], dispatch: Any) -> list[tuple[str, Any]]:
    calls: list[tuple[str, Any]] = []
    for name in ("_handle_request", "_handle_notification", "_handle_response"):
        setattr(protocol, name, lambda *args, _name=name: calls.append((_name, args)))
    dispatch(protocol.structure_message(message))
    return calls


@pytest.mark.parametrize("message", MESSAGES)
def test_same_handler_as_pygls(message: dict[str, Any]) -> None:
    ours = create_server().protocol
    theirs = create_server().protocol
    got = recorded(ours, message, ours.handle_message)
    want = recorded(theirs, message, lambda m: LanguageServerProtocol.handle_message(theirs, m))
    assert len(got) == 1
    assert got[0][0] == want[0][0]
    assert repr(got[0][1]) == repr(want[0][1])
