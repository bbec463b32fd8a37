import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { parseChatParams } from '../convert';
import { inputText, inputTooLongMessage } from '../inputCount';

// Written by the server's own `input_text` (tests/test_count_input_text.py checks it still is):
// the editor and the server count the same text, so both refuse the same inputs.
const FIXTURE = path.join(__dirname, '..', '..', '..', 'tests', 'fixtures', 'count_input', 'input_text.json');

describe('inputText', () => {
  it('is the text the server counts, byte for byte', () => {
    const fixture = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as { request: Record<string, unknown>; inputText: string };
    const request = parseChatParams({ chatId: 'c-1', ...fixture.request });
    assert.equal(inputText(request), fixture.inputText);
  });

  it('leaves images to the server estimate and counts each tool once', () => {
    const request = parseChatParams({
      chatId: 'c-1', model: 'm',
      messages: [{ role: 'user', content: [{ type: 'data', mimeType: 'image/png', data: 'AA==' }, { type: 'text', value: 'hi' }] }],
      tools: [{ name: 't', description: 'd' }],
    });
    assert.equal(inputText(request), 'hi\nt d ');
  });
});

describe('countInput', () => {
  it('is read from maestro/chat, imageTokens defaulting to 0', () => {
    const base = { chatId: 'c-1', model: 'm', messages: [] };
    assert.deepEqual(parseChatParams({ ...base, countInput: { maxTokens: 10 } }).countInput, { maxTokens: 10, imageTokens: 0 });
    assert.equal(parseChatParams(base).countInput, undefined);
    assert.throws(() => parseChatParams({ ...base, countInput: { maxTokens: -1 } }), /countInput.maxTokens/);
    assert.throws(() => parseChatParams({ ...base, countInput: { maxTokens: 1, imageTokens: 1.5 } }), /imageTokens/);
  });

  it('words a refusal with both numbers', () => {
    assert.equal(inputTooLongMessage(150, 100), 'The input is 150 tokens, more than the 100 tokens the model can read.');
  });
});
