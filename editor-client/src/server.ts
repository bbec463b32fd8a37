// Starts and stops the language server (`python -m bridge.cli lsp`) over stdio with
// vscode-languageclient, and wires the protocol's methods to the vscode.lm endpoint.

import * as vscode from 'vscode';
import { LanguageClient, RevealOutputChannelOn, State, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { LmEndpoint } from './lm';
import { serverLogLevel, type Logger } from './logging';
import { buildInitializationOptions } from './options';
import { Methods, type ServerFailedParams, type ServerReadyParams } from './protocol';
import type { Settings } from './settings';

export interface ServerEvents {
  ready(params: ServerReadyParams): void;
  failed(message: string): void;
  inFlight(count: number): void;
}

export class BridgeServer implements vscode.Disposable {
  private stopping = false;
  private readonly disposables: vscode.Disposable[] = [];

  private constructor(readonly client: LanguageClient, readonly endpoint: LmEndpoint) {}

  /** Spawns the server and completes the LSP handshake; the URL follows in events.ready. */
  static async start(
    python: string, cwd: string, settings: Settings, log: Logger, events: ServerEvents,
  ): Promise<BridgeServer> {
    const serverOptions: ServerOptions = {
      command: python,
      args: ['-m', 'bridge.cli', 'lsp'],
      // No `transport`: TransportKind.stdio would append `--stdio`, which `lsp` does not take.
      options: {
        cwd,
        env: { ...process.env, PYTHONUNBUFFERED: '1', MAESTRO_BRIDGE_LOG_LEVEL: serverLogLevel(settings.logLevel) },
      },
    };
    const { options: initializationOptions, ignored } = buildInitializationOptions(settings, settings.bridge);
    for (const key of ignored) log.warn(`Ignoring setting maestroBridge.${key}: its value has the wrong type`);
    const clientOptions: LanguageClientOptions = {
      documentSelector: [], // no documents: the server only serves HTTP
      outputChannel: log.channel, // the server's stderr (its log) goes here too
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions,
      connectionOptions: { maxRestartCount: 3 },
    };
    const client = new LanguageClient('maestroBridge', 'Maestro Bridge', serverOptions, clientOptions);
    const endpoint = new LmEndpoint(client, log);
    const server = new BridgeServer(client, endpoint);

    client.onRequest(Methods.models, () => endpoint.models());
    client.onRequest(Methods.chat, (params: unknown, token: vscode.CancellationToken) => endpoint.chat(params, token));
    client.onRequest(Methods.countTokens, (params: unknown, token: vscode.CancellationToken) =>
      endpoint.countTokens(params, token),
    );
    client.onNotification(Methods.serverReady, (p: ServerReadyParams) => events.ready(p));
    client.onNotification(Methods.serverFailed, (p: ServerFailedParams) => events.failed(p.message));
    server.disposables.push(
      endpoint,
      endpoint.onDidChangeInFlight((n) => events.inFlight(n)),
      client.onDidChangeState((e) => {
        if (e.newState === State.Stopped && !server.stopping) events.failed('the language server stopped');
      }),
    );
    log.info(`Starting ${python} -m bridge.cli lsp (${settings.host}:${settings.port})`);
    try {
      await client.start();
    } catch (err) {
      await server.dispose();
      throw err;
    }
    return server;
  }

  /** Polite LSP shutdown (the server closes its HTTP endpoint), then the process exits. */
  async dispose(): Promise<void> {
    this.stopping = true;
    for (const d of this.disposables.splice(0)) d.dispose();
    try {
      if (this.client.isRunning()) await this.client.stop(5000);
    } catch {
      // already gone: nothing left to stop
    }
  }
}
