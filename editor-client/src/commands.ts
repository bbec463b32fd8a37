// The commands of the "Maestro Bridge" category.

import { execFile } from 'node:child_process';
import * as vscode from 'vscode';
import { claudeOutcomeMessage, parseClaudeOutcome } from './claudeSetup';
import { aliasUpdate, outcomeMessage, parseCodexOutcome, type ConfigureOutcome, type Scope } from './codexSetup';
import {
  CHEAP_MODEL, cheapModelItems, configureArgs, configureEnv, toolsItems, toolsMessage, type ConfigureTarget, type FileOutcome, type ToolsOutcome,
} from './configureSetup';
import type { Controller } from './controller';
import { geminiOutcomeMessage, parseGeminiOutcome } from './geminiSetup';
import { codexConfig, endpointUrlOf, toRpcError } from './convert';
import type { Logger } from './logging';
import { neutralCwd } from './python';
import { showStatus } from './statusReport';
import { SECTION } from './settings';
import { UsagePanel } from './usagePanel';

const CONFIGURE_TIMEOUT_MS = 60_000;

const JUSTIFICATION =
  'Maestro Bridge serves this model to tools on this computer (Codex CLI, Claude Code, Gemini CLI, Aider, SDKs) through its local OpenAI, Anthropic and Gemini APIs.';

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

/**
 * The optional cheaper model for the target's background requests: a model id, `null` when
 * the user keeps the client's default, `undefined` when the pick was dismissed (cancel).
 */
async function pickCheapModel(target: ConfigureTarget): Promise<string | null | undefined> {
  const cheap = CHEAP_MODEL[target];
  if (!cheap) return null;
  const models = await vscode.lm.selectChatModels({});
  const picked = await vscode.window.showQuickPick(cheapModelItems(models), { placeHolder: cheap.placeHolder });
  if (!picked) return undefined;
  return picked.modelId ?? null;
}

/** Whether the client also gets the editor's tools (`--tools`); `undefined` when dismissed. */
async function pickTools(client: string): Promise<boolean | undefined> {
  const picked = await vscode.window.showQuickPick(toolsItems(client), { placeHolder: `Also give ${client} the editor's tools?` });
  return picked?.tools;
}

/** Whether the bridge offers the editor's tools now (the setting another part of the extension owns). */
function toolsEnabled(): boolean {
  return vscode.workspace.getConfiguration(SECTION).get<boolean>('tools.enable') === true;
}

export function endpointUrl(controller: Controller): string | undefined {
  const url = endpointUrlOf(controller.state); // served by this window or by another one
  if (url) return url;
  void vscode.window.showWarningMessage('Maestro Bridge is not running: see its status.', 'Show Status').then((p) => {
    if (p) void vscode.commands.executeCommand('maestroBridge.showStatus');
  });
  return undefined;
}

/** `python -m bridge.cli configure TARGET ...` (or `doctor`): its stdout, or an Error with its message. */
export function runConfigure(python: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(python, args, { cwd, env, timeout: CONFIGURE_TIMEOUT_MS }, (err, stdout, stderr) => {
      if (!err) return resolve(String(stdout));
      const message = String(stderr).trim().replace(/^maestro-bridge: /, '') || err.message;
      reject(new Error(message));
    });
  });
}

/** One "Configure CLIENT" command: the client's name, its target, how to read and finish. */
export interface ConfigureSpec<T extends FileOutcome & ToolsOutcome> {
  client: string;
  target: ConfigureTarget;
  parse: (stdout: string) => T;
  /** Runs after the configuration was written; returns the notification to show. */
  finish: (outcome: T) => Promise<string>;
}

