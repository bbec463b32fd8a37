// Starts and stops the language server (`python -m bridge.cli lsp`) over stdio with
// vscode-languageclient, and wires the protocol's methods to the vscode.lm endpoint.

import { spawn, type ChildProcess } from 'node:child_process';
import * as vscode from 'vscode';
import {
  CloseAction, LanguageClient, RevealOutputChannelOn, State,
  type ErrorHandler, type LanguageClientOptions, type ServerOptions,
} from 'vscode-languageclient/node';
import { LanguageEndpoint } from './language';
import { LmEndpoint } from './lm';
import { serverLogLevel, type Logger } from './logging';
import { buildInitializationOptions, toolsEnabled } from './options';
import { webSearchNeedsTls, webSearchUsesEditorTool } from './webSearchOptions';
import { Methods, type ServerFailedParams, type ServerReadyParams, type ServerStandbyParams } from './protocol';
import type { Settings } from './settings';
import { ToolsEndpoint } from './tools';

const EXIT_GRACE_MS = 2000;
const MAX_RESTARTS = 3;

export interface ServerEvents {
  ready(params: ServerReadyParams): void;
  standby(params: ServerStandbyParams): void;
  failed(message: string): void;
  inFlight(count: number): void;
}

export class BridgeServer implements vscode.Disposable {
  private stopping = false;
  private started = false;
  private readonly disposables: vscode.Disposable[] = [];

  private constructor(
    readonly client: LanguageClient,
    readonly endpoint: LmEndpoint,
    private readonly spawned: { process?: ChildProcess },
  ) {}

  /** Spawns the server and completes the LSP handshake; the URL follows in events.ready. */
  static async start(
    python: string, cwd: string, settings: Settings, log: Logger, events: ServerEvents,
  ): Promise<BridgeServer> {
    const spawned: { process?: ChildProcess } = {};
    // We spawn the process ourselves (rather than give the client a command) to keep its handle:
    // the client cannot stop a server whose initialize failed (a setting out of range), and that
    // server would wait on its open stdin for ever.
    const serverOptions: ServerOptions = () => {
      const child = spawn(python, ['-m', 'bridge.cli', 'lsp'], {
        cwd,
        env: {
          ...process.env,
          PYTHONUNBUFFERED: '1',
          MAESTRO_BRIDGE_LOG_LEVEL: serverLogLevel(settings.logLevel),
          // A web search over https needs the `ssl` module the server otherwise leaves out.
          ...(webSearchNeedsTls(settings.bridge) ? { MAESTRO_BRIDGE_TLS: '1' } : {}),
        },
        stdio: 'pipe',
      });
      // Without a listener, a spawn error (no such file) would be thrown in the extension host.
      child.once('error', (err) => log.error(`${python}: ${err.message}`));
      if (child.pid === undefined) return Promise.reject(new Error(`Could not start ${python}`));
      spawned.process = child;
      return Promise.resolve(child);
    };
    const { options: initializationOptions, ignored } = buildInitializationOptions(settings, settings.bridge);
    for (const key of ignored) log.warn(`Ignoring setting maestroBridge.${key}: its value has the wrong type`);
    const clientOptions: LanguageClientOptions = {
      documentSelector: [], // no documents: the server only serves HTTP
      outputChannel: log.channel, // the server's stderr (its log) goes here too
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions,
      errorHandler: {
        error: (error, message, count) => restarts.error(error, message, count),
        // A crash restarts the server (a few times); one we end ourselves must stay ended.
        closed: () => (server.stopping ? { action: CloseAction.DoNotRestart, handled: true } : restarts.closed()),
      },
    };
    const client = new LanguageClient('maestroBridge', 'Maestro Bridge', serverOptions, clientOptions);
    const restarts: ErrorHandler = client.createDefaultErrorHandler(MAX_RESTARTS);
    const endpoint = new LmEndpoint(client, log);
    const server = new BridgeServer(client, endpoint, spawned);

    client.onRequest(Methods.models, () => endpoint.models());
    client.onRequest(Methods.chat, (params: unknown, token: vscode.CancellationToken) => endpoint.chat(params, token));
    client.onRequest(Methods.countTokens, (params: unknown, token: vscode.CancellationToken) =>
      endpoint.countTokens(params, token),
    );
    client.onNotification(Methods.chatAck, (p: unknown) => endpoint.chatAck(p));
    client.onNotification(Methods.serverReady, (p: ServerReadyParams) => events.ready(p));
    if (toolsEnabled(settings.bridge) || webSearchUsesEditorTool(settings.bridge)) {
      // The editor's tools and language features, for the MCP server at /mcp (and the editor
      // tool that runs the web searches, docs/web-search.md).
      const tools = new ToolsEndpoint(client, log);
      const language = new LanguageEndpoint(log);
      server.disposables.push(tools);
      client.onRequest(Methods.tools, () => tools.tools());
      client.onRequest(Methods.invokeTool, (params: unknown, token: vscode.CancellationToken) => tools.invoke(params, token));
      client.onRequest(Methods.language, (params: unknown, token: vscode.CancellationToken) => language.answer(params, token));
    }
    client.onNotification(Methods.serverStandby, (p: ServerStandbyParams) => events.standby(p));
    client.onNotification(Methods.serverFailed, (p: ServerFailedParams) => events.failed(p.message));
    server.disposables.push(
      endpoint,
      endpoint.onDidChangeInFlight((n) => events.inFlight(n)),
      client.onDidChangeState((e) => {
        // A failed start is reported by start()'s rejection, which says why.
        if (e.newState === State.Stopped && server.started && !server.stopping) events.failed('the language server stopped');
      }),
    );
    log.info(`Starting ${python} -m bridge.cli lsp (${settings.host}:${settings.port})`);
    try {
      await client.start();
      server.started = true;
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
    const child = this.spawned.process;
    if (child && child.exitCode === null && child.signalCode === null) {
      // Not stopped politely (its start failed, or it did not answer): give it a moment, then end it.
      const exited = new Promise<boolean>((resolve) => child.once('exit', () => resolve(true)));
      const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), EXIT_GRACE_MS));
      if (!(await Promise.race([exited, timeout]))) child.kill();
    }
  }
}
