// The commands of the "Maestro Bridge" category.

import * as vscode from 'vscode';
import type { Controller } from './controller';
import { codexConfig, describeState, endpointUrlOf, toRpcError } from './convert';
import type { Logger } from './logging';

const JUSTIFICATION =
  'Maestro Bridge serves this model to tools on this computer (Codex CLI, the openai SDKs) through its local Responses API.';

async function pickModel(placeHolder: string): Promise<vscode.LanguageModelChat | undefined> {
  const models = await vscode.lm.selectChatModels({});
  if (models.length === 0) {
    void vscode.window.showWarningMessage('Maestro Bridge: VS Code offers no chat models (is GitHub Copilot Chat installed and signed in?).');
    return undefined;
  }
  if (models.length === 1) return models[0];
  const picked = await vscode.window.showQuickPick(
    models.map((m) => ({ label: m.name, description: `${m.vendor} · ${m.id}`, model: m })),
    { placeHolder },
  );
  return picked?.model;
}

function endpointUrl(controller: Controller): string | undefined {
  const url = endpointUrlOf(controller.state); // served by this window or by another one
  if (url) return url;
  void vscode.window.showWarningMessage('Maestro Bridge is not running: see its status.', 'Show Status').then((p) => {
    if (p) void vscode.commands.executeCommand('maestroBridge.showStatus');
  });
  return undefined;
}

export function registerCommands(controller: Controller, log: Logger): vscode.Disposable[] {
  const register = (id: string, fn: () => unknown): vscode.Disposable => vscode.commands.registerCommand(id, fn);
  return [
    register('maestroBridge.copyEndpointUrl', async () => {
      const url = endpointUrl(controller);
      if (!url) return;
      await vscode.env.clipboard.writeText(url);
      void vscode.window.showInformationMessage(`Copied ${url}`);
    }),
    register('maestroBridge.copyCodexConfig', async () => {
      const url = endpointUrl(controller);
      if (!url) return;
      const model = await pickModel('The model Codex should use');
      if (!model) return;
      await vscode.env.clipboard.writeText(codexConfig(url, model.id, controller.settings.apiKey !== ''));
      void vscode.window.showInformationMessage('Copied a Codex configuration: paste it into ~/.codex/config.toml.');
    }),
    register('maestroBridge.showStatus', async () => {
      const state = controller.state;
      const models = await vscode.lm.selectChatModels({});
      const where = describeState(state);
      const python = controller.python ? ` Python: ${controller.python} (${controller.version ?? '?'}).` : '';
      const pick = await vscode.window.showInformationMessage(
        `Maestro Bridge is ${where}.${python} Chat models: ${models.map((m) => m.id).join(', ') || 'none'}.`,
        'Copy URL', 'Restart', 'Show Logs',
      );
      if (pick === 'Copy URL') await vscode.commands.executeCommand('maestroBridge.copyEndpointUrl');
      if (pick === 'Restart') await controller.restart();
      if (pick === 'Show Logs') log.channel.show();
    }),
    register('maestroBridge.restart', () => controller.restart()),
    register('maestroBridge.showLogs', () => log.channel.show()),
    register('maestroBridge.authorizeModelAccess', async () => {
      // VS Code asks the user once whether this extension may use another extension's models;
      // a first request made on this user action brings that question up.
      const model = await pickModel('The model Maestro Bridge may use');
      if (!model) return;
      try {
        const source = new vscode.CancellationTokenSource();
        const response = await model.sendRequest(
          [vscode.LanguageModelChatMessage.User('Reply with the single word OK.')], { justification: JUSTIFICATION }, source.token,
        );
        for await (const part of response.stream) void part; // the answer itself does not matter
        source.dispose();
        void vscode.window.showInformationMessage(`Maestro Bridge may use ${model.name}.`);
      } catch (err) {
        const { data, message } = toRpcError(err);
        log.warn(`Authorizing ${model.id}: ${data.code}: ${message}`);
        void vscode.window.showWarningMessage(
          data.code === 'NoPermissions'
            ? `Maestro Bridge has no access to ${model.name}: you did not allow it. Run "Maestro Bridge: Authorize Model Access" again to allow it.`
            : `Maestro Bridge could not use ${model.name}: ${message}`,
        );
      }
    }),
  ];
}
