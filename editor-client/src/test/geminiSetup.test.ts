import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configureArgs } from '../configureSetup';
import { geminiOutcomeMessage, parseGeminiOutcome, type GeminiOutcome } from '../geminiSetup';

// As `maestro-bridge configure gemini --json` prints it (tests/test_configure_gemini.py).
const printed = {
  config: '/home/u/.gemini/.env',
  dryRun: false,
  written: true,
  backup: '/home/u/.gemini/.env.bak-20250102-030405',
  settings: '/home/u/.gemini/settings.json',
  settingsWritten: false,
  settingsBackup: null,
  baseUrl: 'http://127.0.0.1:23335',
  model: 'gemini-2.5-pro',
  editorModel: 'gemini-2.5-pro',
  routerModel: null,
  contextWindow: 128000,
  placeholderKey: true,
  mcpUrl: null,
  changes: [{ key: 'GEMINI_MODEL', old: 'gemini-2.0-flash', new: 'gemini-2.5-pro' }],
  report: ['Changed /home/u/.gemini/.env:'],
};

describe('configureArgs for Gemini CLI', () => {
  it('runs `configure gemini` in JSON mode with the model and the endpoint', () => {
    assert.deepEqual(configureArgs('gemini', 'http://127.0.0.1:23335/v1', 'gemini-2.5-pro'), [
      '-m', 'bridge.cli', 'configure', 'gemini', '--json', '--model=gemini-2.5-pro', '--base-url=http://127.0.0.1:23335/v1',
    ]);
  });

  it('passes the router model the user picked as --router-model', () => {
    assert.deepEqual(configureArgs('gemini', 'http://x/v1', 'gemini-2.5-pro', 'gpt-5-mini').slice(-1), ['--router-model=gpt-5-mini']);
  });
});

describe('parseGeminiOutcome', () => {
  it('reads the JSON the command prints', () => {
    const parsed: GeminiOutcome = parseGeminiOutcome(JSON.stringify(printed));
    assert.equal(parsed.model, 'gemini-2.5-pro');
    assert.equal(parsed.settings, '/home/u/.gemini/settings.json');
    assert.equal(parsed.settingsWritten, false);
    assert.equal(parsed.placeholderKey, true);
  });

  it('accepts an unknown context window and a settings backup', () => {
    const parsed = parseGeminiOutcome(JSON.stringify({ ...printed, contextWindow: null, settingsBackup: '/b' }));
    assert.equal(parsed.contextWindow, null);
    assert.equal(parsed.settingsBackup, '/b');
  });

  it('rejects output that is not JSON, or not this shape (a Claude Code answer, a missing field)', () => {
    assert.throws(() => parseGeminiOutcome('usage: maestro-bridge ...'), /unexpected output from maestro-bridge configure gemini/);
    const claude = { config: '/c', written: true, backup: null, report: [], baseUrl: 'u', model: 'm', opusModel: 'o' };
    assert.throws(() => parseGeminiOutcome(JSON.stringify(claude)), /configure gemini answered in an unexpected shape/);
    const { settingsWritten: _dropped, ...noSettings } = printed;
    assert.throws(() => parseGeminiOutcome(JSON.stringify(noSettings)), /unexpected shape/);
    assert.throws(() => parseGeminiOutcome(JSON.stringify({ ...printed, placeholderKey: 'yes' })), /unexpected shape/);
    const { routerModel: _noRouter, ...older } = printed;
    assert.throws(() => parseGeminiOutcome(JSON.stringify(older)), /unexpected shape/);
  });
});

describe('geminiOutcomeMessage', () => {
  it('says what became of each file and the model', () => {
    assert.equal(
      geminiOutcomeMessage(parseGeminiOutcome(JSON.stringify(printed))),
      'Gemini CLI configured: wrote /home/u/.gemini/.env (backup: /home/u/.gemini/.env.bak-20250102-030405); ' +
        '/home/u/.gemini/settings.json was already up to date; model gemini-2.5-pro. ' +
        'Gemini CLI started from now on in a trusted folder uses the bridge.',
    );
  });

  it('names the router model when there is one', () => {
    const routed = parseGeminiOutcome(JSON.stringify({ ...printed, routerModel: 'gpt-5-mini' }));
    assert.equal(routed.routerModel, 'gpt-5-mini');
    assert.match(geminiOutcomeMessage(routed), /; model gemini-2\.5-pro, router and background checks on gpt-5-mini\. /);
  });

  it('says when both files were written for the first time', () => {
    const fresh = parseGeminiOutcome(JSON.stringify({ ...printed, backup: null, settingsWritten: true }));
    assert.match(geminiOutcomeMessage(fresh), /^Gemini CLI configured: wrote \/home\/u\/\.gemini\/\.env; wrote \/home\/u\/\.gemini\/settings\.json; model/);
  });
});

describe('Gemini CLI with the editor tools (--tools)', () => {
  it('reads the MCP server\'s URL, and wants the field', () => {
    const parsed = parseGeminiOutcome(JSON.stringify({ ...printed, mcpUrl: 'http://127.0.0.1:23335/mcp' }));
    assert.equal(parsed.mcpUrl, 'http://127.0.0.1:23335/mcp');
    const { mcpUrl: _dropped, ...older } = printed;
    assert.throws(() => parseGeminiOutcome(JSON.stringify(older)), /unexpected shape/);
  });

  it('passes --tools last when asked', () => {
    assert.deepEqual(configureArgs('gemini', 'http://x/v1', 'gemini-2.5-pro', undefined, true).slice(-1), ['--tools']);
  });
});
