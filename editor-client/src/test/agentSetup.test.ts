import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  agentTerminal, chatAgentMessage, doctorArgs, doctorLines, doctorSummary, parseChatAgentOutcome, parseDoctor, rootUrl, RUN_AGENTS,
} from '../agentSetup';

describe('agentTerminal', () => {
  it('runs `maestro-bridge run AGENT` with the bridge\'s root, no shell, the key in the environment', () => {
    const spec = agentTerminal('/py', 'qwen', 'http://127.0.0.1:23335/v1', 'k1');
    assert.equal(spec.shellPath, '/py');
    assert.deepEqual(spec.shellArgs, ['-m', 'bridge.cli', 'run', 'qwen', '--url=http://127.0.0.1:23335']);
    assert.deepEqual(spec.env, { MAESTRO_BRIDGE_URL: 'http://127.0.0.1:23335', MAESTRO_BRIDGE_API_KEY: 'k1' });
    assert.equal(spec.name, 'Qwen Code (Maestro Bridge)');
  });

  it('removes a key variable of the terminal when the bridge has none', () => {
    assert.equal(agentTerminal('/py', 'codex', 'http://x/v1', '').env.MAESTRO_BRIDGE_API_KEY, null);
  });

  it('offers the six agents run knows', () => {
    assert.deepEqual(RUN_AGENTS.map((a) => a.agent), ['codex', 'claude', 'gemini', 'aider', 'opencode', 'qwen']);
  });

  it('takes the root of any base URL', () => {
    assert.equal(rootUrl('http://h:1/v1/'), 'http://h:1');
    assert.equal(rootUrl('http://h:1/v1beta'), 'http://h:1');
    assert.equal(rootUrl('http://h:1'), 'http://h:1');
  });
});

const REPORT = JSON.stringify({
  ok: false,
  checks: [
    { name: 'bridge', status: 'ok', detail: 'Maestro Bridge 0.1.0 at http://h:1', fix: '' },
    { name: 'models', status: 'fail', detail: 'the editor serves no chat models', fix: 'sign in to GitHub Copilot' },
    { name: 'agent codex', status: 'warn', detail: 'points elsewhere', fix: 'run it' },
  ],
});

describe('doctor', () => {
  it('asks for JSON at the bridge\'s root', () => {
    assert.deepEqual(doctorArgs('http://h:1/v1'), ['-m', 'bridge.cli', 'doctor', '--json', '--url=http://h:1']);
  });

  it('reads the report, prints its lines and sums it up by its first failure', () => {
    const report = parseDoctor(REPORT);
    assert.deepEqual(doctorLines(report), [
      '[ok  ] bridge: Maestro Bridge 0.1.0 at http://h:1',
      '[FAIL] models: the editor serves no chat models -> sign in to GitHub Copilot',
      '[warn] agent codex: points elsewhere -> run it',
    ]);
    assert.equal(doctorSummary(report), '1 failed, 1 to look at. models: the editor serves no chat models (sign in to GitHub Copilot)');
    assert.equal(doctorSummary({ ok: true, checks: [report.checks[0]!] }), 'All checks passed.');
  });

  it('refuses what is not a report', () => {
    assert.throws(() => parseDoctor('nope'), /unexpected output/);
    assert.throws(() => parseDoctor(JSON.stringify({ ok: true, checks: [{ name: 'x', status: 'bad', detail: '', fix: '' }] })), /unexpected shape/);
  });
});

describe('configure opencode|qwen', () => {
  it('reads the answer and words the notification', () => {
    const answer = JSON.stringify({
      config: '/h/.qwen/settings.json', written: true, backup: null, report: [], baseUrl: 'http://h:1/v1',
      model: 'gpt-4.1', models: ['gpt-4.1', 'claude-sonnet-4.5'], placeholderKey: true, mcpUrl: null,
    });
    const outcome = parseChatAgentOutcome(answer, 'qwen');
    assert.equal(chatAgentMessage('Qwen Code', outcome), 'Qwen Code configured: wrote /h/.qwen/settings.json; model gpt-4.1 (2 models listed).');
    assert.throws(() => parseChatAgentOutcome(JSON.stringify({ ...JSON.parse(answer), models: 'x' }), 'qwen'), /unexpected shape/);
  });
});
