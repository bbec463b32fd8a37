import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  codexConfig, describeState, endpointUrlOf, fromBase64, InvalidParams, kindByShape, parseChatParams, statusText, toBase64, toLmMessages,
  toModelInfo, toRpcError, toWirePart, type LmFactory,
} from '../convert';
import { EditorErrorCodes } from '../protocol';

// A stand-in for vscode.lm's constructors: plain objects that show what was built.
type Built = Record<string, unknown>;
const factory: LmFactory<Built, Built> = {
  text: (value) => ({ kind: 'text', value }),
  data: (bytes, mimeType) => ({ kind: 'data', bytes: Array.from(bytes), mimeType }),
  toolCall: (callId, name, input) => ({ kind: 'toolCall', callId, name, input }),
  toolResult: (callId, content) => ({ kind: 'toolResult', callId, content }),
  thinking: (value, id, metadata) => ({ kind: 'thinking', value, id, metadata }),
  message: (role, content, name) => ({ role, content, name }),
};

const chat = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  chatId: 'c-1',
  model: 'm',
  messages: [{ role: 'user', content: [{ type: 'text', value: 'hi' }] }],
  ...over,
});

describe('parseChatParams', () => {
  it('fills the protocol defaults', () => {
    const p = parseChatParams(chat());
    assert.deepEqual(p, {
      chatId: 'c-1', model: 'm', messages: [{ role: 'user', content: [{ type: 'text', value: 'hi' }] }],
      tools: [], toolMode: 'auto', modelOptions: {}, modelConfiguration: {},
    });
  });

  it('keeps tools, tool mode, model options, justification and unknown-free schemas verbatim', () => {
    const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', $defs: { a: {} } };
    const p = parseChatParams(chat({
      tools: [{ name: 'f', description: 'd', inputSchema: schema }, { name: 'g' }],
      toolMode: 'required', modelOptions: { temperature: 0.2 }, justification: 'why', extra: 1,
    }));
    assert.deepEqual(p.tools, [{ name: 'f', description: 'd', inputSchema: schema }, { name: 'g', description: '' }]);
    assert.equal(p.toolMode, 'required');
    assert.deepEqual(p.modelOptions, { temperature: 0.2 });
    assert.equal(p.justification, 'why');
  });

  it('keeps a positive integer flow-control window and ignores any other', () => {
    assert.equal(parseChatParams(chat({ window: 4096 })).window, 4096);
    for (const window of [0, -1, 1.5, '8', null]) {
      assert.equal('window' in parseChatParams(chat({ window })), false);
    }
  });

  it('reads every message part', () => {
    const p = parseChatParams(chat({
      messages: [
        { role: 'assistant', name: 'n', content: [{ type: 'toolCall', callId: 'k', name: 'f', input: { a: 1 } }] },
        { role: 'user', content: [
          { type: 'toolResult', callId: 'k', content: [{ type: 'text', value: 'out' }, { type: 'data', mimeType: 'image/png', data: 'AAE=' }] },
        ] },
      ],
    }));
    assert.deepEqual(p.messages[0], { role: 'assistant', name: 'n', content: [{ type: 'toolCall', callId: 'k', name: 'f', input: { a: 1 } }] });
    assert.deepEqual(p.messages[1]?.content[0], {
      type: 'toolResult', callId: 'k',
      content: [{ type: 'text', value: 'out' }, { type: 'data', mimeType: 'image/png', data: 'AAE=' }],
    });
  });

  it('reads an assistant thought given back, with its id and metadata', () => {
    const metadata = { encrypted_content: 'sig', vscode_thinking_origin_api: 'messages' };
    const p = parseChatParams(chat({
      messages: [{ role: 'assistant', content: [{ type: 'thinking', value: 'hm', id: 'thinking_0', metadata }, { type: 'text', value: 'ok' }] }],
    }));
    assert.deepEqual(p.messages[0]?.content[0], { type: 'thinking', value: 'hm', id: 'thinking_0', metadata });
    const built = toLmMessages(p.messages, factory);
    assert.deepEqual(built[0]?.content, [
      { kind: 'thinking', value: 'hm', id: 'thinking_0', metadata }, { kind: 'text', value: 'ok' },
    ]);
    // A VS Code without the thinking part: the thought is left out, the rest stays.
    const without = toLmMessages(p.messages, { ...factory, thinking: () => undefined });
    assert.deepEqual(without[0]?.content, [{ kind: 'text', value: 'ok' }]);
  });

  it('names the first bad field', () => {
    assert.throws(() => parseChatParams(null), InvalidParams);
    assert.throws(() => parseChatParams(chat({ chatId: 3 })), /chatId must be a string/);
    assert.throws(() => parseChatParams(chat({ messages: [{ role: 'system', content: [] }] })), /messages\[0\]\.role/);
    assert.throws(
      () => parseChatParams(chat({ messages: [{ role: 'user', content: [{ type: 'video' }] }] })),
      /messages\[0\]\.content\[0\]\.type must be text or data/,
    );
    assert.throws(() => parseChatParams(chat({ tools: [{ description: 'x' }] })), /tools\[0\]\.name/);
  });
});

