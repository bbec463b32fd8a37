"""`maestro-bridge configure`: write a client's configuration for the running bridge.

- `codex_names`: which model names Codex offers its full tool set to;
- `bridge_models`: asks the running bridge for its models (GET /v1/models);
- `codex_choice`: the name Codex should ask for, and the alias the bridge then needs;
- `codex_toml`: merges our keys into `$CODEX_HOME/config.toml`, keeping everything else;
- `codex_command`: the `configure codex` subcommand itself (options, output, exit codes).
"""
