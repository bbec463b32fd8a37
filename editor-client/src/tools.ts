// The editor's tools for the bridge's MCP server: answers `maestro/tools` and
// `maestro/invokeTool` with vscode.lm, and sends `maestro/toolsChanged` when the list changes
// (docs/protocol.md, "Editor tools"). Registered only when tools are enabled (server.ts).

import * as vscode from 'vscode';
import { ResponseError } from 'vscode-languageclient';
import { InvalidParams } from './convert';
import type { Notifier } from './lm';
import type { Logger } from './logging';
import { INVALID_PARAMS, Methods, REQUEST_CANCELLED, type DataPart, type TextPart, type ToolInfo, type ToolResult } from './protocol';
import {
  declinedError, parseInvokeToolParams, toolFailedError, untrustedError, toolListSignature, toolPartKindByShape, toToolInfo, toToolResultPart, unknownToolError,
  type ToolPartKind, type ToolRpcError,
} from './toolConvert';

function kindOf(part: unknown): ToolPartKind {
  if (part instanceof vscode.LanguageModelTextPart) return 'text';
  if (part instanceof vscode.LanguageModelPromptTsxPart) return 'promptTsx';
  if (part instanceof vscode.LanguageModelDataPart) return 'data';
  return toolPartKindByShape(part);
}

/** VS Code (1.139) has no public event for changes of `vscode.lm.tools`: the list is read
 * this often (a local read in the extension host) and compared. */
const TOOLS_POLL_MS = 2000;

const asResponse = (e: ToolRpcError): ResponseError<unknown> => new ResponseError(e.code, e.message, e.data);

export class ToolsEndpoint implements vscode.Disposable {
  /** Running invocations by invocationId (the JSON-RPC id that `$/cancelRequest` names), so
   * that stopping the server cancels every tool still running. */
  private readonly running = new Map<string, vscode.CancellationTokenSource>();
  private readonly subscription: vscode.Disposable;
  private signature = toolListSignature(vscode.lm.tools);
  /** Trusting the workspace brings the tools: the clients hear that the list changed. */
  private readonly trust = vscode.workspace.onDidGrantWorkspaceTrust(() => {
    this.notifier.sendNotification(Methods.toolsChanged).catch((err: unknown) => this.log.warn(String(err)));
  });

  constructor(private readonly notifier: Notifier, private readonly log: Logger) {
    // A VS Code that has the event (`lm.onDidChangeTools`, proposed so far) says it at once.
    const event = Reflect.get(vscode.lm, 'onDidChangeTools') as vscode.Event<void> | undefined;
    if (typeof event === 'function') {
      this.subscription = event(() => this.check());
    } else {
      const timer = setInterval(() => this.check(), TOOLS_POLL_MS);
      this.subscription = new vscode.Disposable(() => clearInterval(timer));
    }
  }

  /** Tells the server when the tool list is not what it was. */
  private check(): void {
    const now = toolListSignature(vscode.lm.tools);
    if (now === this.signature) return;
    this.signature = now;
    this.log.debug('The tools changed; telling the language server');
    this.notifier.sendNotification(Methods.toolsChanged).catch((err: unknown) => this.log.warn(String(err)));
  }

  dispose(): void {
    this.trust.dispose();
    this.subscription.dispose();
    for (const source of this.running.values()) source.cancel();
  }

  tools(): { tools: ToolInfo[] } {
    // An untrusted workspace (VS Code's workspace trust) offers agents no tools at all.
    if (!vscode.workspace.isTrusted) {
      this.log.debug('maestro/tools: the workspace is not trusted, no tools');
      return { tools: [] };
    }
    const tools = vscode.lm.tools.map(toToolInfo);
    this.log.debug(`maestro/tools: ${tools.length} tools`);
    return { tools };
  }

  async invoke(params: unknown, token: vscode.CancellationToken): Promise<ToolResult> {
    let request;
    try {
      request = parseInvokeToolParams(params);
    } catch (err) {
      if (err instanceof InvalidParams) throw new ResponseError(INVALID_PARAMS, `Malformed invokeTool request: ${err.message}`);
      throw err;
    }
    const { invocationId, name } = request;
    if (!vscode.workspace.isTrusted) throw asResponse(untrustedError());
    if (!vscode.lm.tools.some((t) => t.name === name)) throw asResponse(unknownToolError(name));
    // Our own source: `$/cancelRequest` (the client's token) and stopping the server both end it.
    const source = new vscode.CancellationTokenSource();
    const onCancel = token.onCancellationRequested(() => {
      this.log.debug(`${invocationId}: ${name} cancelled by the server`);
      source.cancel();
    });
    const key = invocationId || `${name}-${Date.now()}`;
    this.running.set(key, source);
    const started = Date.now();
    this.log.debug(`${invocationId}: invoking ${name}`);
    if (this.log.enabled('trace')) this.log.trace(`${invocationId} input: ${JSON.stringify(request.input)}`);
    try {
      // Outside a chat (no toolInvocationToken): VS Code asks the user itself where the tool
      // wants a confirmation.
      const result = await vscode.lm.invokeTool(name, { input: request.input, toolInvocationToken: undefined }, source.token);
      if (source.token.isCancellationRequested) throw new ResponseError(REQUEST_CANCELLED, 'Request cancelled');
      const content: Array<TextPart | DataPart> = [];
      for (const part of result.content) {
        const wire = toToolResultPart(kindOf(part), part);
        if (wire) content.push(wire);
        else this.log.debug(`${invocationId}: skipped a result part the protocol has no shape for`);
      }
      this.log.debug(`${invocationId}: ${name} done in ${Date.now() - started} ms, ${content.length} parts`);
      return { content };
    } catch (err) {
      if (err instanceof ResponseError) throw err;
      if (source.token.isCancellationRequested) throw new ResponseError(REQUEST_CANCELLED, 'Request cancelled');
      // VS Code 1.139 shows a modal confirmation for a tool that asks for one outside a chat,
      // and throws a CancellationError ("Canceled") when the user declines it.
      if (err instanceof Error && err.name === 'Canceled') throw asResponse(declinedError(name));
      const e = toolFailedError(err);
      this.log.debug(`${invocationId}: ${name} failed after ${Date.now() - started} ms (${e.data.name || 'error'})`);
      throw asResponse(e);
    } finally {
      this.running.delete(key);
      onCancel.dispose();
      source.dispose();
    }
  }
}
