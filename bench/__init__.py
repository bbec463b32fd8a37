"""Benchmarks: the bridge end to end against a bare aiohttp SSE writer (`python -m bench`)."""
