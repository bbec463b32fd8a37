"""Maestro Bridge: the OpenAI Responses API served from an editor's chat models."""

__version__ = "0.1.0"
# What `GET /health` calls this service: how a language server that finds its port taken tells
# another Maestro Bridge (stand by for it) from any other program (an error).
SERVICE_NAME = "maestro-bridge"
