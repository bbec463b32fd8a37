"""Maestro Bridge: the OpenAI Responses API served from an editor's chat models."""

__version__ = "0.1.0"
