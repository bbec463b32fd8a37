// Entry point: wires the logger, status bar, controller and commands; restarts the bridge
// when its settings change; stops it on deactivate.

import * as vscode from 'vscode';
import { registerAgentCommands } from './agentCommands';
import { registerCommands } from './commands';
import { Controller } from './controller';
import type { BridgeState } from './convert';
import { Logger } from './logging';
import { readSettings, SECTION } from './settings';
import { StatusItem } from './status';
import { ToolsKey } from './toolsKey';
import { UsageWatch } from './usageWatch';

/** What other extensions (and the end-to-end test) can read of the bridge. */
export interface MaestroBridgeApi {
  state(): BridgeState;
  onDidChangeState: vscode.Event<BridgeState>;
  /** The status bar item's tooltip as shown (with today's usage once read). */
  statusTooltip(): string;
}

let controller: Controller | undefined;

export function activate(context: vscode.ExtensionContext): MaestroBridgeApi {
  const log = new Logger('Maestro Bridge', readSettings().logLevel);
  const status = new StatusItem();
  const keys = new ToolsKey(context.secrets, context.environmentVariableCollection, log);
  const ctl = new Controller(context.globalStorageUri, context.extensionUri.fsPath, log, status, keys);
  controller = ctl;
  context.subscriptions.push(
    log,
    status,
    new UsageWatch(ctl, status, log),
    ...registerCommands(ctl, log, context.globalStorageUri),
    ...registerAgentCommands(ctl, log, context.globalStorageUri),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SECTION)) {
        log.info('Settings changed: restarting');
        void ctl.restart();
      }
    }),
  );
  void ctl.restart();
  return { state: () => ctl.state, onDidChangeState: ctl.onDidChangeState, statusTooltip: () => status.tooltip };
}

export async function deactivate(): Promise<void> {
  await controller?.shutdown();
  controller = undefined;
}
