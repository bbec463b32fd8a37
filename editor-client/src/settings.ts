// The extension's settings (package.json "contributes.configuration"), read in one place.

import * as vscode from 'vscode';
import { LEVELS, type LogLevel } from './logging';

export const SECTION = 'maestroBridge';

export interface Settings {
  enable: boolean;
  host: string;
  port: number;
  apiKey: string;
  logLevel: LogLevel;
  pythonPath: string;
  packageSpec: string;
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
    packageSpec: c.get<string>('packageSpec', 'maestro-bridge').trim() || 'maestro-bridge',
  };
}
