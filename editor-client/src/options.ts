// The language server's initialization options (docs/protocol.md) from the user's settings.
// Pure (no vscode import) so it is unit-tested. Only what the user set is sent: the server's
// defaults (bridge/settings.py) stay the one place that defines them.

import * as path from 'node:path';
import {
  PROTOCOL_VERSION,
  type Budgets,
  type CreditRate,
  type InitializationOptions,
  type Limits,
  type ToolOptions,
  type UsageOptions,
} from './protocol';
import { WEB_SEARCH_SETTINGS, webSearchOptions } from './webSearchOptions';

export const LIMIT_NAMES = [
  'maxBodyBytes',
  'maxConcurrentBodyBytes',
  'maxInputItems',
  'maxTools',
  'maxJsonDepth',
  'maxConcurrentRequests',
  'idleTimeoutSeconds',
  'totalTimeoutSeconds',
  'writeTimeoutSeconds',
  'websocketMaxSeconds',
  'itemCacheBytes',
  'bodyTimeoutSeconds',
  'headerTimeoutSeconds',
  'keepAliveTimeoutSeconds',
  'maxConnections',
  'answerCheckSeconds',
  'websocketKeptBytes',
  'maxJsonValues',
] as const satisfies ReadonlyArray<keyof Limits>;

const INTEGER_LIMITS: ReadonlySet<string> = new Set([
  'maxBodyBytes', 'maxConcurrentBodyBytes', 'maxInputItems', 'maxTools', 'maxJsonDepth',
  'maxConcurrentRequests', 'itemCacheBytes', 'maxConnections', 'websocketKeptBytes', 'maxJsonValues',
]);

/** The settings (below `maestroBridge.`) passed on only when the user set them. */
export const OPTIONAL_SETTINGS: readonly string[] = [
  'modelAliases',
  'defaultModel',
  'keepaliveSeconds',
  'allowRemote',
  'allowedHosts',
  'allowedOrigins',
  ...LIMIT_NAMES.map((name) => `limits.${name}`),
  'budgets.daily',
  'budgets.monthly',
  'budgets.scoped',
  'fallbackModel',
  'usage.database',
  'usage.retentionDays',
  'usage.creditRates',
  'tools.enable',
  'tools.requireKey',
  'tools.allow',
  'tools.deny',
  'tools.timeoutSeconds',
  'tools.maxResultChars',
  ...WEB_SEARCH_SETTINGS,
];

/** Always sent: the extension's port default (23335) is not the server's (0). */
export interface Endpoint {
  host: string;
  port: number;
  apiKey: string;
  /** The extension's global storage folder (context.globalStorageUri.fsPath): where the usage
   * ledger lives unless `usage.database` says otherwise, one file for every VS Code window. */
  storageFolder?: string;
}

/** The usage ledger's file in the extension's global storage folder. */
export const USAGE_FILE = 'usage.sqlite3';

/** The values the user set, by setting name below `maestroBridge.`; a setting not set is absent. */
export type UserValues = Readonly<Record<string, unknown>>;

