// The editor side of the protocol: answers maestro/models, maestro/chat and
// maestro/countTokens with vscode.lm, and tells the server when the model list changes.

import * as vscode from 'vscode';
import { ResponseError } from 'vscode-languageclient';
import { PartBatcher } from './batching';
import {
  InvalidParams, kindByShape, parseChatParams, toLmMessages, toModelInfo, toRpcError, toWirePart,
  type LmFactory, type PartKind,
} from './convert';
import type { Logger } from './logging';
import { allowedConfiguration, configurationOptions } from './modelConfig';
import { inputText, inputTooLongMessage } from './inputCount';
import {
  EditorErrorCodes, INPUT_TOO_LONG, Methods, REQUEST_CANCELLED, type ChatAckParams, type ChatInputParams,
  type ChatParams, type CountInput, type ModelInfo, type ResponsePart,
} from './protocol';

/** What lm.ts needs of the language client: sending notifications. */
export interface Notifier {
  sendNotification(method: string, params?: unknown): Promise<void>;
}

const factory: LmFactory<vscode.LanguageModelChatMessage, vscode.LanguageModelInputPart> = {
  text: (value) => new vscode.LanguageModelTextPart(value),
  data: (bytes, mimeType) => new vscode.LanguageModelDataPart(bytes, mimeType),
  toolCall: (callId, name, input) => new vscode.LanguageModelToolCallPart(callId, name, input),
  toolResult: (callId, content) =>
    new vscode.LanguageModelToolResultPart(
      callId, content.filter((p) => p instanceof vscode.LanguageModelTextPart || p instanceof vscode.LanguageModelDataPart),
    ),
  thinking: (value, id, metadata) => (ThinkingPart ? new ThinkingPart(value, id, metadata) : undefined),
  message: (role, content, name) =>
    new vscode.LanguageModelChatMessage(
      role === 'user' ? vscode.LanguageModelChatMessageRole.User : vscode.LanguageModelChatMessageRole.Assistant,
      content, name,
    ),
};

// The thinking part is a proposed API: use its class when this VS Code has it.
const ThinkingPart = Reflect.get(vscode, 'LanguageModelThinkingPart') as
  | (new (value: string, id?: string, metadata?: Record<string, unknown>) => vscode.LanguageModelInputPart)
  | undefined;

function kindOf(part: unknown): PartKind {
  if (part instanceof vscode.LanguageModelTextPart) return 'text';
  if (part instanceof vscode.LanguageModelToolCallPart) return 'toolCall';
  if (part instanceof vscode.LanguageModelDataPart) return 'data';
  if (ThinkingPart && part instanceof ThinkingPart) return 'thinking';
  return kindByShape(part);
}

const cancelled = (): ResponseError<unknown> => new ResponseError(REQUEST_CANCELLED, 'Request cancelled');

function rpcError(err: unknown): ResponseError<unknown> {
  const e = toRpcError(err);
  return new ResponseError(e.code, e.message, e.data);
}

