import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aliasUpdate, outcomeMessage, parseCodexOutcome, type ConfigureOutcome } from '../codexSetup';
import { API_KEY_ENV } from '../configureSetup';

const outcome: ConfigureOutcome = {
  config: '/home/u/.codex/config.toml',
  written: true,
  backup: '/home/u/.codex/config.toml.bak-20250102-030405',
  codexModel: 'gpt-5.5',
  editorModel: 'claude-sonnet-4',
  alias: { name: 'gpt-5.5', target: 'claude-sonnet-4', present: false },
  apiKeyEnv: null,
  mcpUrl: null,
  report: ['Changed /home/u/.codex/config.toml:'],
};

describe('parseCodexOutcome', () => {
  it('reads the JSON the command prints (extra fields allowed)', () => {
    const parsed = parseCodexOutcome(JSON.stringify({ ...outcome, dryRun: false, changes: [] }));
    assert.equal(parsed.codexModel, 'gpt-5.5');
    assert.deepEqual(parsed.alias, outcome.alias);
  });

  it('accepts no alias and no backup', () => {
    const parsed = parseCodexOutcome(JSON.stringify({ ...outcome, alias: null, backup: null }));
    assert.equal(parsed.alias, null);
  });

  it('rejects output that is not JSON, or not this shape', () => {
    assert.throws(() => parseCodexOutcome('Traceback ...'), /unexpected output from maestro-bridge configure codex/);
    assert.throws(() => parseCodexOutcome(JSON.stringify({ ...outcome, alias: { name: 'x' } })), /unexpected shape/);
    assert.throws(() => parseCodexOutcome(JSON.stringify({ ...outcome, report: 'text' })), /unexpected shape/);
    assert.throws(() => parseCodexOutcome('null'), /unexpected shape/);
  });
});

describe('aliasUpdate', () => {
  const alias = { name: 'gpt-5.5', target: 'claude-sonnet-4', present: false };

  it('adds the alias to the user settings when nothing is set', () => {
    assert.deepEqual(aliasUpdate({}, undefined, alias), {
      scope: 'global', value: { 'gpt-5.5': 'claude-sonnet-4' },
    });
  });

  it('keeps the other aliases of the scope it writes, and re-points an old one', () => {
    const globalValue = { 'gpt-5.5': 'gpt-4.1', fast: 'gpt-4o-mini' };
    assert.deepEqual(aliasUpdate({ globalValue }, globalValue, alias), {
      scope: 'global', value: { 'gpt-5.5': 'claude-sonnet-4', fast: 'gpt-4o-mini' },
    });
  });

  it('writes the most specific scope that sets the setting', () => {
    const scopes = { globalValue: { a: 'b' }, workspaceValue: { c: 'd' } };
    assert.deepEqual(aliasUpdate(scopes, { a: 'b', c: 'd' }, alias), {
      scope: 'workspace', value: { c: 'd', 'gpt-5.5': 'claude-sonnet-4' },
    });
    assert.equal(aliasUpdate({ workspaceFolderValue: {} }, {}, alias)?.scope, 'workspaceFolder');
  });

  it('changes nothing when the effective value already has the alias', () => {
    assert.equal(aliasUpdate({ globalValue: { 'gpt-5.5': 'claude-sonnet-4' } }, { 'gpt-5.5': 'claude-sonnet-4' }, alias), undefined);
  });
});

describe('parseCodexOutcome with --tools', () => {
  it('reads the MCP server\'s URL, and wants the field (null without --tools)', () => {
    const withTools = parseCodexOutcome(JSON.stringify({ ...outcome, mcpUrl: 'http://127.0.0.1:23335/mcp' }));
    assert.equal(withTools.mcpUrl, 'http://127.0.0.1:23335/mcp');
    const { mcpUrl: _dropped, ...older } = outcome;
    assert.throws(() => parseCodexOutcome(JSON.stringify(older)), /unexpected shape/);
    assert.throws(() => parseCodexOutcome(JSON.stringify({ ...outcome, mcpUrl: true })), /unexpected shape/);
  });
});

describe('outcomeMessage', () => {
  it('says what was written, the backup, the model mapping and the alias', () => {
    assert.equal(
      outcomeMessage(outcome, true),
      'Codex configured: wrote /home/u/.codex/config.toml (backup: /home/u/.codex/config.toml.bak-20250102-030405), ' +
        'model gpt-5.5 (answered by claude-sonnet-4). Set the alias gpt-5.5 → claude-sonnet-4; the bridge restarts.',
    );
  });

  it('says when nothing changed, and which variable needs the key', () => {
    const same = { ...outcome, written: false, backup: null, codexModel: 'gpt-5.5', editorModel: 'gpt-5.5', alias: null, apiKeyEnv: API_KEY_ENV };
    assert.equal(
      outcomeMessage(same, false),
      'Codex configured: /home/u/.codex/config.toml was already up to date, model gpt-5.5. ' +
        `Export ${API_KEY_ENV} with the API key where you run codex.`,
    );
  });
});
