import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { buildInitializationOptions, LIMIT_NAMES, OPTIONAL_SETTINGS, toolsEnabled, toolsKeyOff } from '../options';
import { PROTOCOL_VERSION } from '../protocol';

const endpoint = { host: '127.0.0.1', port: 23335, apiKey: '' };

describe('buildInitializationOptions', () => {
  it('sends only the endpoint (and standby, for other windows, and that it counts chat input) when the user set nothing, so the server keeps its defaults', () => {
    const built = buildInitializationOptions(endpoint, {});
    assert.deepEqual(built, {
      options: { protocolVersion: PROTOCOL_VERSION, host: '127.0.0.1', port: 23335, apiKey: null, standby: true, countsChatInput: true },
      ignored: [],
    });
  });

  it('passes the API key when set', () => {
    const { options } = buildInitializationOptions({ ...endpoint, apiKey: 'k' }, {});
    assert.equal(options.apiKey, 'k');
  });

  it('passes every setting the user set', () => {
    const { options, ignored } = buildInitializationOptions(endpoint, {
      modelAliases: { 'gpt-5.5': 'copilot-gpt-4.1' },
      defaultModel: ' gpt-4.1 ',
      keepaliveSeconds: 0,
      allowRemote: true,
      allowedHosts: ['bridge.example', ' '],
      allowedOrigins: ['https://app.example'],
      'limits.maxBodyBytes': 2048,
      'limits.maxTools': 0,
      'limits.idleTimeoutSeconds': 2.5,
    });
    assert.deepEqual(ignored, []);
    assert.deepEqual(options, {
      protocolVersion: PROTOCOL_VERSION,
      host: '127.0.0.1',
      port: 23335,
      apiKey: null,
      standby: true,
      countsChatInput: true,
      modelAliases: { 'gpt-5.5': 'copilot-gpt-4.1' },
      defaultModel: 'gpt-4.1',
      keepaliveSeconds: 0, // a falsy value the user set is still sent
      allowRemote: true,
      allowedHosts: ['bridge.example'],
      allowedOrigins: ['https://app.example'],
      limits: { maxBodyBytes: 2048, maxTools: 0, idleTimeoutSeconds: 2.5 },
    });
  });

  it('leaves out empty names (the server default: none) and an empty limits object', () => {
    const { options } = buildInitializationOptions(endpoint, { defaultModel: '', modelAliases: {} });
    assert.equal('defaultModel' in options, false);
    assert.equal('modelAliases' in options, false);
    assert.equal('limits' in options, false);
  });

  it('ignores values of the wrong type and says which', () => {
    const { options, ignored } = buildInitializationOptions(endpoint, {
      modelAliases: { good: 'gpt-4.1', empty: '', number: 5 },
      defaultModel: 42,
      keepaliveSeconds: '10',
      allowRemote: 'yes',
      allowedHosts: 'bridge.example',
      allowedOrigins: [1],
      'limits.maxTools': 1.5, // an integer limit
      'limits.maxBodyBytes': Number.NaN,
      'limits.totalTimeoutSeconds': null, // null: not set
    });
    assert.deepEqual(options.modelAliases, { good: 'gpt-4.1' });
    assert.deepEqual(ignored, [
      'modelAliases.empty', 'modelAliases.number', 'defaultModel', 'keepaliveSeconds', 'allowRemote',
      'allowedHosts', 'allowedOrigins', 'limits.maxBodyBytes', 'limits.maxTools',
    ]);
    for (const key of ['defaultModel', 'keepaliveSeconds', 'allowRemote', 'allowedHosts', 'allowedOrigins', 'limits']) {
      assert.equal(key in options, false, key);
    }
  });

  it('passes range checks to the server, which owns them', () => {
    const { options, ignored } = buildInitializationOptions(endpoint, { 'limits.maxJsonDepth': 1 });
    assert.deepEqual(ignored, []);
    assert.deepEqual(options.limits, { maxJsonDepth: 1 });
  });
});

describe('budgets and the fallback model', () => {
  it('passes the budgets and the fallback model the user set', () => {
    const { options, ignored } = buildInitializationOptions(endpoint, {
      'budgets.daily': 2000000,
      'budgets.monthly': 30000000,
      'budgets.scoped': ['claude-code=500000/day', ' model:gpt-5=10000000/month ', ''],
      fallbackModel: ' gpt-5-mini ',
    });
    assert.deepEqual(ignored, []);
    assert.deepEqual(options.budgets, {
      daily: 2000000,
      monthly: 30000000,
      scoped: ['claude-code=500000/day', 'model:gpt-5=10000000/month'],
    });
    assert.equal(options.fallbackModel, 'gpt-5-mini');
  });

  it('sends no budgets and no fallback model when none is set (null, empty)', () => {
    const { options, ignored } = buildInitializationOptions(endpoint, {
      'budgets.daily': null,
      'budgets.scoped': [],
      fallbackModel: '',
    });
    assert.deepEqual(ignored, []);
    assert.equal('budgets' in options, false);
    assert.equal('fallbackModel' in options, false);
  });

  it('ignores budgets of the wrong type and says which', () => {
    const { options, ignored } = buildInitializationOptions(endpoint, {
      'budgets.daily': 1.5,
      'budgets.monthly': '100',
      'budgets.scoped': 'claude-code=1/day',
      fallbackModel: 3,
    });
    assert.deepEqual(ignored, ['budgets.daily', 'budgets.monthly', 'budgets.scoped', 'fallbackModel']);
    assert.equal('budgets' in options, false);
  });
});

