// Pure conversions between the protocol's JSON and vscode.lm values. Nothing here imports
// `vscode`: the few constructors needed are passed in, so every rule is unit-tested in node.

import type {
  ChatMessage, ChatParams, ChatTool, CountInput, DataPart, EditorErrorData, EditorErrorName, MessagePart, ModelInfo,
  ResponsePart, TextPart,
} from './protocol';
import { modelExtras } from './modelConfig';
import { EditorErrorCodes } from './protocol';

/** Thrown for a request whose params do not have the protocol's shape (answered -32602). */
export class InvalidParams extends Error {}

// ---------------------------------------------------------------- models

interface ChatModelLike {
  id: string; name: string; vendor: string; family: string; version: string; maxInputTokens: number;
}

export function toModelInfo(model: ChatModelLike): ModelInfo {
  return {
    id: model.id,
    name: model.name,
    vendor: model.vendor,
    family: model.family,
    version: model.version,
    maxInputTokens: Number.isFinite(model.maxInputTokens) ? model.maxInputTokens : 0,
    ...modelExtras(model),
  };
}

// ---------------------------------------------------------------- requests, server -> editor

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function str(v: unknown, where: string): string {
  if (typeof v !== 'string') throw new InvalidParams(`${where} must be a string`);
  return v;
}

function parseTextOrData(v: unknown, where: string): TextPart | DataPart {
  if (!isObject(v)) throw new InvalidParams(`${where} must be an object`);
  if (v.type === 'text') return { type: 'text', value: str(v.value, `${where}.value`) };
  if (v.type === 'data') {
    return { type: 'data', mimeType: str(v.mimeType, `${where}.mimeType`), data: str(v.data, `${where}.data`) };
  }
  throw new InvalidParams(`${where}.type must be text or data`);
}

function parseMessagePart(v: unknown, where: string): MessagePart {
  if (!isObject(v)) throw new InvalidParams(`${where} must be an object`);
  switch (v.type) {
    case 'toolCall':
      return {
        type: 'toolCall',
        callId: str(v.callId, `${where}.callId`),
        name: str(v.name, `${where}.name`),
        input: isObject(v.input) ? v.input : {},
      };
    case 'toolResult': {
      const content = Array.isArray(v.content) ? v.content : [];
      return {
        type: 'toolResult',
        callId: str(v.callId, `${where}.callId`),
        content: content.map((c, i) => parseTextOrData(c, `${where}.content[${i}]`)),
      };
    }
    case 'thinking': {
      const part: MessagePart = { type: 'thinking', value: str(v.value, `${where}.value`) };
      if (typeof v.id === 'string') part.id = v.id;
      if (isObject(v.metadata)) part.metadata = v.metadata;
      return part;
    }
    default:
      return parseTextOrData(v, where);
  }
}

function parseMessage(v: unknown, where: string): ChatMessage {
  if (!isObject(v)) throw new InvalidParams(`${where} must be an object`);
  if (v.role !== 'user' && v.role !== 'assistant') throw new InvalidParams(`${where}.role must be user or assistant`);
  if (!Array.isArray(v.content)) throw new InvalidParams(`${where}.content must be a list`);
  const message: ChatMessage = {
    role: v.role,
    content: v.content.map((p, i) => parseMessagePart(p, `${where}.content[${i}]`)),
  };
  if (typeof v.name === 'string') message.name = v.name;
  return message;
}

function parseTool(v: unknown, where: string): ChatTool {
  if (!isObject(v)) throw new InvalidParams(`${where} must be an object`);
  const tool: ChatTool = {
    name: str(v.name, `${where}.name`),
    description: typeof v.description === 'string' ? v.description : '',
  };
  if (isObject(v.inputSchema)) tool.inputSchema = v.inputSchema; // verbatim: $schema, $defs intact
  return tool;
}

function tokens(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    throw new InvalidParams(`${where} must be a whole number of tokens`);
  }
  return v;
}

function parseCountInput(v: Record<string, unknown>): CountInput {
  return {
    maxTokens: tokens(v.maxTokens, 'countInput.maxTokens'),
    imageTokens: v.imageTokens === undefined ? 0 : tokens(v.imageTokens, 'countInput.imageTokens'),
  };
}

