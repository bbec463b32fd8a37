// What every "Configure ..." command shares (Codex, Claude Code, Gemini CLI): the pure parts.
// The work itself is the Python command `maestro-bridge configure TARGET` (bridge/configure/),
// run with the bridge's interpreter so that the CLI and the extension write the same
// configuration; this module builds its command line and reads its JSON answer.

export const API_KEY_ENV = 'MAESTRO_BRIDGE_API_KEY';

export type ConfigureTarget = 'codex' | 'claude-code' | 'gemini';

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
 * `cheapModel`, when given, for the target's background requests (see CHEAP_MODEL).
 * `--opt=value`, so that a model id starting with `-` is not taken for an option.
 */
export function configureArgs(target: ConfigureTarget, url: string, model: string, cheapModel?: string): string[] {
  const args = ['-m', 'bridge.cli', 'configure', target, '--json', `--model=${model}`, `--base-url=${url}`];
  const cheap = CHEAP_MODEL[target];
  if (cheap && cheapModel !== undefined) args.push(`${cheap.option}=${cheapModel}`);
  return args;
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
