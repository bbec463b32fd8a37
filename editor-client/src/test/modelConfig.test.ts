import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toModelInfo, parseChatParams } from '../convert';
import { allowedConfiguration, configurationOptions, modelExtras } from '../modelConfig';

const base = { id: 'gpt-5', name: 'GPT-5', vendor: 'copilot', family: 'gpt-5', version: '1', maxInputTokens: 128000 };

describe('modelExtras', () => {
  it('reports the output limit and capabilities where the API gives them', () => {
    const info = toModelInfo({ ...base, maxOutputTokens: 64000, capabilities: { imageInput: false, toolCalling: 128 } } as typeof base);
    assert.equal(info.maxOutputTokens, 64000);
    assert.deepEqual(info.capabilities, { imageInput: false, toolCalling: true });
  });

  it('reads the older proposed capability names', () => {
    assert.deepEqual(modelExtras({ capabilities: { supportsImageToText: true, supportsToolCalling: false } }), {
      maxOutputTokens: 0, capabilities: { imageInput: true, toolCalling: false },
    });
  });

  it("reports the provider's prices (Copilot's AI credits per million tokens) that it states", () => {
    const priced = { ...base, inputCost: 250, outputCost: 1000, cacheCost: 25, cacheWriteCost: 312.5 };
    assert.deepEqual(modelExtras(priced).prices, { input: 250, output: 1000, cacheRead: 25, cacheWrite: 312.5 });
    assert.deepEqual(modelExtras({ inputCost: 3, outputCost: -1, cacheCost: 'x' }).prices, { input: 3 });
    assert.equal('prices' in modelExtras(base), false);
  });

  it('says nothing where the API says nothing or nonsense', () => {
    assert.deepEqual(modelExtras(base), { maxOutputTokens: 0 });
    assert.deepEqual(modelExtras({ maxOutputTokens: Number.POSITIVE_INFINITY, capabilities: { imageInput: 'yes' } }), {
      maxOutputTokens: 0, capabilities: {},
    });
  });
});

describe('allowedConfiguration', () => {
  const model = { configurationSchema: { properties: { reasoningEffort: { type: 'string', enum: ['low', 'medium', 'high'] } } } };

  it('passes the keys the model lists', () => {
    assert.deepEqual(allowedConfiguration(model, { reasoningEffort: 'low' }), { passed: { reasoningEffort: 'low' }, left: [] });
  });

  it('leaves out a value outside the enum and a key the schema does not list', () => {
    assert.deepEqual(allowedConfiguration(model, { reasoningEffort: 'xhigh', other: 1 }), { passed: {}, left: ['reasoningEffort', 'other'] });
  });

  it('passes the keys Copilot reads when the model has no schema (VS Code 1.139)', () => {
    assert.deepEqual(allowedConfiguration(base, { reasoningEffort: 'low', other: 1 }), {
      passed: { reasoningEffort: 'low' }, left: ['other'],
    });
  });

  it('arrives from the chat params', () => {
    const p = parseChatParams({ chatId: 'c', model: 'm', messages: [], modelConfiguration: { reasoningEffort: 'high' } });
    assert.deepEqual(p.modelConfiguration, { reasoningEffort: 'high' });
  });
});

describe('configurationOptions', () => {
  it('sets configuration, which VS Code forwards as modelConfiguration, and modelConfiguration too', () => {
    assert.deepEqual(configurationOptions({ reasoningEffort: 'high' }), {
      configuration: { reasoningEffort: 'high' }, modelConfiguration: { reasoningEffort: 'high' },
    });
  });

  it('sets nothing when nothing passed', () => {
    assert.deepEqual(configurationOptions({}), {});
  });
});