/** Checks a `maestro/chat` request's params; throws InvalidParams naming the first bad field. */
export function parseChatParams(v: unknown): ChatParams {
  if (!isObject(v)) throw new InvalidParams('params must be an object');
  if (!Array.isArray(v.messages)) throw new InvalidParams('messages must be a list');
  const tools = Array.isArray(v.tools) ? v.tools : [];
  const params: ChatParams = {
    chatId: str(v.chatId, 'chatId'),
    model: str(v.model, 'model'),
    messages: v.messages.map((m, i) => parseMessage(m, `messages[${i}]`)),
    tools: tools.map((t, i) => parseTool(t, `tools[${i}]`)),
    toolMode: v.toolMode === 'required' ? 'required' : 'auto',
    modelOptions: isObject(v.modelOptions) ? v.modelOptions : {},
    modelConfiguration: isObject(v.modelConfiguration) ? v.modelConfiguration : {},
  };
  if (typeof v.justification === 'string') params.justification = v.justification;
  // An older server sends no window: then there is no flow control.
  if (typeof v.window === 'number' && Number.isInteger(v.window) && v.window > 0) params.window = v.window;
  if (isObject(v.countInput)) params.countInput = parseCountInput(v.countInput);
  return params;
}

/** The constructors of vscode.lm, injected so the conversion stays pure. */
export interface LmFactory<Msg, Part> {
  text(value: string): Part;
  data(bytes: Uint8Array, mimeType: string): Part;
  toolCall(callId: string, name: string, input: Record<string, unknown>): Part;
  toolResult(callId: string, content: Part[]): Part;
  /** undefined where this VS Code has no thinking part: the thought is then left out. */
  thinking(value: string, id: string | undefined, metadata: Record<string, unknown> | undefined): Part | undefined;
  message(role: 'user' | 'assistant', content: Part[], name?: string): Msg;
}

function toLmPart<Msg, Part>(part: MessagePart, f: LmFactory<Msg, Part>): Part | undefined {
  switch (part.type) {
    case 'text': return f.text(part.value);
    case 'data': return f.data(fromBase64(part.data), part.mimeType);
    case 'toolCall': return f.toolCall(part.callId, part.name, part.input);
    case 'toolResult':
      return f.toolResult(part.callId, part.content.map((c) => toLmPart(c, f)).filter((p) => p !== undefined));
    case 'thinking': return f.thinking(part.value, part.id, part.metadata);
  }
}

export function toLmMessages<Msg, Part>(messages: ChatMessage[], f: LmFactory<Msg, Part>): Msg[] {
  return messages.map((m) =>
    f.message(m.role, m.content.map((p) => toLmPart(p, f)).filter((p) => p !== undefined), m.name));
}

// ---------------------------------------------------------------- response parts, editor -> server

/** What a streamed part is; decided by `instanceof` in lm.ts, or by shape for unknown classes. */
export type PartKind = 'text' | 'toolCall' | 'data' | 'thinking' | 'unknown';

/**
 * The kind of a part whose class we do not know: the thinking part is a proposed API that
 * arrives as a plain object with `value` (string or string[]) and maybe `id`.
 */
export function kindByShape(part: unknown): PartKind {
  if (!isObject(part)) return 'unknown';
  if (typeof part.callId === 'string' && typeof part.name === 'string' && 'input' in part) return 'toolCall';
  if (typeof part.mimeType === 'string' && part.data instanceof Uint8Array) return 'data';
  const value = part.value;
  if (typeof value === 'string' || (Array.isArray(value) && value.every((s) => typeof s === 'string'))) {
    // A thinking part carries `id` or `metadata`; a text part has only `value`.
    return 'id' in part || 'metadata' in part || Array.isArray(value) ? 'thinking' : 'text';
  }
  return 'unknown';
}

/** One streamed part as protocol JSON; undefined for a part the protocol has no shape for. */
export function toWirePart(kind: PartKind, part: unknown): ResponsePart | undefined {
  if (!isObject(part)) return undefined;
  switch (kind) {
    case 'text':
      return typeof part.value === 'string' ? { type: 'text', value: part.value } : undefined;
    case 'toolCall':
      return {
        type: 'toolCall',
        callId: String(part.callId),
        name: String(part.name),
        input: isObject(part.input) ? part.input : {},
      };
    case 'data':
      return part.data instanceof Uint8Array
        ? { type: 'data', mimeType: String(part.mimeType), data: toBase64(part.data) }
        : undefined;
    case 'thinking': {
      const value = Array.isArray(part.value) ? part.value.join('') : part.value;
      if (typeof value !== 'string') return undefined;
      const wire: ResponsePart = { type: 'thinking', value };
      if (typeof part.id === 'string') wire.id = part.id;
      // Copilot's encrypted thought (a Claude signature, a Responses item's content) and origin.
      if (isObject(part.metadata) && Object.keys(part.metadata).length > 0) wire.metadata = part.metadata;
      return wire;
    }
    case 'unknown':
      return undefined;
  }
}

