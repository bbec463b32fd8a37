"""What every dialect's handlers find on the application."""

from __future__ import annotations

from aiohttp import web

from bridge.core.backend import Backend
from bridge.settings import BridgeSettings

BACKEND: web.AppKey[Backend] = web.AppKey("backend", Backend)
SETTINGS: web.AppKey[BridgeSettings] = web.AppKey("settings", BridgeSettings)
