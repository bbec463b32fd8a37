import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { framePage, keyFragment } from '../usagePage';
import { budgetLevel, budgetLines, endpointRoot, parseUsage, todayUsageUrl, usageTooltip, type Budget } from '../usageStatus';

const TOTALS = { requests: 3, input_tokens: 12345, cached_tokens: 6000, output_tokens: 2345, reasoning_tokens: 100, errors: 0 };

function body(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { object: 'usage', since: '2026-11-26', until: '2026-11-26', totals: { ...TOTALS, cache_hit_ratio: 0.486 }, by_client: [], recent: [], ...extra };
}

function budget(state: Budget['state'], used: number, extra: Partial<Budget> = {}): Budget {
  return { scope: 'all', name: null, period: 'day', limit: 2_000_000, used, resets_at: '2026-11-27T00:00:00+01:00', state, ...extra };
}

describe('parseUsage', () => {
  it("reads today's totals and budgets from GET /v1/usage", () => {
    const usage = parseUsage(body({ budgets: [budget('warning', 1_700_000)] }));
    assert.deepEqual(usage, { day: '2026-11-26', totals: TOTALS, budgets: [budget('warning', 1_700_000)] });
  });

  it('takes a body without budgets as no budget, and drops budgets it cannot read', () => {
    assert.deepEqual(parseUsage(body())?.budgets, []);
    assert.deepEqual(parseUsage(body({ budgets: [{ scope: 'all', state: 'warning' }, budget('ok', 1)] }))?.budgets, [budget('ok', 1)]);
  });

  it('refuses what is not a usage body (an error envelope, a missing count)', () => {
    assert.equal(parseUsage({ error: { message: 'Missing or wrong API key' } }), undefined);
    assert.equal(parseUsage(null), undefined);
    const { output_tokens: _, ...partial } = TOTALS;
    assert.equal(parseUsage(body({ totals: partial })), undefined);
    assert.equal(parseUsage(body({ totals: { ...TOTALS, input_tokens: '12' } })), undefined);
  });
});

describe('usageTooltip', () => {
  it("gives today's input, cached and output tokens", () => {
    const tooltip = usageTooltip({ day: '2026-11-26', totals: TOTALS, budgets: [] });
    assert.equal(tooltip, 'Today (2026-11-26): 12,345 input tokens (6,000 cached), 2,345 output tokens, 3 requests.');
  });

  it('says one request, and warns of each budget at 80 % or exceeded', () => {
    const budgets = [
      budget('ok', 10),
      budget('warning', 1_700_000, { scope: 'client', name: 'claude-code' }),
      budget('exceeded', 31_000_000, { period: 'month', limit: 30_000_000, resets_at: '2026-12-01T00:00:00+01:00' }),
    ];
    const tooltip = usageTooltip({ day: '', totals: { ...TOTALS, requests: 1 }, budgets });
    assert.deepEqual(tooltip.split('\n'), [
      'Today: 12,345 input tokens (6,000 cached), 2,345 output tokens, 1 request.',
      '$(warning) The daily token budget of client claude-code is at 85 % (1,700,000 of 2,000,000 tokens).',
      '$(warning) The monthly token budget is exceeded: 103 % (31,000,000 of 30,000,000 tokens); requests are refused until 2026-12-01T00:00:00+01:00.',
    ]);
  });
});

describe('budgetLevel', () => {
  it('is the worst state of the budgets', () => {
    assert.equal(budgetLevel([]), 'ok');
    assert.equal(budgetLevel([budget('ok', 1)]), 'ok');
    assert.equal(budgetLevel([budget('ok', 1), budget('warning', 1_600_000)]), 'warning');
    assert.equal(budgetLevel([budget('exceeded', 2_000_000), budget('warning', 1_600_000)]), 'exceeded');
    assert.deepEqual(budgetLines([budget('ok', 1)]), []);
  });
});

describe('usage URLs', () => {
  it("reads today's usage from the endpoint's root", () => {
    assert.equal(endpointRoot('http://127.0.0.1:23335/v1'), 'http://127.0.0.1:23335');
    assert.equal(todayUsageUrl('http://127.0.0.1:23335/v1/'), 'http://127.0.0.1:23335/v1/usage?since=today&recent=0');
  });

  it('hands the key to the page in the fragment, encoded', () => {
    assert.equal(keyFragment(''), '');
    assert.equal(keyFragment('a b+c&d#'), '#key=a%20b%2Bc%26d%23');
  });

  it('frames the page, escaped, in a document that allows that origin only', () => {
    const html = framePage('http://127.0.0.1:1/usage#key="><script>', 'http://127.0.0.1:1');
    assert.match(html, /src="http:\/\/127\.0\.0\.1:1\/usage#key=&quot;&gt;&lt;script&gt;"/);
    assert.match(html, /content="default-src 'none'; frame-src http:\/\/127\.0\.0\.1:1; style-src 'unsafe-inline'"/);
    assert.doesNotMatch(html, /<script/);
  });
});