export class LmEndpoint implements vscode.Disposable {
  private inFlight = 0;
  /** The open chats' batchers, for their `maestro/chatAck`. */
  private readonly batchers = new Map<string, PartBatcher>();
  private readonly toldAccessMissing = new Set<string>();
  /** The models chats used, by id: selecting one is a round trip to the workbench (about
   * 10 ms in code-server), which every chat's first part would wait for. Cleared whenever
   * the model list changes. */
  private readonly modelsById = new Map<string, vscode.LanguageModelChat>();
  private readonly changes = new vscode.EventEmitter<number>();
  /** Fires with the number of chats in flight whenever it changes. */
  readonly onDidChangeInFlight = this.changes.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly notifier: Notifier, private readonly log: Logger) {
    this.subscription = vscode.lm.onDidChangeChatModels(() => {
      this.modelsById.clear();
      log.info('The chat models changed; telling the language server');
      notifier.sendNotification(Methods.modelsChanged).catch((err: unknown) => log.warn(String(err)));
    });
  }

  dispose(): void {
    this.subscription.dispose();
    this.changes.dispose();
  }

  async models(): Promise<{ models: ModelInfo[] }> {
    const models = await vscode.lm.selectChatModels({});
    this.log.debug(`maestro/models: ${models.map((m) => `${m.vendor}/${m.id}`).join(', ') || 'none'}`);
    return { models: models.map(toModelInfo) };
  }

  async countTokens(params: unknown, token: vscode.CancellationToken): Promise<{ tokens: number }> {
    const p = (params ?? {}) as { model?: unknown; text?: unknown };
    if (typeof p.model !== 'string' || typeof p.text !== 'string') {
      throw new ResponseError(-32602, 'countTokens needs a model and a text');
    }
    const model = await this.model(p.model);
    if (!model) throw new ResponseError(EditorErrorCodes.NotFound, `No chat model ${p.model}`, { code: 'NotFound' });
    try {
      return { tokens: await model.countTokens(p.text, token) };
    } catch (err) {
      throw rpcError(err);
    }
  }

  async chat(params: unknown, token: vscode.CancellationToken): Promise<Record<string, never>> {
    let request;
    try {
      request = parseChatParams(params);
    } catch (err) {
      if (err instanceof InvalidParams) throw new ResponseError(-32602, `Malformed chat request: ${err.message}`);
      throw err;
    }
    const { chatId } = request;
    const model = await this.model(request.model);
    if (!model) {
      throw new ResponseError(EditorErrorCodes.NotFound, `No chat model ${request.model}`, { code: 'NotFound' });
    }
    this.log.debug(`${chatId}: ${model.vendor}/${model.id}, ${request.messages.length} messages, ${request.tools.length} tools`);
    if (this.log.enabled('trace')) this.log.trace(`${chatId} request: ${JSON.stringify(request)}`);
    if (request.countInput) await this.countInput(chatId, model, request, request.countInput, token);

    // Our own source, so that cancelling also covers the time before sendRequest returns.
    const source = new vscode.CancellationTokenSource();
    const onCancel = token.onCancellationRequested(() => {
      this.log.debug(`${chatId}: cancelled by the server`);
      source.cancel();
    });
    const batcher = new PartBatcher(
      (parts: ResponsePart[]) => this.notifier.sendNotification(Methods.chatParts, { chatId, parts }),
      undefined,
      request.window,
    );
    this.batchers.set(chatId, batcher);
    // Waiting for credit ends when the server cancels the chat.
    const cancelledWhileWaiting = new Promise<void>((resolve) => {
      source.token.onCancellationRequested(() => resolve());
    });
    let wasCancelled = false;
    this.setInFlight(+1);
    try {
      const options: vscode.LanguageModelChatRequestOptions = {
        modelOptions: request.modelOptions,
        tools: request.tools,
        toolMode: request.toolMode === 'required' ? vscode.LanguageModelChatToolMode.Required : vscode.LanguageModelChatToolMode.Auto,
      };
      if (request.justification !== undefined) options.justification = request.justification;
      // Copilot streams a thought's encrypted form (Claude's signature...) only when asked; the
      // server hands it to the client, which gives it back with the next turn (docs/credits.md).
      Object.assign(options, { includeEncryptedThinking: true });
      // Copilot reads the reasoning effort from the provider's `modelConfiguration`, which
      // VS Code fills from the request's `configuration` (modelConfig.ts).
      const { passed, left } = allowedConfiguration(model, request.modelConfiguration);
      Object.assign(options, configurationOptions(passed));
      if (left.length > 0) this.log.debug(`${chatId}: model configuration not passed (the model does not take it): ${left.join(', ')}`);
      const response = await model.sendRequest(toLmMessages(request.messages, factory), options, source.token);
      for await (const part of response.stream) {
        const wire = toWirePart(kindOf(part), part);
        if (wire) {
          if (this.log.enabled('trace')) this.log.trace(`${chatId} part: ${JSON.stringify(wire)}`);
          batcher.add(wire);
          // A client that reads slowly: stop reading the model's stream until the server catches up.
          if (batcher.blocked) await Promise.race([batcher.credit(), cancelledWhileWaiting]);
          if (source.token.isCancellationRequested) break;
        } else {
          this.log.debug(`${chatId}: skipped a part the protocol has no shape for`);
        }
      }
      await batcher.flush(); // every part goes out before the reply that ends the chat
    } catch (err) {
      await batcher.flush();
      if (source.token.isCancellationRequested) throw cancelled();
      const e = rpcError(err);
      const code = String((e.data as { code: string }).code);
      this.log.warn(`${chatId}: the model failed (${code}): ${e.message}`);
      if (code === 'NoPermissions') this.tellAccessMissing(model);
      if (code === 'NotFound') this.modelsById.delete(model.id); // selected afresh next time
      throw e;
    } finally {
      wasCancelled = source.token.isCancellationRequested;
      this.batchers.delete(chatId);
      this.setInFlight(-1);
      onCancel.dispose();
      source.dispose();
    }
    if (wasCancelled) throw cancelled();
    this.log.debug(`${chatId}: done`);
    return {};
  }

  /** `countInput`: the input counted as the chat starts and told to the server before any
   * part; past `maxTokens` the chat is refused before the model is asked (docs/protocol.md). */
  private async countInput(
    chatId: string, model: vscode.LanguageModelChat, request: ChatParams, asked: CountInput,
    token: vscode.CancellationToken,
  ): Promise<void> {
    let inputTokens: number;
    try {
      inputTokens = (await model.countTokens(inputText(request), token)) + asked.imageTokens;
    } catch (err) {
      if (token.isCancellationRequested) throw cancelled();
      // As an input that could not be checked: the chat goes on, the server counts later.
      this.log.warn(`${chatId}: could not count the input (${toRpcError(err).message}); sending anyway`);
      return;
    }
    const told: ChatInputParams = { chatId, inputTokens };
    await this.notifier.sendNotification(Methods.chatInput, told);
    if (asked.maxTokens > 0 && inputTokens > asked.maxTokens) {
      this.log.info(`${chatId}: the input is ${inputTokens} tokens, over the window of ${asked.maxTokens}`);
      throw new ResponseError(EditorErrorCodes.Other, inputTooLongMessage(inputTokens, asked.maxTokens), {
        code: 'Other', name: INPUT_TOO_LONG, inputTokens,
      });
    }
  }

  private async model(id: string): Promise<vscode.LanguageModelChat | undefined> {
    const known = this.modelsById.get(id);
    if (known) return known;
    const [model] = await vscode.lm.selectChatModels({ id });
    if (model) this.modelsById.set(id, model);
    return model;
  }

  /** `maestro/chatAck`: the server consumed parts of a chat, which may send more. */
  chatAck(params: unknown): void {
    const p = (params ?? {}) as Partial<ChatAckParams>;
    if (typeof p.chatId !== 'string' || typeof p.parts !== 'number') return;
    this.batchers.get(p.chatId)?.acknowledged(p.parts);
  }

  /** Once per model: the user has not allowed us to use it, and how to allow it. */
  private tellAccessMissing(model: vscode.LanguageModelChat): void {
    if (this.toldAccessMissing.has(model.id)) return;
    this.toldAccessMissing.add(model.id);
    const authorize = 'Authorize Model Access';
    void vscode.window
      .showWarningMessage(`Maestro Bridge may not use ${model.name}: requests for it get 403 until you allow it.`, authorize)
      .then((pick) => {
        if (pick === authorize) void vscode.commands.executeCommand('maestroBridge.authorizeModelAccess');
      });
  }

  private setInFlight(delta: number): void {
    this.inFlight += delta;
    this.changes.fire(this.inFlight);
  }
}
