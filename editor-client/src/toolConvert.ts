// Pure conversions of `maestro/tools` and `maestro/invokeTool` (docs/protocol.md, "Editor
// tools"). No `vscode` import: tools.ts decides what each result part is, so every rule here is
// unit-tested in node.

import { InvalidParams, toBase64 } from './convert';
import {
  EditorErrorCodes, type DataPart, type EditorErrorData, type InvokeToolParams, type TextPart, type ToolInfo,
} from './protocol';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** What `vscode.lm.tools` holds of a tool. */
export interface ToolLike {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: object | undefined;
  readonly tags: readonly string[];
}

export function toToolInfo(tool: ToolLike): ToolInfo {
  return {
    name: tool.name,
    description: tool.description,
    // An empty schema object is still a schema; only a missing one means "no input".
    inputSchema: isObject(tool.inputSchema) ? tool.inputSchema : null,
    tags: tool.tags.filter((t) => typeof t === 'string'),
  };
}

/** What an MCP client sees of the tool list, as one string: equal strings, equal lists. */
export function toolListSignature(tools: readonly ToolLike[]): string {
  return JSON.stringify(tools.map(toToolInfo));
}

/** Checks `maestro/invokeTool` params; throws InvalidParams naming the first bad field. */
export function parseInvokeToolParams(v: unknown): InvokeToolParams {
  if (!isObject(v)) throw new InvalidParams('params must be an object');
  if (typeof v.name !== 'string' || v.name === '') throw new InvalidParams('name must be a non-empty string');
  if (v.input !== undefined && v.input !== null && !isObject(v.input)) throw new InvalidParams('input must be an object');
  const id = v.invocationId;
  return {
    invocationId: typeof id === 'string' || typeof id === 'number' ? String(id) : '',
    name: v.name,
    input: isObject(v.input) ? v.input : {},
  };
}

/** What a tool result part is: decided by `instanceof` in tools.ts. */
export type ToolPartKind = 'text' | 'promptTsx' | 'data' | 'unknown';

/** A part by its shape, for a class this module cannot see (another extension host's copy). */
export function toolPartKindByShape(part: unknown): ToolPartKind {
  if (!isObject(part)) return 'unknown';
  if (typeof part.mimeType === 'string' && part.data instanceof Uint8Array) return 'data';
  if (typeof part.value === 'string') return 'text';
  if ('value' in part) return 'promptTsx';
  return 'unknown';
}

/** One result part as protocol JSON; undefined for a part the protocol has no shape for. */
export function toToolResultPart(kind: ToolPartKind, part: unknown): TextPart | DataPart | undefined {
  if (!isObject(part)) return undefined;
  switch (kind) {
    case 'text':
      return typeof part.value === 'string' ? { type: 'text', value: part.value } : undefined;
    case 'promptTsx':
      return { type: 'text', value: promptTsxText(part.value) };
    case 'data':
      return part.data instanceof Uint8Array
        ? { type: 'data', mimeType: String(part.mimeType), data: toBase64(part.data) }
        : undefined;
    case 'unknown':
      return undefined;
  }
}

/**
 * A prompt-tsx element tree (`renderElementJSON`'s `{node}`) as the text it renders, the way
 * VS Code shows one: text nodes (type 2) in order, a line break where one asks for it, an image
 * as `<image>`. A tree of another shape is sent as its JSON rather than lost.
 */
export function promptTsxText(value: unknown): string {
  const out: string[] = [];
  const walk = (node: unknown, depth: number): boolean => {
    if (!isObject(node) || depth > 200) return false;
    if (node.type === 2) {
      if (node.lineBreakBefore === true) out.push('\n');
      if (typeof node.text === 'string') out.push(node.text);
      return true;
    }
    if (node.ctor === 3) {
      out.push('<image>');
      return true;
    }
    if (!Array.isArray(node.children)) return false;
    return node.children.every((child) => walk(child, depth + 1));
  };
  if (isObject(value) && walk(value.node, 0)) return out.join('');
  return JSON.stringify(value) ?? '';
}

export interface ToolRpcError { code: number; message: string; data: EditorErrorData }

/** No tool has that name: -32001 NotFound. */
export function unknownToolError(name: string): ToolRpcError {
  return { code: EditorErrorCodes.NotFound, message: `No tool named ${name}`, data: { code: 'NotFound', name: '' } };
}

/** A tool that threw: -32000 with its message and its Error.name ("" for a thrown non-Error). */
export function toolFailedError(err: unknown): ToolRpcError {
  const name = err instanceof Error || isObject(err) ? (err as { name?: unknown }).name : undefined;
  const message = err instanceof Error ? err.message : isObject(err) && typeof err.message === 'string' ? err.message : String(err);
  return {
    code: EditorErrorCodes.Other,
    message: message || 'The tool failed',
    data: { code: 'Other', name: typeof name === 'string' ? name : '' },
  };
}

/** A call in an untrusted workspace: VS Code's workspace trust gives agents no tools. */
export function untrustedError(): ToolRpcError {
  return {
    code: EditorErrorCodes.Other,
    message: 'The workspace is not trusted (VS Code\'s workspace trust): the editor offers no tools to agents until the user trusts it.',
    data: { code: 'Other', name: 'Untrusted' },
  };
}

/** The user said no in the confirmation VS Code showed for the tool. */
export function declinedError(name: string): ToolRpcError {
  return {
    code: EditorErrorCodes.Other,
    message: `The user declined running ${name} in the confirmation VS Code showed.`,
    data: { code: 'Other', name: 'Declined' },
  };
}
