// The bridge's lifecycle: find Python, (offer to) install maestro-bridge, start the language
// server, restart it when the settings change, and keep the status bar up to date.

import * as vscode from 'vscode';
import type { BridgeState } from './convert';
import type { Logger } from './logging';
import { bundledWheel, findInterpreter, installPrivately, neutralCwd } from './python';
import { BridgeServer } from './server';
import { readSettings, type Settings } from './settings';
import { NO_KEY_WARNING, type ToolsKey } from './toolsKey';
import type { StatusItem } from './status';
import { Trailing } from './throttle';

const IN_FLIGHT_REFRESH_MS = 200;

export class Controller implements vscode.Disposable {
  private server: BridgeServer | undefined;
  private queue: Promise<void> = Promise.resolve();
  private current: BridgeState = { kind: 'stopped' };
  private readonly changes = new vscode.EventEmitter<BridgeState>();
  readonly onDidChangeState = this.changes.event;
  python: string | undefined;
  version: string | undefined;
  private offering = false;
  /** The status shows the count of requests in flight a little late, not twice per request. */
  private readonly inFlight = new Trailing<number>((n) => {
    if (this.current.kind === 'ready') this.setState({ ...this.current, inFlight: n });
  }, IN_FLIGHT_REFRESH_MS);

  constructor(
    private readonly storage: vscode.Uri,
    private readonly extensionDir: string,
    private readonly log: Logger,
    private readonly status: StatusItem,
    readonly keys: ToolsKey,
  ) {}

  get state(): BridgeState {
    return this.current;
  }

  /** The settings, with the API key the bridge requires (a generated one too). */
  get settings(): Settings {
    return this.effective ?? readSettings();
  }

  private effective: Settings | undefined;

  /** Stops whatever runs and starts again with the current settings; calls run one at a time. */
  restart(): Promise<void> {
    this.queue = this.queue.then(() => this.doRestart()).catch((err: unknown) => {
      this.fail(err instanceof Error ? err.message : String(err));
    });
    return this.queue;
  }

  stop(): Promise<void> {
    this.queue = this.queue.then(() => this.doStop());
    return this.queue;
  }

  private setState(state: BridgeState): void {
    this.current = state;
    this.status.show(state);
    this.changes.fire(state);
  }

  private fail(message: string): void {
    this.log.error(message);
    this.setState({ kind: 'error', message });
  }

  private async doStop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) {
      this.log.info('Stopping the language server');
      await server.dispose();
    }
    this.setState({ kind: 'stopped' });
  }

  private async doRestart(): Promise<void> {
    await this.doStop();
    const settings = await this.keys.effective(readSettings());
    this.effective = settings;
    this.status.showKeyWarning(this.keys.source === 'off' ? NO_KEY_WARNING : undefined);
    this.log.setLevel(settings.logLevel);
    if (!settings.enable) {
      this.log.info('Disabled by setting maestroBridge.enable');
      return;
    }
    this.setState({ kind: 'starting' });
    const found = await findInterpreter(settings.pythonPath, this.storage, this.log);
    if (!found.found) {
      this.fail(`maestro-bridge is not installed for ${found.python}`);
      void this.offerInstall(found.python);
      return;
    }
    this.python = found.python;
    this.version = found.version;
    // The usage ledger goes to the global storage folder unless a setting says otherwise.
    const withStorage = { ...settings, storageFolder: this.storage.fsPath };
    this.server = await BridgeServer.start(found.python, neutralCwd(this.storage), withStorage, this.log, {
      ready: (p) => {
        this.log.info(`Listening on ${p.url}`);
        this.inFlight.cancel(); // a count of the server before
        this.setState({ kind: 'ready', url: p.url, inFlight: 0 });
        this.keys.exportUrl(p.url);
      },
      standby: (p) => {
        // Not an error: the endpoint is there, and this window's server takes over later.
        this.log.info(`Another window serves ${p.url}: standing by to take over when it closes`);
        this.setState({ kind: 'standby', url: p.url });
      },
      failed: (message) => {
        // The client restarts a crashed server a few times: one notification is enough.
        const repeated = this.current.kind === 'error' && this.current.message === message;
        this.fail(message);
        if (repeated) return;
        void vscode.window.showErrorMessage(`Maestro Bridge: ${message}`, 'Show Logs').then((pick) => {
          if (pick) this.log.channel.show();
        });
      },
      inFlight: (n) => this.inFlight.set(n),
    });
  }

  /** Says that maestro-bridge is missing, and installs it into a private venv if the user agrees. */
  private async offerInstall(basePython: string): Promise<void> {
    if (this.offering) return; // one question at a time, however often we restart meanwhile
    this.offering = true;
    try {
      await this.askToInstall(basePython);
    } finally {
      this.offering = false;
    }
  }

  private async askToInstall(basePython: string): Promise<void> {
    const install = 'Install';
    const choose = 'Set Python Path';
    const pick = await vscode.window.showErrorMessage(
      `Maestro Bridge needs the Python package maestro-bridge, which ${basePython} does not have. ` +
        'Install it into a private environment of this extension?',
      install, choose, 'Show Logs',
    );
    if (pick === install) {
      // The setting as it is now (it may have changed meanwhile), else the wheel in the VSIX.
      const spec = readSettings().packageSpec || bundledWheel(this.extensionDir);
      if (!spec) {
        this.fail('This build of the extension has no bundled maestro-bridge wheel: set maestroBridge.packageSpec');
        return;
      }
      try {
        await installPrivately(basePython, spec, this.storage, this.log);
      } catch (err) {
        this.fail(`Installing ${spec} failed: ${err instanceof Error ? err.message : String(err)}`);
        this.log.channel.show();
        return;
      }
      await this.restart();
    } else if (pick === choose) {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'maestroBridge.pythonPath');
    } else if (pick) {
      this.log.channel.show();
    }
  }

  dispose(): void {
    this.inFlight.cancel();
    void this.stop();
    this.changes.dispose();
  }

  /** For deactivate: resolves once the language server has stopped. */
  async shutdown(): Promise<void> {
    await this.stop();
  }
}
