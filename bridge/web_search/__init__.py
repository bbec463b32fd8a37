"""Web search the bridge runs for the clients' hosted search tools (docs/web-search.md).

backends/: the search services (SearXNG, Brave, Tavily, an editor tool); service.py: the one
the settings name, turning its failures into error codes; results.py: what a search gives,
bounded and reduced to text; request.py: what a request asked for, and whether a service
runs it; loop.py: the backend wrapper that runs the model's searches and continues its answer;
events.py: how a search travels from the loop to the dialects; citations.py: the model's `[n]`
marks; command.py: `serve`'s flags.
"""
