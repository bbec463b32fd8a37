import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidParams } from '../convert';
import {
  hoverText, parseLanguageParams, severityName, symbolColumn, symbolKindName, toDiagnostic, toDocumentSymbols, toHover,
  toLocation, toLocations, toWorkspaceSymbols, UnknownFeature,
} from '../languageConvert';

// Stand-ins for vscode values, with the shapes the extension host gives them.
const uri = (path: string): { toString(): string } => ({ toString: () => `file://${path}` });
const range = (l1: number, c1: number, l2: number, c2: number) => ({
  start: { line: l1, character: c1 }, end: { line: l2, character: c2 },
});
const wireRange = range; // the same JSON shape

describe('parseLanguageParams', () => {
  it('reads every feature of the protocol table', () => {
    assert.deepEqual(parseLanguageParams({ feature: 'workspace' }), { feature: 'workspace' });
    assert.deepEqual(parseLanguageParams({ feature: 'diagnostics' }), { feature: 'diagnostics' });
    assert.deepEqual(parseLanguageParams({ feature: 'diagnostics', uri: 'file:///w/a.ts' }), { feature: 'diagnostics', uri: 'file:///w/a.ts' });
    for (const feature of ['definition', 'references', 'hover']) {
      assert.deepEqual(parseLanguageParams({ feature, uri: 'file:///w/a.ts', position: { line: 3, character: 4 } }), {
        feature, uri: 'file:///w/a.ts', position: { line: 3, character: 4 },
      });
    }
    assert.deepEqual(parseLanguageParams({ feature: 'documentSymbols', uri: 'file:///w/a.ts' }), { feature: 'documentSymbols', uri: 'file:///w/a.ts' });
    assert.deepEqual(parseLanguageParams({ feature: 'workspaceSymbols', query: 'Foo' }), { feature: 'workspaceSymbols', query: 'Foo' });
  });

  it('takes a symbol instead of a character', () => {
    const p = parseLanguageParams({ feature: 'hover', uri: 'file:///w/a.ts', position: { line: 2, symbol: 'total' } });
    assert.deepEqual(p.position, { line: 2, character: 0, symbol: 'total' });
    const beside = parseLanguageParams({ feature: 'definition', uri: 'file:///w/a.ts', position: { line: 2, character: 0 }, symbol: 'total' });
    assert.deepEqual(beside.position, { line: 2, character: 0, symbol: 'total' });
  });

  it('fails with UnknownFeature for a feature it does not know (answered -32601)', () => {
    assert.throws(() => parseLanguageParams({ feature: 'rename' }), UnknownFeature);
  });

  it('fails with InvalidParams naming what is missing or wrong (answered -32602)', () => {
    assert.throws(() => parseLanguageParams({ feature: 'definition', position: { line: 0, character: 0 } }), /needs a uri/);
    assert.throws(() => parseLanguageParams({ feature: 'hover', uri: 'file:///a' }), /position/);
    assert.throws(() => parseLanguageParams({ feature: 'hover', uri: 'file:///a', position: { line: -1, character: 0 } }), InvalidParams);
    assert.throws(() => parseLanguageParams({ feature: 'hover', uri: 'file:///a', position: { line: 0 } }), /character or a symbol/);
    assert.throws(() => parseLanguageParams({ feature: 'workspaceSymbols' }), /query/);
    assert.throws(() => parseLanguageParams({ feature: 7 }), InvalidParams);
    assert.throws(() => parseLanguageParams('workspace'), InvalidParams);
  });
});

describe('symbolColumn', () => {
  it('finds the first whole-word occurrence', () => {
    assert.equal(symbolColumn('const subtotal = total + total;', 'total'), 17);
    assert.equal(symbolColumn('  def run(self):', 'run'), 6);
  });

  it('counts UTF-16 code units, as VS Code positions do', () => {
    assert.equal(symbolColumn('const s = "😀"; total();', 'total'), 16);
  });

  it('treats $ and _ as parts of a word, and symbols with regex characters literally', () => {
    assert.equal(symbolColumn('$total _total total', 'total'), 14);
    assert.equal(symbolColumn('a.b(c) + a.b', 'a.b'), 0);
    assert.equal(symbolColumn('x = y + z', '+'), 6);
  });

  it('gives -1 when the line has no such word', () => {
    assert.equal(symbolColumn('const subtotal = 1;', 'total'), -1);
  });
});

