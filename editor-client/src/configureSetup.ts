// What every "Configure ..." command shares (Codex, Claude Code, Gemini CLI): the pure parts.
// The work itself is the Python command `maestro-bridge configure TARGET` (bridge/configure/),
// run with the bridge's interpreter so that the CLI and the extension write the same
// configuration; this module builds its command line and reads its JSON answer.

export const API_KEY_ENV = 'MAESTRO_BRIDGE_API_KEY';

export type ConfigureTarget = 'codex' | 'claude-code' | 'gemini' | 'opencode' | 'qwen';

/**
 * The option that sends a target's background requests (Claude Code's small-fast model, Gemini
 * CLI's model router and checks) to a cheaper model, and what the pick asks; Codex has none.
 */
export const CHEAP_MODEL: Partial<Record<ConfigureTarget, { option: string; placeHolder: string }>> = {
  'claude-code': {
    option: '--small-model',
    placeHolder: 'A cheaper model for Claude Code\'s background requests (prompt hooks and other helpers)',
  },
  gemini: {
    option: '--router-model',
    placeHolder: 'A cheaper model for Gemini CLI\'s model router and background checks',
  },
};

/**
 * `python ARGS`: configure `target` for `model` on the bridge at `url`, answering in JSON;
 * `cheapModel`, when given, for the target's background requests (see CHEAP_MODEL); `tools`:
 * also add the bridge's MCP server (the editor's tools) to the client (`--tools`).
 * `--opt=value`, so that a model id starting with `-` is not taken for an option.
 */
export function configureArgs(target: ConfigureTarget, url: string, model: string, cheapModel?: string, tools = false): string[] {
  const args = ['-m', 'bridge.cli', 'configure', target, '--json', `--model=${model}`, `--base-url=${url}`];
  const cheap = CHEAP_MODEL[target];
  if (cheap && cheapModel !== undefined) args.push(`${cheap.option}=${cheapModel}`);
  if (tools) args.push('--tools');
  return args;
}

/** The name the client's configuration gives the bridge's MCP server (bridge/configure/mcp_server.py). */
export const MCP_SERVER_NAME = 'maestro';

/** A quick-pick entry for whether the client also gets the editor's tools. */
export interface ToolsItem {
  label: string;
  description: string;
  tools: boolean;
}

/** The choices for the editor's tools: the models alone first (as before), then models and tools. */
export function toolsItems(client: string): ToolsItem[] {
  return [
    { label: 'Models only', description: `${client} uses the editor's models, as before`, tools: false },
    {
      label: 'Models and editor tools',
      description: `also adds the MCP server "${MCP_SERVER_NAME}" (the editor's tools, problems, definitions, references, symbols) to ${client}`,
      tools: true,
    },
  ];
}

/** A quick-pick entry for the cheap model: a model, or the first entry that keeps the default. */
export interface CheapModelItem {
  label: string;
  description: string;
  modelId: string | undefined;
}

/** The choices for the cheap model: "keep the default" first (the pick is optional), then each model. */
export function cheapModelItems(models: readonly { id: string; name: string; vendor: string }[]): CheapModelItem[] {
  return [
    { label: 'No cheaper model', description: 'the client\'s own choice, as before', modelId: undefined },
    ...models.map((m) => ({ label: m.name, description: `${m.vendor} · ${m.id}`, modelId: m.id })),
  ];
}

/**
 * The command's environment: the key goes in the variable (an argument would show in `ps`),
 * and only when the bridge has one, so that the client is told to send a key exactly when needed.
 */
export function configureEnv(base: NodeJS.ProcessEnv, apiKey: string): NodeJS.ProcessEnv {
  const env = { ...base };
  if (apiKey) env[API_KEY_ENV] = apiKey;
  else delete env[API_KEY_ENV];
  return env;
}

/** The fields of the `--json` answer every target has. */
export interface FileOutcome {
  config: string;
  written: boolean;
  backup: string | null;
  report: string[];
}

export const isString = (v: unknown): v is string => typeof v === 'string';

/** The field of the `--json` answer every target has about `--tools`. */
export interface ToolsOutcome {
  /** The bridge's MCP server added to the client (`--tools`), else null. */
  mcpUrl: string | null;
}

/** Whether the answer has the `--tools` field in its shape (for each target's `fits`). */
export const toolsFieldFits = (o: Record<string, unknown>): boolean => o.mcpUrl === null || isString(o.mcpUrl);

/**
 * The notification's sentence about the editor's tools: none without them; else where the
 * client finds them and, while the bridge's tools are off, the setting that turns them on.
 */
export function toolsMessage(o: ToolsOutcome, toolsEnabled: boolean): string {
  if (o.mcpUrl === null) return '';
  const off = toolsEnabled ? '' : ' The editor\'s tools are off: turn on the setting maestroBridge.tools.enable.';
  return ` Editor tools: MCP server "${MCP_SERVER_NAME}" at ${o.mcpUrl}.${off}`;
}

/**
 * The JSON `maestro-bridge configure TARGET` printed, as `T`; throws when it is not JSON or
 * when the common fields, or the target's own (`fits`), are not the expected shape.
 */
export function parseOutcome<T extends FileOutcome>(
  stdout: string, target: ConfigureTarget, fits: (o: Record<string, unknown>) => boolean,
): T {
  let data: unknown;
  try {
    data = JSON.parse(stdout);
  } catch {
    throw new Error(`unexpected output from maestro-bridge configure ${target}: ${stdout.slice(0, 200)}`);
  }
  const o = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  const common =
    isString(o.config) && typeof o.written === 'boolean' && (o.backup === null || isString(o.backup)) &&
    Array.isArray(o.report) && o.report.every(isString);
  if (!common || !fits(o)) {
    throw new Error(`maestro-bridge configure ${target} answered in an unexpected shape (an older version?)`);
  }
  return o as unknown as T;
}

/** What happened to the file: `wrote PATH (backup: B)`, or that it was already up to date. */
export function fileMessage(o: FileOutcome): string {
  const what = o.written ? `wrote ${o.config}` : `${o.config} was already up to date`;
  return o.backup ? `${what} (backup: ${o.backup})` : what;
}
