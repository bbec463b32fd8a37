// "Configure Codex": the Codex-specific pure parts (the shared ones are in configureSetup):
// the answer of `maestro-bridge configure codex --json`, and the alias setting it may ask for.

import { fileMessage, isString, parseOutcome, toolsFieldFits, type FileOutcome, type ToolsOutcome } from './configureSetup';

export interface CodexAlias {
  name: string;
  target: string;
  present: boolean;
}

/** The command's `--json` answer (the fields we use). */
export interface ConfigureOutcome extends FileOutcome, ToolsOutcome {
  codexModel: string;
  editorModel: string;
  alias: CodexAlias | null;
  apiKeyEnv: string | null;
}

/** The JSON `configure codex` printed; throws when it is not the expected shape. */
export function parseCodexOutcome(stdout: string): ConfigureOutcome {
  return parseOutcome<ConfigureOutcome>(stdout, 'codex', (o) => {
    const alias = o.alias as Record<string, unknown> | null | undefined;
    const aliasOk =
      alias === null || (typeof alias === 'object' && isString(alias.name) && isString(alias.target) && typeof alias.present === 'boolean');
    return isString(o.codexModel) && isString(o.editorModel) && aliasOk && (o.apiKeyEnv === null || isString(o.apiKeyEnv)) && toolsFieldFits(o);
  });
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
  const model = o.codexModel === o.editorModel ? o.codexModel : `${o.codexModel} (answered by ${o.editorModel})`;
  const alias = aliasSet && o.alias ? ` Set the alias ${o.alias.name} → ${o.alias.target}; the bridge restarts.` : '';
  const key = o.apiKeyEnv ? ` Export ${o.apiKeyEnv} with the API key where you run codex.` : '';
  return `Codex configured: ${fileMessage(o)}, model ${model}.${alias}${key}`;
}