describe('locations', () => {
  it('sends a Location as uri and range', () => {
    assert.deepEqual(toLocation({ uri: uri('/w/a.ts'), range: range(1, 2, 1, 5) }), { uri: 'file:///w/a.ts', range: wireRange(1, 2, 1, 5) });
  });

  it('sends a LocationLink as its target (the name range where the link has one)', () => {
    const link = { originSelectionRange: range(0, 0, 0, 1), targetUri: uri('/w/b.ts'), targetRange: range(3, 0, 9, 1), targetSelectionRange: range(3, 9, 3, 14) };
    assert.deepEqual(toLocation(link), { uri: 'file:///w/b.ts', range: wireRange(3, 9, 3, 14) });
    const { targetSelectionRange: _dropped, ...withoutName } = link;
    assert.deepEqual(toLocation(withoutName), { uri: 'file:///w/b.ts', range: wireRange(3, 0, 9, 1) });
  });

  it('keeps the valid ones of a list, and an absent answer is an empty list', () => {
    assert.deepEqual(toLocations([null, { uri: uri('/a'), range: range(0, 0, 0, 0) }, 'x']).length, 1);
    assert.deepEqual(toLocations(undefined), []);
  });
});

describe('toDiagnostic', () => {
  it('sends the severity by name and the code as a string', () => {
    assert.deepEqual(toDiagnostic({ range: range(2, 6, 2, 11), severity: 0, message: "Type 'string' is not assignable to type 'number'.", source: 'ts', code: 2322 }), {
      range: wireRange(2, 6, 2, 11), severity: 'error', message: "Type 'string' is not assignable to type 'number'.", source: 'ts', code: '2322',
    });
  });

  it('reads a code with a target, and leaves out a missing source and code', () => {
    assert.equal(toDiagnostic({ range: range(0, 0, 0, 1), severity: 1, message: 'm', code: { value: 'no-unused' } }).code, 'no-unused');
    assert.deepEqual(toDiagnostic({ range: range(0, 0, 0, 1), severity: 3, message: 'm' }), {
      range: wireRange(0, 0, 0, 1), severity: 'hint', message: 'm',
    });
  });

  it('names every severity', () => {
    assert.deepEqual([0, 1, 2, 3].map(severityName), ['error', 'warning', 'information', 'hint']);
  });
});

describe('hovers', () => {
  it('sends a MarkdownString as its markdown and a MarkedString code block as a fence', () => {
    assert.equal(hoverText({ value: '**total**: number', isTrusted: false }), '**total**: number');
    assert.equal(hoverText({ language: 'typescript', value: 'const total: number' }), '```typescript\nconst total: number\n```');
    assert.equal(hoverText('plain'), 'plain');
  });

  it('keeps the range and drops empty contents', () => {
    assert.deepEqual(toHover({ contents: [{ value: 'a' }, { value: '' }, 3], range: range(1, 0, 1, 4) }), {
      contents: ['a'], range: wireRange(1, 0, 1, 4),
    });
    assert.deepEqual(toHover({ contents: ['b'] }), { contents: ['b'] });
  });
});

describe('symbols', () => {
  it('names the SymbolKind', () => {
    assert.deepEqual([0, 4, 5, 11, 12, 25].map(symbolKindName), ['File', 'Class', 'Method', 'Function', 'Variable', 'TypeParameter']);
  });

  it('sends DocumentSymbols with their children and detail', () => {
    const method = { name: 'run', kind: 5, detail: '', range: range(2, 2, 4, 3), selectionRange: range(2, 2, 2, 5), children: [] };
    const cls = { name: 'Job', kind: 4, detail: 'class', range: range(1, 0, 5, 1), selectionRange: range(1, 6, 1, 9), children: [method] };
    assert.deepEqual(toDocumentSymbols([cls]), [{
      name: 'Job', kind: 'Class', detail: 'class', range: wireRange(1, 0, 5, 1),
      children: [{ name: 'run', kind: 'Method', range: wireRange(2, 2, 4, 3), children: [] }],
    }]);
  });

  it('sends SymbolInformation as a symbol without children', () => {
    const info = { name: 'main', kind: 11, containerName: '', location: { uri: uri('/w/a.py'), range: range(7, 0, 9, 0) } };
    assert.deepEqual(toDocumentSymbols([info]), [{ name: 'main', kind: 'Function', range: wireRange(7, 0, 9, 0), children: [] }]);
    assert.deepEqual(toDocumentSymbols(undefined), []);
  });

  it('sends workspace symbols with their container and location', () => {
    const info = { name: 'run', kind: 5, containerName: 'Job', location: { uri: uri('/w/a.ts'), range: range(2, 2, 4, 3) } };
    assert.deepEqual(toWorkspaceSymbols([info, { name: 'broken', kind: 5 }]), [
      { name: 'run', kind: 'Method', containerName: 'Job', location: { uri: 'file:///w/a.ts', range: wireRange(2, 2, 4, 3) } },
    ]);
  });
});
