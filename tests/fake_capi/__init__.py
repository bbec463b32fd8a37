"""A FAKE of GitHub Copilot's cloud API (CAPI), for tests only.

The real cloud cannot be reached from the tests (offline, no GitHub account), so Copilot Chat
runs against this FAKE instead: it lists models, answers the three chat APIs with the
project's simulated model in each API's real stream shape, bills prompt caching as the
providers do, fails on demand (markers) and records what it received. See README.md.
"""

from fake_capi import github_routes
from fake_capi.app import FakeCapi, running
from fake_capi.catalogue import MODELS, FakeModel
from fake_capi.recording import Recorded

__all__ = ["MODELS", "FakeCapi", "FakeModel", "Recorded", "github_routes", "running"]
