"""The usage ledger: one row per model request the bridge makes and per editor tool an agent
calls over MCP, in a SQLite file shared by every bridge on the machine; read back as totals,
groups and recent rows.

- `clients`: which agent or SDK sent a request, from its User-Agent;
- `location`: where the file lives by default, per platform;
- `rows`: a row and the table it goes to;
- `ledger`: the writer (a thread of its own: the event loop never waits on the disk);
- `queries`: totals, groups by client / model / day / tool, recent rows, tokens for budgets;
- `meter`: the backend wrapper that measures each chat with the editor and records it.
"""
