import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  API_KEY_ENV, cheapModelItems, configureArgs, configureEnv, fileMessage, parseOutcome, toolsFieldFits, toolsItems, toolsMessage, type FileOutcome,
} from '../configureSetup';

describe('configureArgs', () => {
  it('runs the Python command of the target in JSON mode with the model and the endpoint', () => {
    assert.deepEqual(configureArgs('codex', 'http://127.0.0.1:23335/v1', 'gpt-4.1'), [
      '-m', 'bridge.cli', 'configure', 'codex', '--json', '--model=gpt-4.1', '--base-url=http://127.0.0.1:23335/v1',
    ]);
    assert.deepEqual(configureArgs('claude-code', 'http://127.0.0.1:23335/v1', 'claude-sonnet-4.5'), [
      '-m', 'bridge.cli', 'configure', 'claude-code', '--json', '--model=claude-sonnet-4.5', '--base-url=http://127.0.0.1:23335/v1',
    ]);
  });

  it('keeps a model id that starts with a dash a value', () => {
    assert.ok(configureArgs('claude-code', 'http://x/v1', '-odd').includes('--model=-odd'));
    assert.ok(configureArgs('claude-code', 'http://x/v1', 'm', '-cheap').includes('--small-model=-cheap'));
  });

  it('adds the cheap model with the target\'s own option, and none for Codex', () => {
    assert.deepEqual(configureArgs('claude-code', 'http://x/v1', 'claude-sonnet-4.5', 'gpt-5-mini').slice(-1), ['--small-model=gpt-5-mini']);
    assert.deepEqual(configureArgs('gemini', 'http://x/v1', 'gemini-2.5-pro', 'gpt-5-mini').slice(-1), ['--router-model=gpt-5-mini']);
    assert.equal(configureArgs('codex', 'http://x/v1', 'gpt-4.1', 'gpt-5-mini').length, 7);
    assert.equal(configureArgs('claude-code', 'http://x/v1', 'claude-sonnet-4.5').length, 7);
  });
});

describe('cheapModelItems', () => {
  it('offers to keep the default first, then every model by name with its id', () => {
    const items = cheapModelItems([{ id: 'gpt-5-mini', name: 'GPT-5 mini', vendor: 'copilot' }]);
    assert.equal(items.length, 2);
    assert.equal(items[0]?.modelId, undefined);
    assert.equal(items[0]?.label, 'No cheaper model');
    assert.deepEqual(items[1], { label: 'GPT-5 mini', description: 'copilot · gpt-5-mini', modelId: 'gpt-5-mini' });
  });
});

describe('configureEnv', () => {
  it('passes the API key in the environment, not on the command line', () => {
    const env = configureEnv({ PATH: '/bin' }, 'k-1');
    assert.deepEqual(env, { PATH: '/bin', [API_KEY_ENV]: 'k-1' });
  });

  it('drops an inherited key when the bridge has none, and leaves the base alone', () => {
    const base = { PATH: '/bin', [API_KEY_ENV]: 'stale' };
    assert.deepEqual(configureEnv(base, ''), { PATH: '/bin' });
    assert.equal(base[API_KEY_ENV], 'stale');
  });
});

describe('parseOutcome', () => {
  const common: FileOutcome = { config: '/c/settings.json', written: true, backup: null, report: ['Changed'] };
  const withModel = (o: Record<string, unknown>): boolean => typeof o.model === 'string';

  it('checks the common fields and the target\'s own', () => {
    const parsed = parseOutcome<FileOutcome & { model: string }>(JSON.stringify({ ...common, model: 'm' }), 'claude-code', withModel);
    assert.equal(parsed.model, 'm');
    assert.throws(() => parseOutcome(JSON.stringify(common), 'claude-code', withModel), /configure claude-code answered in an unexpected shape/);
    assert.throws(() => parseOutcome(JSON.stringify({ ...common, written: 'yes', model: 'm' }), 'codex', withModel), /unexpected shape/);
    assert.throws(() => parseOutcome(JSON.stringify({ ...common, backup: 1, model: 'm' }), 'codex', withModel), /unexpected shape/);
  });

  it('names the target when the output is not JSON', () => {
    assert.throws(() => parseOutcome('Traceback ...', 'claude-code', withModel), /unexpected output from maestro-bridge configure claude-code: Traceback/);
  });
});

describe('fileMessage', () => {
  it('says what was written and where the backup is, or that nothing changed', () => {
    assert.equal(fileMessage({ config: '/a', written: true, backup: '/a.bak-1', report: [] }), 'wrote /a (backup: /a.bak-1)');
    assert.equal(fileMessage({ config: '/a', written: true, backup: null, report: [] }), 'wrote /a');
    assert.equal(fileMessage({ config: '/a', written: false, backup: null, report: [] }), '/a was already up to date');
  });
});

describe('the editor tools (--tools)', () => {
  it('adds --tools after the other options only when asked', () => {
    assert.deepEqual(configureArgs('codex', 'http://x/v1', 'gpt-4.1', undefined, true), [
      '-m', 'bridge.cli', 'configure', 'codex', '--json', '--model=gpt-4.1', '--base-url=http://x/v1', '--tools',
    ]);
    assert.deepEqual(configureArgs('claude-code', 'http://x/v1', 'm', 'cheap', true).slice(-2), ['--small-model=cheap', '--tools']);
    assert.ok(!configureArgs('claude-code', 'http://x/v1', 'm', 'cheap', false).includes('--tools'));
    assert.ok(!configureArgs('gemini', 'http://x/v1', 'm').includes('--tools'));
  });

  it('offers the models alone first, then models and tools, naming the client and the server', () => {
    const items = toolsItems('Codex');
    assert.deepEqual(items.map((i) => i.tools), [false, true]);
    assert.match(items[1]?.description ?? '', /MCP server "maestro" .* to Codex$/);
  });

  it('checks the MCP field of the answer', () => {
    assert.equal(toolsFieldFits({ mcpUrl: null }), true);
    assert.equal(toolsFieldFits({ mcpUrl: 'http://x/mcp' }), true);
    assert.equal(toolsFieldFits({}), false);
    assert.equal(toolsFieldFits({ mcpUrl: 1 }), false);
  });

  it('says where the tools are, and how to turn them on while they are off', () => {
    assert.equal(toolsMessage({ mcpUrl: null }, false), '');
    assert.equal(toolsMessage({ mcpUrl: 'http://x/mcp' }, true), ' Editor tools: MCP server "maestro" at http://x/mcp.');
    assert.equal(
      toolsMessage({ mcpUrl: 'http://x/mcp' }, false),
      ' Editor tools: MCP server "maestro" at http://x/mcp. The editor\'s tools are off: turn on the setting maestroBridge.tools.enable.',
    );
  });
});
