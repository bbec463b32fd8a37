// The status bar item: URL and requests in flight, or the error; a click shows the status.

import * as vscode from 'vscode';
import { statusText, type BridgeState } from './convert';

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('maestroBridge.status', vscode.StatusBarAlignment.Right, 100);

  constructor() {
    this.item.name = 'Maestro Bridge';
    this.item.command = 'maestroBridge.showStatus';
    this.item.show();
  }

  show(state: BridgeState): void {
    const { text, tooltip } = statusText(state);
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.backgroundColor =
      state.kind === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
