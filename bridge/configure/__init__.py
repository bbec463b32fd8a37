"""`maestro-bridge configure`: write a client's configuration for the running bridge.

- `arguments`: the `configure codex` / `claude-code` / `gemini` options, and running them;
- `bridge_models`: asks the running bridge for its models (GET /v1/models);
- `config_file`: reading a configuration file, and replacing it safely with a backup;
- `report`: the printed list of changes, and the `--json` output;
- `codex_names`: which model names Codex offers its full tool set to;
- `codex_choice`: the name Codex should ask for, and the alias the bridge then needs;
- `codex_toml`: merges our keys into `$CODEX_HOME/config.toml`, keeping everything else;
- `codex_command`: the `configure codex` subcommand itself (options, output, exit codes);
- `claude_choice`: the models Claude Code should ask for (main, opus, sonnet, haiku);
- `claude_settings`: merges our keys (models, small-fast model) into the `env` of Claude
  Code's `settings.json`;
- `claude_command`: the `configure claude-code` subcommand itself;
- `gemini_choice`: the model Gemini CLI should ask for (GEMINI_MODEL);
- `gemini_env`: merges our variables into Gemini CLI's `.env`, read as Gemini CLI reads it;
- `gemini_settings`: Gemini CLI's folder, and the API-key sign-in and the router model in its
  `settings.json`;
- `gemini_command`: the `configure gemini` subcommand itself;
- `mcp_server`: `--tools`, the bridge's MCP server (`maestro`, at the bridge's /mcp) as the
  clients' `mcpServers` objects hold it;
- `claude_mcp`: that server in Claude Code's `.claude.json` (Codex's goes in `codex_toml`,
  Gemini CLI's in `gemini_settings`).
"""
