// Pure conversions of `maestro/language` (docs/protocol.md, "Language features"): the params,
// and VS Code's language values (diagnostics, locations, hovers, symbols) as protocol JSON.
// No `vscode` import: values are read by shape, so every rule is unit-tested in node.

import { InvalidParams } from './convert';
import {
  LANGUAGE_FEATURES, type LanguageFeature, type Location, type Position, type Range, type Severity,
  type WireDiagnostic, type WireDocumentSymbol, type WireHover, type WireWorkspaceSymbol,
} from './protocol';

/** A feature the editor does not know (answered -32601). */
export class UnknownFeature extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export interface LanguageParams {
  feature: LanguageFeature;
  uri?: string;
  position?: Position & { symbol?: string };
  query?: string;
}

const NEEDS_URI: ReadonlySet<LanguageFeature> = new Set(['definition', 'references', 'hover', 'documentSymbols']);
const NEEDS_POSITION: ReadonlySet<LanguageFeature> = new Set(['definition', 'references', 'hover']);

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/** Checks `maestro/language` params: UnknownFeature or InvalidParams naming the first bad field. */
export function parseLanguageParams(v: unknown): LanguageParams {
  if (!isObject(v)) throw new InvalidParams('params must be an object');
  const feature = v.feature;
  if (typeof feature !== 'string') throw new InvalidParams('feature must be a string');
  if (!(LANGUAGE_FEATURES as readonly string[]).includes(feature)) throw new UnknownFeature(`Unknown language feature ${feature}`);
  const params: LanguageParams = { feature: feature as LanguageFeature };
  if (v.uri !== undefined && v.uri !== null) {
    if (typeof v.uri !== 'string' || v.uri === '') throw new InvalidParams('uri must be a non-empty string');
    params.uri = v.uri;
  } else if (NEEDS_URI.has(params.feature)) {
    throw new InvalidParams(`${feature} needs a uri`);
  }
  if (NEEDS_POSITION.has(params.feature)) {
    const p = v.position;
    if (!isObject(p) || !isCount(p.line)) throw new InvalidParams(`${feature} needs a position with a line`);
    // "position may come with symbol": inside the position, or beside it in the params.
    const symbol = typeof p.symbol === 'string' && p.symbol !== '' ? p.symbol : v.symbol;
    if (typeof symbol === 'string' && symbol !== '') {
      params.position = { line: p.line, character: isCount(p.character) ? p.character : 0, symbol };
    } else if (isCount(p.character)) {
      params.position = { line: p.line, character: p.character };
    } else {
      throw new InvalidParams('position needs a character or a symbol');
    }
  }
  if (params.feature === 'workspaceSymbols') {
    if (typeof v.query !== 'string') throw new InvalidParams('workspaceSymbols needs a query string');
    params.query = v.query;
  }
  return params;
}

const WORD_CHAR = '[\\p{L}\\p{N}_$]';

/** The column of the first whole-word occurrence of `symbol` on a line; -1 when there is none. */
export function symbolColumn(lineText: string, symbol: string): number {
  const escaped = symbol.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // Word boundaries only where the symbol itself starts or ends with a word character.
  const before = new RegExp(`^${WORD_CHAR}`, 'u').test(symbol) ? `(?<!${WORD_CHAR})` : '';
  const after = new RegExp(`${WORD_CHAR}$`, 'u').test(symbol) ? `(?!${WORD_CHAR})` : '';
  const match = new RegExp(`${before}${escaped}${after}`, 'u').exec(lineText);
  return match ? match.index : -1;
}

// ---------------------------------------------------------------- values, editor -> server

interface PositionLike { readonly line: number; readonly character: number }
interface RangeLike { readonly start: PositionLike; readonly end: PositionLike }
/** A vscode.Uri: its string form is the `file:///...` URI the protocol sends. */
interface UriLike { toString(): string }

export function toRange(r: RangeLike): Range {
  return { start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } };
}

/** A Location, or a LocationLink sent as its target (the name's range when the link has one). */
export function toLocation(v: unknown): Location | undefined {
  if (!isObject(v)) return undefined;
  if ('targetUri' in v) {
    const range = (v.targetSelectionRange ?? v.targetRange) as RangeLike | undefined;
    return range ? { uri: (v.targetUri as UriLike).toString(), range: toRange(range) } : undefined;
  }
  if ('uri' in v && isObject(v.range)) return { uri: (v.uri as UriLike).toString(), range: toRange(v.range as unknown as RangeLike) };
  return undefined;
}

