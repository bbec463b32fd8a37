// The "Maestro Bridge" output channel with the level of setting maestroBridge.logLevel.
// Prompts and model output are logged only at trace.

import * as vscode from 'vscode';

export const LEVELS = ['error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LEVELS)[number];

export class Logger implements vscode.Disposable {
  readonly channel: vscode.OutputChannel;
  private rank: number;

  constructor(name: string, level: LogLevel) {
    this.channel = vscode.window.createOutputChannel(name);
    this.rank = LEVELS.indexOf(level);
  }

  setLevel(level: LogLevel): void {
    this.rank = LEVELS.indexOf(level);
  }

  enabled(level: LogLevel): boolean {
    return LEVELS.indexOf(level) <= this.rank;
  }

  private write(level: LogLevel, message: string): void {
    if (this.enabled(level)) {
      this.channel.appendLine(`${new Date().toISOString()} [${level}] ${message}`);
    }
  }

  error(message: string): void { this.write('error', message); }
  warn(message: string): void { this.write('warn', message); }
  info(message: string): void { this.write('info', message); }
  debug(message: string): void { this.write('debug', message); }
  trace(message: string): void { this.write('trace', message); }

  dispose(): void {
    this.channel.dispose();
  }
}

/** The language server's MAESTRO_BRIDGE_LOG_LEVEL for our level (it logs prompts at DEBUG). */
export function serverLogLevel(level: LogLevel): string {
  return { error: 'ERROR', warn: 'WARNING', info: 'INFO', debug: 'INFO', trace: 'DEBUG' }[level];
}
