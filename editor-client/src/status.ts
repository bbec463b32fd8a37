// The status bar item: URL and requests in flight, or the error; a click shows the status.
// Its tooltip adds today's tokens, and a warning (text and background) when a budget is at
// 80 % or exceeded (usageWatch.ts reads them).

import * as vscode from 'vscode';
import { statusText, type BridgeState } from './convert';
import { budgetLevel, usageTooltip, type TodayUsage } from './usageStatus';

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('maestroBridge.status', vscode.StatusBarAlignment.Right, 100);
  private state: BridgeState = { kind: 'stopped' };
  private usage: TodayUsage | undefined;
  private keyWarning: string | undefined;

  constructor() {
    this.item.name = 'Maestro Bridge';
    this.item.command = 'maestroBridge.showStatus';
    this.item.show();
  }

  show(state: BridgeState): void {
    this.state = state;
    this.render();
  }

  /** Today's usage while the endpoint runs; undefined when unknown (stopped, ledger off). */
  showUsage(usage: TodayUsage | undefined): void {
    this.usage = usage;
    this.render();
  }

  /** A warning about the API key (tools served without one, on purpose); undefined: none. */
  showKeyWarning(warning: string | undefined): void {
    this.keyWarning = warning;
    this.render();
  }

  /** The tooltip as shown (for the end-to-end test, through the extension's API). */
  get tooltip(): string {
    return typeof this.item.tooltip === 'string' ? this.item.tooltip : '';
  }

  private render(): void {
    const { text, tooltip } = statusText(this.state);
    const usage = this.state.kind === 'ready' || this.state.kind === 'standby' ? this.usage : undefined;
    const budget = usage ? budgetLevel(usage.budgets) : 'ok';
    const warn = budget !== 'ok' || this.keyWarning !== undefined;
    this.item.text = warn ? `$(warning) ${text}` : text;
    const parts = [tooltip, ...(this.keyWarning ? [`WARNING: ${this.keyWarning}`] : []), ...(usage ? [usageTooltip(usage)] : [])];
    this.item.tooltip = parts.join('\n\n');
    this.item.backgroundColor =
      this.state.kind === 'error'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : warn
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
