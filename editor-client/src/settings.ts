// The extension's settings (package.json "contributes.configuration"), read in one place.

import * as vscode from 'vscode';
import { LEVELS, type LogLevel } from './logging';
import { OPTIONAL_SETTINGS, type UserValues } from './options';

export const SECTION = 'maestroBridge';

export interface Settings {
  enable: boolean;
  host: string;
  port: number;
  apiKey: string;
  logLevel: LogLevel;
  pythonPath: string;
  packageSpec: string;
  /** The bridge's optional settings (options.ts) that the user set, in any scope. */
  bridge: UserValues;
  /** The extension's global storage folder, for the usage ledger (set by the controller). */
  storageFolder?: string;
}

/** Values set in user, workspace or folder settings; defaults shown in the UI are not sent. */
function userValues(c: vscode.WorkspaceConfiguration): UserValues {
  const values: Record<string, unknown> = {};
  for (const key of OPTIONAL_SETTINGS) {
    const i = c.inspect(key);
    const set = i && [i.globalValue, i.workspaceValue, i.workspaceFolderValue].some((v) => v !== undefined);
    // get() is the effective value: VS Code merges object settings (modelAliases) across scopes.
    if (set) values[key] = c.get(key);
  }
  return values;
}

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration(SECTION);
  const level = c.get<string>('logLevel', 'info');
  return {
    enable: c.get<boolean>('enable', true),
    host: c.get<string>('host', '127.0.0.1').trim() || '127.0.0.1',
    port: c.get<number>('port', 23335),
    apiKey: c.get<string>('apiKey', ''),
    logLevel: (LEVELS as readonly string[]).includes(level) ? (level as LogLevel) : 'info',
    pythonPath: c.get<string>('pythonPath', '').trim(),
    packageSpec: c.get<string>('packageSpec', '').trim(), // empty: the wheel bundled in the VSIX
    bridge: userValues(c),
  };
}
