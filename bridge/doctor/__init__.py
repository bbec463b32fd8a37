"""`maestro-bridge doctor`: one report of why an agent does or does not reach the editor's
models, a line per check with what to do when it fails.

- `report`: a check's outcome (ok / warn / fail / info), printing it, `--json`;
- `http_probe`: the few requests the checks send (GET, POST), answered or not;
- `bridge_checks`: the bridge answers, its key, the editor and its models, its MCP server,
  its usage ledger and budgets;
- `agent_checks`: each installed agent's configuration: at the bridge, with a listed model;
- `ledger_check`: the usage database on this machine, writable;
- `command`: the `doctor` subcommand itself.
"""