describe('the tool options', () => {
  it('sends the tool settings the user set', () => {
    const { options, ignored } = buildInitializationOptions(endpoint, {
      'tools.enable': true,
      'tools.requireKey': false,
      'tools.allow': ['editor_*', ' ', 'maestro_test_*'],
      'tools.deny': ['editor_hover'],
      'tools.timeoutSeconds': 2.5,
      'tools.maxResultChars': 5000,
    });
    assert.deepEqual(ignored, []);
    assert.deepEqual(options.tools, {
      enable: true, requireKey: false, allow: ['editor_*', 'maestro_test_*'], deny: ['editor_hover'], timeoutSeconds: 2.5, maxResultChars: 5000,
    });
  });

  it('sends no tools object when nothing is set, so the server keeps them off', () => {
    assert.equal(buildInitializationOptions(endpoint, {}).options.tools, undefined);
  });

  it('ignores tool settings of the wrong type and says which', () => {
    const { options, ignored } = buildInitializationOptions(endpoint, {
      'tools.enable': 'yes', 'tools.requireKey': 'no', 'tools.allow': 'editor_*', 'tools.deny': [1], 'tools.timeoutSeconds': '9', 'tools.maxResultChars': 1.5,
    });
    assert.equal(options.tools, undefined);
    assert.deepEqual(ignored, ['tools.enable', 'tools.requireKey', 'tools.allow', 'tools.deny', 'tools.timeoutSeconds', 'tools.maxResultChars']);
  });

  it('turns the key off only when the user set requireKey to false', () => {
    assert.equal(toolsKeyOff({ 'tools.requireKey': false }), true);
    assert.equal(toolsKeyOff({ 'tools.requireKey': true }), false);
    assert.equal(toolsKeyOff({}), false);
  });

  it('answers the tool methods only when the user turned tools on', () => {
    assert.equal(toolsEnabled({ 'tools.enable': true }), true);
    assert.equal(toolsEnabled({ 'tools.enable': false }), false);
    assert.equal(toolsEnabled({}), false);
  });
});

describe('the settings package.json contributes', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { default?: unknown; markdownDescription?: string; description?: string }> } };
  };
  const properties = manifest.contributes.configuration.properties;

  it('include every option this module sends, each with a default and a description', () => {
    assert.equal(LIMIT_NAMES.length, 18);
    for (const key of OPTIONAL_SETTINGS) {
      const property = properties[`maestroBridge.${key}`];
      assert.ok(property, key);
      assert.notEqual(property.default, undefined, key);
      assert.ok(property.markdownDescription ?? property.description, key);
    }
  });
});

describe('the usage ledger options', () => {
  const storage = path.join(path.sep, 'profile', 'globalStorage', 'maestro.maestro-bridge');
  const inStorage = { ...endpoint, storageFolder: storage };

  it('by default point every window at one file in the global storage folder', () => {
    const { options, ignored } = buildInitializationOptions(inStorage, {});
    assert.deepEqual(ignored, []);
    assert.deepEqual(options.usage, { database: path.join(storage, 'usage.sqlite3') });
    // An empty setting (its default shown in the UI) means the same.
    assert.deepEqual(buildInitializationOptions(inStorage, { 'usage.database': '  ' }).options.usage, {
      database: path.join(storage, 'usage.sqlite3'),
    });
  });

  it('leave the server its own default without a storage folder', () => {
    const { options } = buildInitializationOptions(endpoint, {});
    assert.equal('usage' in options, false);
  });

  it('turn the ledger off with "none", in any case', () => {
    for (const value of ['none', ' NONE ', 'None']) {
      const { options } = buildInitializationOptions(inStorage, { 'usage.database': value });
      assert.deepEqual(options.usage, { database: 'none' }, value);
    }
  });

  it('use a path the user gave, and the retention the user set', () => {
    const file = path.join(path.sep, 'data', 'shared-usage.sqlite3');
    const { options, ignored } = buildInitializationOptions(inStorage, {
      'usage.database': ` ${file} `,
      'usage.retentionDays': 30,
    });
    assert.deepEqual(ignored, []);
    assert.deepEqual(options.usage, { database: file, retentionDays: 30 });
  });

  it('pass credit rates whose prices are numbers, and ignore any other', () => {
    const rates = { 'claude-sonnet-4.5': { input: 300, output: 1500, cacheRead: 30 } };
    const { options, ignored } = buildInitializationOptions(inStorage, { 'usage.creditRates': rates });
    assert.deepEqual(ignored, []);
    assert.deepEqual(options.usage?.creditRates, rates);
    for (const bad of [[], 'x', { m: { input: 1 } }, { m: { input: -1, output: 1 } }, { m: { input: 1, output: 1, cacheRead: '2' } }]) {
      const built = buildInitializationOptions(inStorage, { 'usage.creditRates': bad });
      assert.deepEqual(built.ignored, ['usage.creditRates'], JSON.stringify(bad));
      assert.equal(built.options.usage?.creditRates, undefined);
    }
  });

  it('ignore values of the wrong type, keeping the default file', () => {
    const { options, ignored } = buildInitializationOptions(inStorage, {
      'usage.database': 42,
      'usage.retentionDays': 1.5,
    });
    assert.deepEqual(ignored, ['usage.database', 'usage.retentionDays']);
    assert.deepEqual(options.usage, { database: path.join(storage, 'usage.sqlite3') });
    for (const days of [0, -3, '30', Number.POSITIVE_INFINITY]) {
      const built = buildInitializationOptions(inStorage, { 'usage.retentionDays': days });
      assert.deepEqual(built.ignored, ['usage.retentionDays'], String(days));
    }
  });
});