describe('toLmMessages', () => {
  it('builds vscode.lm messages with decoded data', () => {
    const p = parseChatParams(chat({
      messages: [
        { role: 'user', content: [{ type: 'text', value: 'look' }, { type: 'data', mimeType: 'image/png', data: 'AAEC' }] },
        { role: 'assistant', content: [{ type: 'toolCall', callId: 'k', name: 'f', input: {} }] },
        { role: 'user', content: [{ type: 'toolResult', callId: 'k', content: [{ type: 'text', value: 'ok' }] }] },
      ],
    }));
    assert.deepEqual(toLmMessages(p.messages, factory), [
      { role: 'user', name: undefined, content: [{ kind: 'text', value: 'look' }, { kind: 'data', bytes: [0, 1, 2], mimeType: 'image/png' }] },
      { role: 'assistant', name: undefined, content: [{ kind: 'toolCall', callId: 'k', name: 'f', input: {} }] },
      { role: 'user', name: undefined, content: [{ kind: 'toolResult', callId: 'k', content: [{ kind: 'text', value: 'ok' }] }] },
    ]);
  });
});

describe('response parts', () => {
  it('classifies unknown classes by shape', () => {
    assert.equal(kindByShape({ value: 'a' }), 'text');
    assert.equal(kindByShape({ value: 'a', id: 't1' }), 'thinking');
    assert.equal(kindByShape({ value: ['a', 'b'] }), 'thinking');
    assert.equal(kindByShape({ callId: 'c', name: 'n', input: {} }), 'toolCall');
    assert.equal(kindByShape({ mimeType: 'usage', data: new Uint8Array([1]) }), 'data');
    assert.equal(kindByShape({ something: 1 }), 'unknown');
    assert.equal(kindByShape('text'), 'unknown');
  });

  it('turns parts into protocol JSON', () => {
    assert.deepEqual(toWirePart('text', { value: 'Hel' }), { type: 'text', value: 'Hel' });
    assert.deepEqual(toWirePart('toolCall', { callId: 'c', name: 'n', input: { a: [1] } }),
      { type: 'toolCall', callId: 'c', name: 'n', input: { a: [1] } });
    assert.deepEqual(toWirePart('toolCall', { callId: 'c', name: 'n', input: 'bad' }),
      { type: 'toolCall', callId: 'c', name: 'n', input: {} });
    assert.deepEqual(toWirePart('thinking', { value: ['a', 'b'], id: 'r1' }), { type: 'thinking', value: 'ab', id: 'r1' });
    assert.deepEqual(toWirePart('thinking', { value: 'x' }), { type: 'thinking', value: 'x' });
    // Copilot's encrypted thought goes along; an empty metadata object does not.
    const metadata = { encrypted_content: 'sig', vscode_thinking_origin_api: 'messages' };
    assert.deepEqual(toWirePart('thinking', { value: '', id: 'thinking_0', metadata }), {
      type: 'thinking', value: '', id: 'thinking_0', metadata,
    });
    assert.deepEqual(toWirePart('thinking', { value: 'x', metadata: {} }), { type: 'thinking', value: 'x' });
    assert.equal(toWirePart('unknown', { value: 'x' }), undefined);
    assert.equal(toWirePart('text', null), undefined);
  });

  it("carries Copilot's usage data part as base64 JSON", () => {
    const usage = { prompt_tokens: 12, completion_tokens: 3 };
    const part = toWirePart('data', { mimeType: 'usage', data: new TextEncoder().encode(JSON.stringify(usage)) });
    assert.equal(part?.type, 'data');
    assert.ok(part?.type === 'data');
    assert.equal(part.mimeType, 'usage');
    assert.deepEqual(JSON.parse(Buffer.from(part.data, 'base64').toString()), usage);
  });

  it('base64 round-trips a view into a larger buffer', () => {
    const backing = new Uint8Array([9, 9, 1, 2, 3, 9]);
    const view = backing.subarray(2, 5);
    assert.equal(toBase64(view), 'AQID');
    assert.deepEqual(Array.from(fromBase64('AQID')), [1, 2, 3]);
  });
});

