import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidParams } from '../convert';
import { EditorErrorCodes } from '../protocol';
import {
  parseInvokeToolParams, toolFailedError, toolListSignature, toolPartKindByShape, toToolInfo, toToolResultPart,
  unknownToolError,
} from '../toolConvert';

const lookup = {
  name: 'maestro_test_lookup',
  description: 'Looks a key up',
  inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
  tags: ['test'],
};

describe('toToolInfo', () => {
  it('keeps the name, description, schema and tags as vscode.lm.tools has them', () => {
    assert.deepEqual(toToolInfo(lookup), lookup);
  });

  it('sends null for a tool without an input schema, and keeps an empty one', () => {
    assert.equal(toToolInfo({ ...lookup, inputSchema: undefined }).inputSchema, null);
    assert.deepEqual(toToolInfo({ ...lookup, inputSchema: {} }).inputSchema, {});
  });
});

describe('toolListSignature', () => {
  it('changes with a tool added, removed or described anew, not with a copy of the same list', () => {
    const before = toolListSignature([lookup]);
    assert.equal(toolListSignature([{ ...lookup, tags: [...lookup.tags] }]), before);
    assert.notEqual(toolListSignature([]), before);
    assert.notEqual(toolListSignature([lookup, { ...lookup, name: 'other' }]), before);
    assert.notEqual(toolListSignature([{ ...lookup, description: 'new' }]), before);
  });
});

describe('parseInvokeToolParams', () => {
  it('reads the invocation id, name and input', () => {
    assert.deepEqual(parseInvokeToolParams({ invocationId: 'tool-5', name: 'x', input: { a: 1 } }), {
      invocationId: 'tool-5', name: 'x', input: { a: 1 },
    });
  });

  it('takes a missing input as an empty object', () => {
    assert.deepEqual(parseInvokeToolParams({ invocationId: 'tool-1', name: 'x' }).input, {});
  });

  it('refuses a missing name, an input that is no object, params that are no object', () => {
    assert.throws(() => parseInvokeToolParams({ input: {} }), InvalidParams);
    assert.throws(() => parseInvokeToolParams({ name: '' }), InvalidParams);
    assert.throws(() => parseInvokeToolParams({ name: 'x', input: [1] }), InvalidParams);
    assert.throws(() => parseInvokeToolParams({ name: 'x', input: 'text' }), InvalidParams);
    assert.throws(() => parseInvokeToolParams(null), InvalidParams);
  });
});

describe('toToolResultPart', () => {
  it('sends a text part as text', () => {
    assert.deepEqual(toToolResultPart('text', { value: 'hello' }), { type: 'text', value: 'hello' });
  });

  it('sends a prompt-tsx part as the text it renders', () => {
    const value = {
      node: {
        type: 1,
        ctor: 2,
        children: [
          { type: 2, text: 'Found 2 files:' },
          { type: 1, ctor: 2, children: [{ type: 2, text: 'src/a.ts', lineBreakBefore: true }] },
          { type: 1, ctor: 3, children: [] },
        ],
      },
    };
    assert.deepEqual(toToolResultPart('promptTsx', { value }), {
      type: 'text',
      value: 'Found 2 files:\nsrc/a.ts<image>',
    });
  });

  it('sends a prompt-tsx part of an unknown shape as its JSON', () => {
    const value = { tree: [1, 2] };
    assert.deepEqual(toToolResultPart('promptTsx', { value }), { type: 'text', value: JSON.stringify(value) });
  });

  it('sends a data part as base64 with its MIME type', () => {
    const part = { mimeType: 'image/png', data: new Uint8Array([137, 80, 78, 71]) };
    assert.deepEqual(toToolResultPart('data', part), { type: 'data', mimeType: 'image/png', data: 'iVBORw==' });
  });

  it('skips what the protocol has no shape for', () => {
    assert.equal(toToolResultPart('unknown', { something: 1 }), undefined);
    assert.equal(toToolResultPart('text', 'bare string'), undefined);
  });

  it('tells the kinds apart by shape', () => {
    assert.equal(toolPartKindByShape({ value: 'x' }), 'text');
    assert.equal(toolPartKindByShape({ value: { tree: 1 } }), 'promptTsx');
    assert.equal(toolPartKindByShape({ mimeType: 'text/plain', data: new Uint8Array() }), 'data');
    assert.equal(toolPartKindByShape({ callId: 'c' }), 'unknown');
  });
});

describe('tool errors', () => {
  it('gives -32001 NotFound for a tool nobody has', () => {
    assert.deepEqual(unknownToolError('nope'), {
      code: EditorErrorCodes.NotFound, message: 'No tool named nope', data: { code: 'NotFound', name: '' },
    });
  });

  it('gives -32000 Other with the message and Error.name of a tool that threw', () => {
    class LookupFailed extends Error { override name = 'LookupFailed'; }
    assert.deepEqual(toolFailedError(new LookupFailed('the key is gone')), {
      code: EditorErrorCodes.Other, message: 'the key is gone', data: { code: 'Other', name: 'LookupFailed' },
    });
  });

  it('keeps Other for an error carrying a LanguageModelError code: only an unknown name is NotFound', () => {
    const err = Object.assign(new Error('gone'), { code: 'NotFound' });
    assert.equal(toolFailedError(err).code, EditorErrorCodes.Other);
  });

  it('says something for a thrown non-Error and an empty message', () => {
    assert.deepEqual(toolFailedError('plain'), { code: -32000, message: 'plain', data: { code: 'Other', name: '' } });
    assert.equal(toolFailedError(new Error('')).message, 'The tool failed');
  });
});
