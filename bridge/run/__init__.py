"""`maestro-bridge run AGENT [-- ARGS]`: one agent on the editor's models, for one run.

- `connection`: the bridge's URL and API key (flag, environment, the key file `serve` writes);
- `bridge_check`: whether a Maestro Bridge answers there (GET /health) and its models;
- `headless`: `serve` on the embedded default, for the run's duration (`--headless`);
- `agent_spec`: what a launch is (program, arguments, environment, temporary files);
- `agents_args`, `agents_env`, `agent_gemini`: how each agent is pointed at the bridge for
  one run;
- `configured_model`: the model the agent's own configuration names, read, never written;
- `model_choice`: `--model`, else the configured model when listed, else the editor's default;
- `launch`: the agent in the foreground (exec on POSIX, a child elsewhere), its exit code;
- `argv`: the agent's own arguments, after `--`;
- `command`: the `run` subcommand itself.
"""