describe('toRpcError', () => {
  const lmError = (code: string, message: string): Error =>
    Object.assign(new Error(message), { code, name: 'LanguageModelError' });
  // What Copilot throws (languageModelAccess.ts): an Error whose name says what failed.
  const named = (name: string, message: string): Error => Object.assign(new Error(message), { name });

  it('maps LanguageModelError codes, with the error name', () => {
    assert.deepEqual(toRpcError(lmError('NotFound', 'gone')), {
      code: EditorErrorCodes.NotFound, message: 'gone', data: { code: 'NotFound', name: 'LanguageModelError' },
    });
    assert.equal(toRpcError(lmError('NoPermissions', 'no')).code, -32002);
    assert.equal(toRpcError(lmError('Blocked', 'quota')).code, -32003);
  });

  it('carries the provider error name: quota and rate limit are told apart from other failures', () => {
    assert.deepEqual(toRpcError(named('ChatQuotaExceeded', 'You have exhausted your premium model quota.')), {
      code: -32000, message: 'You have exhausted your premium model quota.', data: { code: 'Other', name: 'ChatQuotaExceeded' },
    });
    assert.deepEqual(toRpcError(named('ChatRateLimited', 'Rate limited')).data, { code: 'Other', name: 'ChatRateLimited' });
    assert.deepEqual(toRpcError(new Error('Response too long.')).data, { code: 'Other', name: 'Error' });
  });

  it('maps anything else to Other', () => {
    assert.deepEqual(toRpcError(named('Unknown', 'x')), { code: -32000, message: 'x', data: { code: 'Other', name: 'Unknown' } });
    assert.deepEqual(toRpcError('boom'), { code: -32000, message: 'boom', data: { code: 'Other', name: '' } });
    assert.equal(toRpcError(new Error('')).message, 'Other');
  });
});

describe('user-facing text', () => {
  it('models keep their fields', () => {
    const m = { id: 'gpt', name: 'GPT', vendor: 'copilot', family: 'f', version: '1', maxInputTokens: 128000, extra: 1 };
    assert.deepEqual(toModelInfo(m), {
      id: 'gpt', name: 'GPT', vendor: 'copilot', family: 'f', version: '1', maxInputTokens: 128000, maxOutputTokens: 0,
    });
    assert.equal(toModelInfo({ ...m, maxInputTokens: Number.NaN }).maxInputTokens, 0);
  });

  it('codex config names the URL, the model, and the key variable only when needed', () => {
    const text = codexConfig('http://127.0.0.1:23335/v1', 'gpt-4o', false);
    assert.match(text, /^model = "gpt-4o"$/m);
    assert.match(text, /^base_url = "http:\/\/127\.0\.0\.1:23335\/v1"$/m);
    assert.match(text, /^wire_api = "responses"$/m);
    assert.doesNotMatch(text, /env_key/);
    assert.match(codexConfig('u', 'm', true), /^env_key = "MAESTRO_BRIDGE_API_KEY"$/m);
  });

  it('status bar shows port, requests in flight and errors', () => {
    assert.equal(statusText({ kind: 'ready', url: 'http://127.0.0.1:23335/v1', inFlight: 0 }).text, '$(radio-tower) Maestro :23335');
    const busy = statusText({ kind: 'ready', url: 'http://127.0.0.1:4000/v1', inFlight: 2 });
    assert.equal(busy.text, '$(radio-tower) Maestro :4000 $(pulse) 2');
    assert.match(busy.tooltip, /2 requests in flight/);
    assert.match(statusText({ kind: 'error', message: 'port in use' }).tooltip, /port in use/);
    assert.match(statusText({ kind: 'stopped' }).text, /circle-slash/);
  });

  it('another window serving the endpoint is a normal state that gives the URL', () => {
    const standby = { kind: 'standby', url: 'http://127.0.0.1:23335/v1' } as const;
    const { text, tooltip } = statusText(standby);
    assert.equal(text, '$(radio-tower) Maestro :23335 (other window)');
    assert.doesNotMatch(text, /error/);
    assert.match(tooltip, /another VS Code window serves the Responses API at http:\/\/127\.0\.0\.1:23335\/v1/);
    assert.match(tooltip, /takes over when that one closes/);
    assert.equal(describeState(standby), 'served by another window at http://127.0.0.1:23335/v1; this window takes over when that one closes');
    assert.equal(endpointUrlOf(standby), standby.url);
  });

  it('show status and the copy commands read the state', () => {
    const ready = { kind: 'ready', url: 'http://127.0.0.1:4000/v1', inFlight: 1 } as const;
    assert.equal(describeState(ready), 'listening on http://127.0.0.1:4000/v1, 1 request(s) in flight');
    assert.equal(endpointUrlOf(ready), ready.url);
    assert.equal(describeState({ kind: 'error', message: 'port in use' }), 'failed: port in use');
    assert.equal(endpointUrlOf({ kind: 'error', message: 'port in use' }), undefined);
    assert.equal(describeState({ kind: 'starting' }), 'starting');
    assert.equal(endpointUrlOf({ kind: 'stopped' }), undefined);
  });
});
