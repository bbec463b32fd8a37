"""The search services the bridge can run a search with (docs/web-search.md)."""