export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

export function fromBase64(data: string): Uint8Array {
  return new Uint8Array(Buffer.from(data, 'base64'));
}

// ---------------------------------------------------------------- errors

export interface RpcError { code: number; message: string; data: EditorErrorData }

/**
 * A failure of sendRequest/selectChatModels as a protocol error. LanguageModelError's `code`
 * (NotFound, NoPermissions, Blocked) survives; anything else is `Other`. The error's `name`
 * goes along: Copilot says what failed through it (a spent quota is `ChatQuotaExceeded`, a
 * rate limit `ChatRateLimited`), and the message verbatim (`Response too long.`...).
 */
export function toRpcError(err: unknown): RpcError {
  const withFields = isObject(err) || err instanceof Error ? (err as { code?: unknown; name?: unknown }) : {};
  const code = withFields.code;
  const kind: EditorErrorName =
    code === 'NotFound' || code === 'NoPermissions' || code === 'Blocked' ? code : 'Other';
  const name = typeof withFields.name === 'string' ? withFields.name : '';
  const message = err instanceof Error ? err.message : String(err);
  return { code: EditorErrorCodes[kind], message: message || kind, data: { code: kind, name } };
}

// ---------------------------------------------------------------- user-facing text

/** The Codex CLI configuration that points at this bridge (docs/agents/codex.md shows the same). */
export function codexConfig(url: string, model: string, withKey: boolean): string {
  const lines = [
    `model = "${model}"`,
    'model_provider = "maestro"',
    '',
    '[model_providers.maestro]',
    'name = "Maestro Bridge"',
    `base_url = "${url}"`,
    'wire_api = "responses"',
  ];
  if (withKey) lines.push('env_key = "MAESTRO_BRIDGE_API_KEY"');
  return lines.join('\n') + '\n';
}

export type BridgeState =
  | { kind: 'stopped' }
  | { kind: 'starting' }
  | { kind: 'ready'; url: string; inFlight: number }
  | { kind: 'standby'; url: string } // another window serves url; this one takes over after it
  | { kind: 'error'; message: string };

/** The status bar's text and tooltip for a state. */
export function statusText(state: BridgeState): { text: string; tooltip: string } {
  switch (state.kind) {
    case 'stopped':
      return { text: '$(circle-slash) Maestro', tooltip: 'Maestro Bridge is off (setting maestroBridge.enable)' };
    case 'starting':
      return { text: '$(sync~spin) Maestro', tooltip: 'Maestro Bridge is starting' };
    case 'ready': {
      const port = portOf(state.url);
      const busy = state.inFlight > 0 ? ` $(pulse) ${state.inFlight}` : '';
      const requests = state.inFlight === 1 ? '1 request' : `${state.inFlight} requests`;
      return {
        text: `$(radio-tower) Maestro :${port}${busy}`,
        tooltip: `Maestro Bridge: Responses API at ${state.url} (${requests} in flight). Click for status.`,
      };
    }
    case 'standby':
      return {
        text: `$(radio-tower) Maestro :${portOf(state.url)} (other window)`,
        tooltip:
          `Maestro Bridge: another VS Code window serves the Responses API at ${state.url}; ` +
          'this window takes over when that one closes. Click for status.',
      };
    case 'error':
      return { text: '$(error) Maestro', tooltip: `Maestro Bridge failed: ${state.message}. Click for status.` };
  }
}

/** What Show Status says the bridge is doing ("Maestro Bridge is ..."). */
export function describeState(state: BridgeState): string {
  switch (state.kind) {
    case 'ready':
      return `listening on ${state.url}, ${state.inFlight} request(s) in flight`;
    case 'standby':
      return `served by another window at ${state.url}; this window takes over when that one closes`;
    case 'error':
      return `failed: ${state.message}`;
    default:
      return state.kind;
  }
}

/** The endpoint clients use, whichever window serves it; none while stopped or failed. */
export function endpointUrlOf(state: BridgeState): string | undefined {
  return state.kind === 'ready' || state.kind === 'standby' ? state.url : undefined;
}

function portOf(url: string): string {
  return /:(\d+)\/v1$/.exec(url)?.[1] ?? url;
}
