// The API key the editor's tools need (docs/security.md): when tools are on, no
// maestroBridge.apiKey is set and maestroBridge.tools.requireKey is not false, a key is made
// once and kept in the extension's SecretStorage (the OS keychain), sent to the language server
// as its `apiKey`, and exported to VS Code's integrated terminals (MAESTRO_BRIDGE_API_KEY,
// MAESTRO_BRIDGE_URL) so that agents started there find it. Rotating makes a new one.

import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { Logger } from './logging';
import { toolsEnabled, toolsKeyOff } from './options';
import type { Settings } from './settings';

const SECRET_NAME = 'maestroBridge.toolsApiKey';
export const KEY_ENV = 'MAESTRO_BRIDGE_API_KEY';
export const URL_ENV = 'MAESTRO_BRIDGE_URL';
export const NO_KEY_WARNING =
  'Editor tools are served WITHOUT an API key (maestroBridge.tools.requireKey is false): any process on this machine can call them.';

/** Where the key the bridge requires comes from, for the status and the log. */
export type KeySource = 'setting' | 'generated' | 'none' | 'off';

export function newKey(): string {
  return randomBytes(32).toString('base64url');
}

export class ToolsKey {
  source: KeySource = 'none';

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly terminals: vscode.GlobalEnvironmentVariableCollection,
    private readonly log: Logger,
  ) {
    this.terminals.description = 'Maestro Bridge: the endpoint URL and API key for agents';
  }

  /** The settings with the key the bridge must require filled in. */
  async effective(settings: Settings): Promise<Settings> {
    if (settings.apiKey) {
      this.source = 'setting';
      this.export(settings.apiKey);
      return settings;
    }
    if (!toolsEnabled(settings.bridge)) {
      this.source = 'none';
      this.export(undefined);
      return settings;
    }
    if (toolsKeyOff(settings.bridge)) {
      this.source = 'off';
      this.log.warn(NO_KEY_WARNING);
      this.export(undefined);
      return settings;
    }
    let key = await this.secrets.get(SECRET_NAME);
    if (!key) {
      key = newKey();
      await this.secrets.store(SECRET_NAME, key);
      this.log.info('Made an API key for the editor\'s tools (kept in VS Code\'s secret storage)');
    }
    this.source = 'generated';
    this.export(key);
    return { ...settings, apiKey: key };
  }

  /** A new key in SecretStorage; the caller restarts the bridge with it. */
  async rotate(): Promise<void> {
    await this.secrets.store(SECRET_NAME, newKey());
    this.log.info('Made a new API key for the editor\'s tools');
  }

  /** The URL too, once the bridge listens (terminals opened after this see it). */
  exportUrl(url: string | undefined): void {
    if (url) this.terminals.replace(URL_ENV, url);
    else this.terminals.delete(URL_ENV);
  }

  private export(key: string | undefined): void {
    if (key) this.terminals.replace(KEY_ENV, key);
    else this.terminals.delete(KEY_ENV);
  }

  /** One sentence for Show Status and Copy Endpoint URL. */
  describe(): string {
    switch (this.source) {
      case 'setting': return `The API key is the setting maestroBridge.apiKey (also in the terminals' $${KEY_ENV}).`;
      case 'generated': return `The API key is in VS Code's secret storage and in the integrated terminals' $${KEY_ENV} (Maestro Bridge: Rotate API Key makes a new one).`;
      case 'off': return `WARNING: ${NO_KEY_WARNING}`;
      default: return 'No API key is required.';
    }
  }
}