export interface BuiltOptions {
  options: InitializationOptions;
  /** Settings left out because their value has the wrong type (settings.json is hand-edited). */
  ignored: string[];
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function stringList(value: unknown): string[] | undefined {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return undefined;
  return (value as string[]).map((v) => v.trim()).filter((v) => v !== '');
}

export function buildInitializationOptions(endpoint: Endpoint, set: UserValues): BuiltOptions {
  const options: InitializationOptions = {
    protocolVersion: PROTOCOL_VERSION,
    host: endpoint.host,
    port: endpoint.port,
    apiKey: endpoint.apiKey || null,
    // Every window starts a server on the same port: one serves, the others stand by for it.
    standby: true,
    // lm.ts counts a chat's input as the chat starts: a long conversation crosses the pipe once.
    countsChatInput: true,
  };
  const ignored: string[] = [];
  const has = (key: string): boolean => set[key] !== undefined && set[key] !== null;

  if (has('modelAliases')) {
    const value = set['modelAliases'];
    if (typeof value === 'object' && !Array.isArray(value)) {
      const aliases: Record<string, string> = {};
      for (const [name, target] of Object.entries(value as Record<string, unknown>)) {
        // Names match exactly on the server, so they are kept as written; empty ones mean nothing.
        if (name !== '' && typeof target === 'string' && target.trim() !== '') aliases[name] = target.trim();
        else ignored.push(`modelAliases.${name}`);
      }
      if (Object.keys(aliases).length > 0) options.modelAliases = aliases;
    } else ignored.push('modelAliases');
  }
  if (has('defaultModel')) {
    const value = set['defaultModel'];
    if (typeof value !== 'string') ignored.push('defaultModel');
    else if (value.trim() !== '') options.defaultModel = value.trim(); // empty: none, the default
  }
  if (has('keepaliveSeconds')) {
    const value = set['keepaliveSeconds'];
    if (isNumber(value)) options.keepaliveSeconds = value;
    else ignored.push('keepaliveSeconds');
  }
  if (has('allowRemote')) {
    const value = set['allowRemote'];
    if (typeof value === 'boolean') options.allowRemote = value;
    else ignored.push('allowRemote');
  }
  for (const key of ['allowedHosts', 'allowedOrigins'] as const) {
    if (!has(key)) continue;
    const list = stringList(set[key]);
    if (list) options[key] = list;
    else ignored.push(key);
  }
  const limits: Limits = {};
  for (const name of LIMIT_NAMES) {
    const key = `limits.${name}`;
    if (!has(key)) continue;
    const value = set[key];
    if (isNumber(value) && (!INTEGER_LIMITS.has(name) || Number.isInteger(value))) limits[name] = value;
    else ignored.push(key);
  }
  if (Object.keys(limits).length > 0) options.limits = limits;
  const budgets = buildBudgets(set, has, ignored);
  if (Object.keys(budgets).length > 0) options.budgets = budgets;
  if (has('fallbackModel')) {
    const value = set['fallbackModel'];
    if (typeof value !== 'string') ignored.push('fallbackModel');
    else if (value.trim() !== '') options.fallbackModel = value.trim(); // empty: none, the default
  }
  const usage = usageOptions(endpoint.storageFolder, set, ignored);
  if (usage) options.usage = usage;
  const tools = toolOptions(set, has, ignored);
  if (Object.keys(tools).length > 0) options.tools = tools;
  const webSearch = webSearchOptions(set, has, ignored);
  if (Object.keys(webSearch).length > 0) options.webSearch = webSearch;
  // Ranges (minimums) are the server's to check: it refuses to start and says which value is wrong.
  return { options, ignored };
}

/** Token budgets: whole numbers of tokens, and "SCOPE=N/PERIOD" texts the server reads. */
function buildBudgets(set: UserValues, has: (key: string) => boolean, ignored: string[]): Budgets {
  const budgets: Budgets = {};
  for (const name of ['daily', 'monthly'] as const) {
    const key = `budgets.${name}`;
    if (!has(key)) continue;
    const value = set[key];
    if (isNumber(value) && Number.isInteger(value)) budgets[name] = value;
    else ignored.push(key);
  }
  if (has('budgets.scoped')) {
    const list = stringList(set['budgets.scoped']);
    if (list === undefined) ignored.push('budgets.scoped');
    else if (list.length > 0) budgets.scoped = list;
  }
  return budgets;
}

/** `usage: {database, retentionDays}`: "" (the default) is the global storage folder's file, so
 * VS Code's bridges share one ledger; "none" records nothing; anything else is the file's path. */
function usageOptions(folder: string | undefined, set: UserValues, ignored: string[]): UsageOptions | undefined {
  const usage: UsageOptions = {};
  let database = set['usage.database'];
  if (database !== undefined && database !== null && typeof database !== 'string') {
    ignored.push('usage.database');
    database = undefined;
  }
  const chosen = typeof database === 'string' ? database.trim() : '';
  if (chosen !== '') usage.database = chosen.toLowerCase() === 'none' ? 'none' : chosen;
  else if (folder) usage.database = path.join(folder, USAGE_FILE);
  const days = set['usage.retentionDays'];
  if (days !== undefined && days !== null) {
    if (isNumber(days) && Number.isInteger(days) && days >= 1) usage.retentionDays = days;
    else ignored.push('usage.retentionDays');
  }
  const rates = set['usage.creditRates'];
  if (rates !== undefined && rates !== null) {
    const read = creditRates(rates);
    if (read) usage.creditRates = read;
    else ignored.push('usage.creditRates');
  }
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/** `usage.creditRates`, each rate's prices whole and not negative; undefined if any is not. */
function creditRates(value: unknown): Record<string, CreditRate> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const price = (v: unknown): v is number => isNumber(v) && v >= 0;
  const out: Record<string, CreditRate> = {};
  for (const [model, rate] of Object.entries(value as Record<string, unknown>)) {
    if (typeof rate !== 'object' || rate === null) return undefined;
    const r = rate as Record<string, unknown>;
    if (!price(r.input) || !price(r.output)) return undefined;
    const kept: CreditRate = { input: r.input, output: r.output };
    for (const key of ['cacheRead', 'cacheWrite'] as const) {
      if (r[key] === undefined) continue;
      const v = r[key];
      if (!price(v)) return undefined;
      kept[key] = v;
    }
    out[model] = kept;
  }
  return out;
}

/** `tools: {enable, allow, deny, timeoutSeconds, maxResultChars}`: the MCP server at /mcp. */
function toolOptions(set: UserValues, has: (key: string) => boolean, ignored: string[]): ToolOptions {
  const tools: ToolOptions = {};
  if (has('tools.enable')) {
    const value = set['tools.enable'];
    if (typeof value === 'boolean') tools.enable = value;
    else ignored.push('tools.enable');
  }
  if (has('tools.requireKey')) {
    const value = set['tools.requireKey'];
    if (typeof value === 'boolean') tools.requireKey = value;
    else ignored.push('tools.requireKey');
  }
  for (const name of ['allow', 'deny'] as const) {
    const key = `tools.${name}`;
    if (!has(key)) continue;
    const list = stringList(set[key]);
    if (list) tools[name] = list;
    else ignored.push(key);
  }
  if (has('tools.timeoutSeconds')) {
    const value = set['tools.timeoutSeconds'];
    if (isNumber(value)) tools.timeoutSeconds = value;
    else ignored.push('tools.timeoutSeconds');
  }
  if (has('tools.maxResultChars')) {
    const value = set['tools.maxResultChars'];
    if (isNumber(value) && Number.isInteger(value)) tools.maxResultChars = value;
    else ignored.push('tools.maxResultChars');
  }
  return tools;
}

/** Whether the user turned the MCP server on: only then does the editor answer its methods. */
export function toolsEnabled(set: UserValues): boolean {
  return set['tools.enable'] === true;
}

/** Whether the user turned the tools' key off on purpose (`tools.requireKey: false`). */
export function toolsKeyOff(set: UserValues): boolean {
  return set['tools.requireKey'] === false;
}
