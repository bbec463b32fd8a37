// The editor's language intelligence for the bridge's MCP server: answers `maestro/language`
// (docs/protocol.md, "Language features") with the language servers the user already runs,
// through VS Code's language commands. Conversions live in languageConvert.ts.

import * as vscode from 'vscode';
import { ResponseError } from 'vscode-languageclient';
import { InvalidParams } from './convert';
import {
  parseLanguageParams, symbolColumn, toDiagnostic, toDocumentSymbols, toHover, toLocations, toWorkspaceSymbols,
  UnknownFeature, type LanguageParams,
} from './languageConvert';
import type { Logger } from './logging';
import { INVALID_PARAMS, METHOD_NOT_FOUND, REQUEST_CANCELLED, type WireDiagnostic } from './protocol';

/** A file the editor had not opened gets its language servers' first diagnostics: they come
 * a moment after the file opens (a cold TypeScript server takes seconds). */
const FIRST_DIAGNOSTICS_MS = 5000;
/** After a change, more may follow (syntax first, then semantics). */
const DIAGNOSTICS_QUIET_MS = 300;

const invalid = (message: string): ResponseError<unknown> => new ResponseError(INVALID_PARAMS, message);

export class LanguageEndpoint {
  constructor(private readonly log: Logger) {}

  async answer(params: unknown, token: vscode.CancellationToken): Promise<unknown> {
    // An untrusted workspace gives agents nothing of the editor (VS Code's workspace trust).
    if (!vscode.workspace.isTrusted) {
      throw new ResponseError(-32000, 'The workspace is not trusted (VS Code\'s workspace trust): no language tools until the user trusts it.', { code: 'Other', name: 'Untrusted' });
    }
    let p: LanguageParams;
    try {
      p = parseLanguageParams(params);
    } catch (err) {
      if (err instanceof UnknownFeature) throw new ResponseError(METHOD_NOT_FOUND, err.message);
      if (err instanceof InvalidParams) throw invalid(`Malformed language request: ${err.message}`);
      throw err;
    }
    this.log.debug(`maestro/language ${p.feature}`);
    const result = await this.feature(p, token);
    if (token.isCancellationRequested) throw new ResponseError(REQUEST_CANCELLED, 'Request cancelled');
    return result;
  }

  private async feature(p: LanguageParams, token: vscode.CancellationToken): Promise<unknown> {
    const run = <T>(command: string, ...args: unknown[]): Thenable<T | undefined> =>
      vscode.commands.executeCommand<T | undefined>(command, ...args);
    switch (p.feature) {
      case 'workspace':
        return {
          folders: (vscode.workspace.workspaceFolders ?? []).map((f) => ({ name: f.name, uri: f.uri.toString() })),
        };
      case 'diagnostics':
        return { files: p.uri === undefined ? allDiagnostics() : [await this.fileDiagnostics(p.uri, token)] };
      case 'definition':
      case 'references': {
        const { uri, position } = await this.at(p);
        const command = p.feature === 'definition' ? 'vscode.executeDefinitionProvider' : 'vscode.executeReferenceProvider';
        return { locations: toLocations(await run<unknown[]>(command, uri, position)) };
      }
      case 'hover': {
        const { uri, position } = await this.at(p);
        const hovers = (await run<vscode.Hover[]>('vscode.executeHoverProvider', uri, position)) ?? [];
        return { hovers: hovers.map(toHover).filter((h) => h.contents.length > 0) };
      }
      case 'documentSymbols': {
        const { uri } = await open(p.uri);
        return { symbols: toDocumentSymbols(await run<unknown[]>('vscode.executeDocumentSymbolProvider', uri)) };
      }
      case 'workspaceSymbols':
        return { symbols: toWorkspaceSymbols(await run<unknown[]>('vscode.executeWorkspaceSymbolProvider', p.query ?? '')) };
    }
  }

  /** The file and position of a definition/references/hover request; `symbol` picks the column. */
  private async at(p: LanguageParams): Promise<{ uri: vscode.Uri; position: vscode.Position }> {
    const { uri, document } = await open(p.uri);
    const pos = p.position ?? { line: 0, character: 0 };
    if (pos.line >= document.lineCount) {
      throw invalid(`${uri.toString()} has ${document.lineCount} lines; line ${pos.line} (0-based) is past its end`);
    }
    if (pos.symbol === undefined) return { uri, position: new vscode.Position(pos.line, pos.character) };
    const column = symbolColumn(document.lineAt(pos.line).text, pos.symbol);
    if (column < 0) throw invalid(`No ${pos.symbol} on line ${pos.line} (0-based) of ${uri.toString()}`);
    return { uri, position: new vscode.Position(pos.line, column) };
  }

  /** A file's diagnostics; opened first, so that language servers that check only open files
   * (TypeScript's, most) look at it. */
  private async fileDiagnostics(uriText: string, token: vscode.CancellationToken): Promise<{ uri: string; diagnostics: WireDiagnostic[] }> {
    const key = parseUri(uriText).toString();
    const wasOpen = vscode.workspace.textDocuments.some((d) => d.uri.toString() === key);
    // Listening before the open, so the first diagnostics cannot slip past.
    const settled = wasOpen ? Promise.resolve() : diagnosticsSettled(key, token);
    const { uri } = await open(uriText);
    await settled;
    return { uri: uri.toString(), diagnostics: vscode.languages.getDiagnostics(uri).map(toDiagnostic) };
  }
}

function allDiagnostics(): Array<{ uri: string; diagnostics: WireDiagnostic[] }> {
  return vscode.languages
    .getDiagnostics()
    .filter(([, list]) => list.length > 0)
    .map(([uri, list]) => ({ uri: uri.toString(), diagnostics: list.map(toDiagnostic) }));
}

function parseUri(text: string): vscode.Uri {
  try {
    return vscode.Uri.parse(text, true);
  } catch (err) {
    throw invalid(`Not a URI: ${text} (${err instanceof Error ? err.message : String(err)})`);
  }
}

/** Opens a file as a text document: -32602 naming it when it does not exist or cannot be read. */
async function open(text: string | undefined): Promise<{ uri: vscode.Uri; document: vscode.TextDocument }> {
  const uri = parseUri(text ?? '');
  try {
    return { uri, document: await vscode.workspace.openTextDocument(uri) };
  } catch (err) {
    throw invalid(`Cannot open ${uri.toString()}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Resolves once the diagnostics of `key` changed and then stayed quiet a moment, or after
 * FIRST_DIAGNOSTICS_MS without any change, or on cancellation. */
function diagnosticsSettled(key: string, token: vscode.CancellationToken): Promise<void> {
  return new Promise((resolve) => {
    let quiet: NodeJS.Timeout | undefined;
    const finish = (): void => {
      clearTimeout(deadline);
      if (quiet) clearTimeout(quiet);
      changes.dispose();
      cancel.dispose();
      resolve();
    };
    const deadline = setTimeout(finish, FIRST_DIAGNOSTICS_MS);
    const changes = vscode.languages.onDidChangeDiagnostics((e) => {
      if (!e.uris.some((u) => u.toString() === key)) return;
      if (quiet) clearTimeout(quiet);
      quiet = setTimeout(finish, DIAGNOSTICS_QUIET_MS);
    });
    const cancel = token.onCancellationRequested(finish);
  });
}
