// "Configure Codex": the pure parts. The work itself is the Python command
// `maestro-bridge configure codex` (bridge/configure/), run with the bridge's interpreter so
// that the CLI and the extension write the same configuration; this module builds its
// command line, reads its JSON answer and works out the alias setting it may ask for.

export const API_KEY_ENV = 'MAESTRO_BRIDGE_API_KEY';

/**
 * `python ARGS`: configure Codex for `model` on the bridge at `url`, answering in JSON.
 * `--opt=value`, so that a model id starting with `-` is not taken for an option.
 */
export function configureArgs(url: string, model: string): string[] {
  return ['-m', 'bridge.cli', 'configure', 'codex', '--json', `--model=${model}`, `--base-url=${url}`];
}

/**
 * The command's environment: the key goes in the variable (an argument would show in `ps`),
 * and only when the bridge has one, so that Codex is told to send a key exactly when needed.
 */
export function configureEnv(base: NodeJS.ProcessEnv, apiKey: string): NodeJS.ProcessEnv {
  const env = { ...base };
  if (apiKey) env[API_KEY_ENV] = apiKey;
  else delete env[API_KEY_ENV];
  return env;
}

export interface CodexAlias {
  name: string;
  target: string;
  present: boolean;
}

/** The command's `--json` answer (the fields we use). */
export interface ConfigureOutcome {
  config: string;
  written: boolean;
  backup: string | null;
  codexModel: string;
  editorModel: string;
  alias: CodexAlias | null;
  apiKeyEnv: string | null;
  report: string[];
}

const isString = (v: unknown): v is string => typeof v === 'string';

/** The JSON the command printed; throws when it is not the expected shape. */
export function parseOutcome(stdout: string): ConfigureOutcome {
  let data: unknown;
  try {
    data = JSON.parse(stdout);
  } catch {
    throw new Error(`unexpected output from maestro-bridge configure codex: ${stdout.slice(0, 200)}`);
  }
  const o = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  const alias = o.alias as Record<string, unknown> | null | undefined;
  const aliasOk =
    alias === null || (typeof alias === 'object' && isString(alias.name) && isString(alias.target) && typeof alias.present === 'boolean');
  const ok =
    isString(o.config) && typeof o.written === 'boolean' && (o.backup === null || isString(o.backup)) &&
    isString(o.codexModel) && isString(o.editorModel) && aliasOk &&
    (o.apiKeyEnv === null || isString(o.apiKeyEnv)) && Array.isArray(o.report) && o.report.every(isString);
  if (!ok) throw new Error('maestro-bridge configure codex answered in an unexpected shape (an older version?)');
  return o as unknown as ConfigureOutcome;
}

/** Where a setting is set (`inspect()`), narrowed to the scopes we may write. */
export interface SettingScopes<T> {
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

export type Scope = 'global' | 'workspace' | 'workspaceFolder';

/**
 * The `maestroBridge.modelAliases` write that makes `alias` effective, or undefined when the
 * effective value (VS Code merges object settings across scopes) already has it. It goes to
 * the most specific scope that sets the setting (the same name there would win over a
 * broader scope), else to the user settings, and keeps that scope's other aliases.
 */
export function aliasUpdate(
  scopes: SettingScopes<Record<string, string>>, effective: Record<string, string> | undefined, alias: CodexAlias,
): { scope: Scope; value: Record<string, string> } | undefined {
  if (effective?.[alias.name] === alias.target) return undefined;
  const order: [Scope, Record<string, string> | undefined][] = [
    ['workspaceFolder', scopes.workspaceFolderValue],
    ['workspace', scopes.workspaceValue],
    ['global', scopes.globalValue],
  ];
  const [scope, current] = order.find(([, value]) => value !== undefined) ?? ['global', undefined];
  return { scope, value: { ...(current ?? {}), [alias.name]: alias.target } };
}

/** The one-line notification after a successful run. */
export function outcomeMessage(o: ConfigureOutcome, aliasSet: boolean): string {
  const what = o.written ? `wrote ${o.config}` : `${o.config} was already up to date`;
  const backup = o.backup ? ` (backup: ${o.backup})` : '';
  const model = o.codexModel === o.editorModel ? o.codexModel : `${o.codexModel} (answered by ${o.editorModel})`;
  const alias = aliasSet && o.alias ? ` Set the alias ${o.alias.name} → ${o.alias.target}; the bridge restarts.` : '';
  const key = o.apiKeyEnv ? ` Export ${o.apiKeyEnv} with the API key where you run codex.` : '';
  return `Codex configured: ${what}${backup}, model ${model}.${alias}${key}`;
}