export function toLocations(values: readonly unknown[] | undefined): Location[] {
  return (values ?? []).map(toLocation).filter((l): l is Location => l !== undefined);
}

// vscode.DiagnosticSeverity: Error = 0, Warning = 1, Information = 2, Hint = 3.
const SEVERITIES: readonly Severity[] = ['error', 'warning', 'information', 'hint'];

export function severityName(severity: number): Severity {
  return SEVERITIES[severity] ?? 'error';
}

interface DiagnosticLike {
  readonly range: RangeLike;
  readonly severity: number;
  readonly message: string;
  readonly source?: string | undefined;
  readonly code?: string | number | { value: string | number } | undefined;
}

export function toDiagnostic(d: DiagnosticLike): WireDiagnostic {
  const wire: WireDiagnostic = { range: toRange(d.range), severity: severityName(d.severity), message: d.message };
  if (d.source) wire.source = d.source;
  const code = isObject(d.code) ? d.code.value : d.code;
  if (code !== undefined && code !== '') wire.code = String(code);
  return wire;
}

// vscode.SymbolKind, in the enum's order (File = 0 ... TypeParameter = 25).
const SYMBOL_KINDS = [
  'File', 'Module', 'Namespace', 'Package', 'Class', 'Method', 'Property', 'Field', 'Constructor', 'Enum',
  'Interface', 'Function', 'Variable', 'Constant', 'String', 'Number', 'Boolean', 'Array', 'Object', 'Key',
  'Null', 'EnumMember', 'Struct', 'Event', 'Operator', 'TypeParameter',
] as const;

export function symbolKindName(kind: number): string {
  return SYMBOL_KINDS[kind] ?? 'Unknown';
}

/** A hover's content as markdown: a MarkdownString's value, a MarkedString's code as a fence. */
export function hoverText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!isObject(content) || typeof content.value !== 'string') return '';
  if (typeof content.language === 'string') return '```' + content.language + '\n' + content.value + '\n```';
  return content.value;
}

export function toHover(h: { readonly contents: readonly unknown[]; readonly range?: RangeLike | undefined }): WireHover {
  const hover: WireHover = { contents: h.contents.map(hoverText).filter((t) => t !== '') };
  if (h.range) hover.range = toRange(h.range);
  return hover;
}

/** A DocumentSymbol with its children, or a SymbolInformation as a symbol without children. */
export function toDocumentSymbol(s: unknown): WireDocumentSymbol | undefined {
  if (!isObject(s) || typeof s.name !== 'string' || typeof s.kind !== 'number') return undefined;
  if (isObject(s.location)) {
    const location = toLocation(s.location);
    return location ? { name: s.name, kind: symbolKindName(s.kind), range: location.range, children: [] } : undefined;
  }
  if (!isObject(s.range)) return undefined;
  const symbol: WireDocumentSymbol = {
    name: s.name,
    kind: symbolKindName(s.kind),
    range: toRange(s.range as unknown as RangeLike),
    children: toDocumentSymbols(Array.isArray(s.children) ? s.children : []),
  };
  if (typeof s.detail === 'string' && s.detail !== '') symbol.detail = s.detail;
  return symbol;
}

export function toDocumentSymbols(values: readonly unknown[] | undefined): WireDocumentSymbol[] {
  return (values ?? []).map(toDocumentSymbol).filter((s): s is WireDocumentSymbol => s !== undefined);
}

export function toWorkspaceSymbols(values: readonly unknown[] | undefined): WireWorkspaceSymbol[] {
  const symbols: WireWorkspaceSymbol[] = [];
  for (const s of values ?? []) {
    if (!isObject(s) || typeof s.name !== 'string' || typeof s.kind !== 'number') continue;
    const location = toLocation(s.location);
    if (!location) continue;
    const containerName = typeof s.containerName === 'string' ? s.containerName : '';
    symbols.push({ name: s.name, kind: symbolKindName(s.kind), containerName, location });
  }
  return symbols;
}
