// "Run Agent in Terminal", "Configure OpenCode" and "Configure Qwen Code".

import * as vscode from 'vscode';
import { agentTerminal, chatAgentMessage, parseChatAgentOutcome, RUN_AGENTS } from './agentSetup';
import { configureClient, endpointUrl } from './commands';
import type { Controller } from './controller';
import type { Logger } from './logging';

/** Asks for an agent and opens a terminal that runs it on the bridge (`maestro-bridge run`). */
async function runAgentInTerminal(controller: Controller, log: Logger, agent?: string): Promise<void> {
  const url = endpointUrl(controller);
  if (!url || !controller.python) return;
  const chosen = agent ?? (await vscode.window.showQuickPick(
    RUN_AGENTS.map((a) => ({ label: a.label, description: a.description, agent: a.agent })),
    { placeHolder: 'The agent to run on the editor\'s models (its configuration stays as it is)' },
  ))?.agent;
  if (!chosen) return;
  const spec = agentTerminal(controller.python, chosen, url, controller.settings.apiKey);
  log.info(`Terminal: ${spec.shellPath} ${spec.shellArgs.join(' ')}`);
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri;
  const terminal = vscode.window.createTerminal({ name: spec.name, shellPath: spec.shellPath, shellArgs: spec.shellArgs, env: spec.env, cwd });
  terminal.show();
}

export function registerAgentCommands(controller: Controller, log: Logger, storage: vscode.Uri): vscode.Disposable[] {
  const register = (id: string, fn: (...args: unknown[]) => unknown): vscode.Disposable => vscode.commands.registerCommand(id, fn);
  return [
    // An argument (the agent's name) skips the pick: for keybindings and other extensions.
    register('maestroBridge.runAgentInTerminal', (agent) => runAgentInTerminal(controller, log, typeof agent === 'string' ? agent : undefined)),
    register('maestroBridge.configureOpenCode', () => configureClient(controller, storage, log, {
      client: 'OpenCode', target: 'opencode', parse: (s) => parseChatAgentOutcome(s, 'opencode'),
      finish: (o) => Promise.resolve(chatAgentMessage('OpenCode', o)),
    })),
    register('maestroBridge.configureQwenCode', () => configureClient(controller, storage, log, {
      client: 'Qwen Code', target: 'qwen', parse: (s) => parseChatAgentOutcome(s, 'qwen'),
      finish: (o) => Promise.resolve(chatAgentMessage('Qwen Code', o)),
    })),
  ];
}