/** Asks for a model, runs `maestro-bridge configure TARGET` with it, and reports. */
export async function configureClient<T extends FileOutcome & ToolsOutcome>(
  controller: Controller, storage: vscode.Uri, log: Logger, spec: ConfigureSpec<T>,
): Promise<void> {
  const url = endpointUrl(controller);
  if (!url || !controller.python) return;
  const model = await pickModel(`The model ${spec.client} should use`);
  if (!model) return;
  const cheapModel = await pickCheapModel(spec.target);
  if (cheapModel === undefined) return;
  const tools = await pickTools(spec.client);
  if (tools === undefined) return;
  const args = configureArgs(spec.target, url, model.id, cheapModel ?? undefined, tools);
  log.info(`$ ${controller.python} ${args.join(' ')}`);
  let outcome: T;
  try {
    const stdout = await runConfigure(controller.python, args, configureEnv(process.env, controller.settings.apiKey), neutralCwd(storage));
    outcome = spec.parse(stdout);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    log.error(`Configure ${spec.client}: ${message}`);
    void vscode.window.showErrorMessage(`Maestro Bridge could not configure ${spec.client}: ${message}`, 'Show Logs').then((p) => {
      if (p) log.channel.show();
    });
    return;
  }
  for (const line of outcome.report) log.info(line);
  const enabled = toolsEnabled();
  const message = (await spec.finish(outcome)) + toolsMessage(outcome, enabled);
  if (outcome.mcpUrl === null || enabled) {
    void vscode.window.showInformationMessage(message);
    return;
  }
  // The client now knows the server, but the bridge offers no tools until the user turns them on.
  void vscode.window.showInformationMessage(message, TURN_ON_TOOLS).then(async (picked) => {
    if (picked !== TURN_ON_TOOLS) return;
    try {
      await vscode.workspace.getConfiguration(SECTION).update('tools.enable', true, vscode.ConfigurationTarget.Global);
      log.info(`Set ${SECTION}.tools.enable (global): true`);
    } catch (err) {
      void vscode.window.showWarningMessage(`Maestro Bridge could not turn on its editor tools: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    // With tools on, the bridge wants an API key (toolsKey.ts) on every request: once it runs
    // with it, the client's configuration is written again so that it sends the key.
    await controller.restart();
    await whenServing(controller);
    const again = endpointUrl(controller);
    if (!again || !controller.python || !controller.settings.apiKey) return;
    const rerun = configureArgs(spec.target, again, model.id, cheapModel ?? undefined, tools);
    log.info(`$ ${controller.python} ${rerun.join(' ')} (again, with the API key)`);
    try {
      const rewritten = spec.parse(await runConfigure(controller.python, rerun, configureEnv(process.env, controller.settings.apiKey), neutralCwd(storage)));
      for (const line of rewritten.report) log.info(line);
      void vscode.window.showInformationMessage(`Maestro Bridge: editor tools on, with an API key; ${spec.client}'s configuration now sends it.`);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      log.error(`Configure ${spec.client} again: ${why}`);
      void vscode.window.showWarningMessage(`Maestro Bridge turned on its tools, which need an API key, but could not configure ${spec.client} again: ${why}`);
    }
  });
}

const TURN_ON_TOOLS = 'Turn On Editor Tools';
const SERVING_WAIT_MS = 30_000;

/** Resolves once the bridge serves (its URL known) or failed, or after SERVING_WAIT_MS: a
 * restart resolves when the server started, its URL follows in a notification. */
function whenServing(controller: Controller): Promise<void> {
  if (endpointUrlOf(controller.state)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      subscription.dispose();
      resolve();
    };
    const timer = setTimeout(done, SERVING_WAIT_MS);
    const subscription = controller.onDidChangeState((state) => {
      if (endpointUrlOf(state) || state.kind === 'error' || state.kind === 'stopped') done();
    });
  });
}

const SCOPES: Record<Scope, vscode.ConfigurationTarget> = {
  global: vscode.ConfigurationTarget.Global,
  workspace: vscode.ConfigurationTarget.Workspace,
  workspaceFolder: vscode.ConfigurationTarget.WorkspaceFolder,
};

/** After Codex's config.toml is written: adds the alias it needs to the settings. */
async function addCodexAlias(outcome: ConfigureOutcome, log: Logger): Promise<string> {
  let aliasSet = false;
  if (outcome.alias) {
    const config = vscode.workspace.getConfiguration(SECTION);
    const key = 'modelAliases';
    const update = aliasUpdate(config.inspect<Record<string, string>>(key) ?? {}, config.get(key), outcome.alias);
    if (update) {
      await config.update(key, update.value, SCOPES[update.scope]); // restarts the bridge
      log.info(`Set ${SECTION}.${key} (${update.scope}): ${outcome.alias.name} -> ${outcome.alias.target}`);
      aliasSet = true;
    }
  }
  return outcomeMessage(outcome, aliasSet);
}

export function registerCommands(controller: Controller, log: Logger, storage: vscode.Uri): vscode.Disposable[] {
  const register = (id: string, fn: () => unknown): vscode.Disposable => vscode.commands.registerCommand(id, fn);
  return [
    register('maestroBridge.copyEndpointUrl', async () => {
      const url = endpointUrl(controller);
      if (!url) return;
      await vscode.env.clipboard.writeText(url);
      void vscode.window.showInformationMessage(`Copied ${url}. ${controller.keys.describe()}`);
    }),
    register('maestroBridge.copyCodexConfig', async () => {
      const url = endpointUrl(controller);
      if (!url) return;
      const model = await pickModel('The model Codex should use');
      if (!model) return;
      await vscode.env.clipboard.writeText(codexConfig(url, model.id, controller.settings.apiKey !== ''));
      void vscode.window.showInformationMessage('Copied a Codex configuration: paste it into ~/.codex/config.toml.');
    }),
    register('maestroBridge.configureCodex', () => configureClient(controller, storage, log, {
      client: 'Codex', target: 'codex', parse: parseCodexOutcome, finish: (o) => addCodexAlias(o, log),
    })),
    register('maestroBridge.configureClaudeCode', () => configureClient(controller, storage, log, {
      client: 'Claude Code', target: 'claude-code', parse: parseClaudeOutcome, finish: (o) => Promise.resolve(claudeOutcomeMessage(o)),
    })),
    register('maestroBridge.configureGeminiCli', () => configureClient(controller, storage, log, {
      client: 'Gemini CLI', target: 'gemini', parse: parseGeminiOutcome, finish: (o) => Promise.resolve(geminiOutcomeMessage(o)),
    })),
    register('maestroBridge.showStatus', () => showStatus(controller, log, storage)),
    register('maestroBridge.showUsage', async () => {
      const url = endpointUrl(controller);
      if (url) await UsagePanel.show(url, controller.settings.apiKey);
    }),
    register('maestroBridge.restart', () => controller.restart()),
    register('maestroBridge.rotateApiKey', async () => {
      if (controller.keys.source !== 'generated') {
        void vscode.window.showInformationMessage(`Maestro Bridge: nothing to rotate. ${controller.keys.describe()}`);
        return;
      }
      await controller.keys.rotate();
      await controller.restart(); // the server requires the new key; the terminals get it too
      void vscode.window.showInformationMessage(
        'Maestro Bridge: new API key in use. Terminals opened from now on have it; run configure again for agents that keep the key in their settings.',
      );
    }),
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
