import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { claudeOutcomeMessage, parseClaudeOutcome, type ClaudeOutcome } from '../claudeSetup';

// As `maestro-bridge configure claude-code --json` prints it (tests/test_configure_claude.py).
const printed = {
  config: '/home/u/.claude/settings.json',
  dryRun: false,
  written: true,
  backup: '/home/u/.claude/settings.json.bak-20250102-030405',
  baseUrl: 'http://127.0.0.1:23335',
  model: 'claude-sonnet-4.5',
  opusModel: 'claude-opus-41',
  sonnetModel: 'claude-sonnet-4.5',
  haikuModel: 'claude-haiku-4.5',
  smallModel: null,
  contextWindow: 128000,
  placeholderToken: true,
  mcpUrl: null,
  mcpConfig: null,
  mcpWritten: false,
  mcpBackup: null,
  changes: [{ key: 'env.ANTHROPIC_AUTH_TOKEN', old: null, new: '(redacted)' }],
  report: ['Changed /home/u/.claude/settings.json:'],
};

describe('parseClaudeOutcome', () => {
  it('reads the JSON the command prints', () => {
    const parsed: ClaudeOutcome = parseClaudeOutcome(JSON.stringify(printed));
    assert.equal(parsed.model, 'claude-sonnet-4.5');
    assert.equal(parsed.haikuModel, 'claude-haiku-4.5');
    assert.equal(parsed.contextWindow, 128000);
  });

  it('accepts an unknown context window and no backup', () => {
    const parsed = parseClaudeOutcome(JSON.stringify({ ...printed, contextWindow: null, backup: null }));
    assert.equal(parsed.contextWindow, null);
  });

  it('rejects output that is not JSON, or not this shape (a Codex answer, a missing family)', () => {
    assert.throws(() => parseClaudeOutcome('usage: maestro-bridge ...'), /unexpected output from maestro-bridge configure claude-code/);
    const codex = { config: '/c', written: true, backup: null, report: [], codexModel: 'gpt-5.5', editorModel: 'x', alias: null, apiKeyEnv: null };
    assert.throws(() => parseClaudeOutcome(JSON.stringify(codex)), /unexpected shape/);
    const { haikuModel: _dropped, ...noHaiku } = printed;
    assert.throws(() => parseClaudeOutcome(JSON.stringify(noHaiku)), /unexpected shape/);
    assert.throws(() => parseClaudeOutcome(JSON.stringify({ ...printed, contextWindow: '128000' })), /unexpected shape/);
    assert.throws(() => parseClaudeOutcome(JSON.stringify({ ...printed, smallModel: 5 })), /unexpected shape/);
  });
});

describe('claudeOutcomeMessage', () => {
  it('says what was written, the backup and the model of each family', () => {
    assert.equal(
      claudeOutcomeMessage(parseClaudeOutcome(JSON.stringify(printed))),
      'Claude Code configured: wrote /home/u/.claude/settings.json (backup: /home/u/.claude/settings.json.bak-20250102-030405), ' +
        'model claude-sonnet-4.5 (opus claude-opus-41, sonnet claude-sonnet-4.5, haiku claude-haiku-4.5). ' +
        'Claude Code started from now on uses the bridge.',
    );
  });

  it('names the small model of the background requests when there is one', () => {
    const small = parseClaudeOutcome(JSON.stringify({ ...printed, smallModel: 'gpt-5-mini', haikuModel: 'gpt-5-mini' }));
    assert.equal(small.smallModel, 'gpt-5-mini');
    assert.match(claudeOutcomeMessage(small), /haiku gpt-5-mini\), background requests on gpt-5-mini\. /);
  });

  it('says when nothing changed', () => {
    const same = parseClaudeOutcome(JSON.stringify({ ...printed, written: false, backup: null }));
    assert.match(claudeOutcomeMessage(same), /^Claude Code configured: \/home\/u\/\.claude\/settings\.json was already up to date, model/);
  });
});

describe('Claude Code with the editor tools (--tools)', () => {
  const withTools = {
    ...printed,
    mcpUrl: 'http://127.0.0.1:23335/mcp',
    mcpConfig: '/home/u/.claude.json',
    mcpWritten: true,
    mcpBackup: '/home/u/.claude.json.bak-20250102-030405',
  };

  it('reads the MCP fields and names the second file in the message', () => {
    const parsed = parseClaudeOutcome(JSON.stringify(withTools));
    assert.equal(parsed.mcpConfig, '/home/u/.claude.json');
    assert.match(
      claudeOutcomeMessage(parsed),
      /\(backup: \/home\/u\/\.claude\/settings\.json\.bak-20250102-030405\); wrote \/home\/u\/\.claude\.json \(backup: \/home\/u\/\.claude\.json\.bak-20250102-030405\), model /,
    );
    const same = parseClaudeOutcome(JSON.stringify({ ...withTools, mcpWritten: false, mcpBackup: null }));
    assert.match(claudeOutcomeMessage(same), /; \/home\/u\/\.claude\.json was already up to date, model /);
  });

  it('rejects an answer without the MCP fields or with the wrong types', () => {
    const { mcpWritten: _dropped, ...older } = withTools;
    assert.throws(() => parseClaudeOutcome(JSON.stringify(older)), /unexpected shape/);
    assert.throws(() => parseClaudeOutcome(JSON.stringify({ ...withTools, mcpConfig: 1 })), /unexpected shape/);
    assert.throws(() => parseClaudeOutcome(JSON.stringify({ ...withTools, mcpUrl: {} })), /unexpected shape/);
  });
});
