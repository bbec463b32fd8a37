// Today's usage in the status bar: what GET /v1/usage?since=today&recent=0 answers, read
// into a few tooltip lines and a budget state. Pure functions (no vscode), unit tested.

/** The counts of the bridge's usage ledger (docs/usage.md). */
export interface UsageTotals {
  requests: number;
  input_tokens: number;
  cached_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  errors: number;
}

export type BudgetLevel = 'ok' | 'warning' | 'exceeded';

/** One entry of the `budgets` array (absent or [] when no budget is set). */
export interface Budget {
  scope: 'all' | 'client' | 'model';
  name: string | null;
  period: 'day' | 'month';
  limit: number;
  used: number;
  resets_at: string;
  state: BudgetLevel;
}

export interface TodayUsage {
  day: string;
  totals: UsageTotals;
  budgets: Budget[];
}

const COUNTS = ['requests', 'input_tokens', 'cached_tokens', 'output_tokens', 'reasoning_tokens', 'errors'] as const;
const LEVELS: readonly BudgetLevel[] = ['ok', 'warning', 'exceeded'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readBudget(value: unknown): Budget | undefined {
  if (!isRecord(value)) return undefined;
  const { scope, name, period, limit, used, resets_at: resetsAt, state } = value;
  if (scope !== 'all' && scope !== 'client' && scope !== 'model') return undefined;
  if (period !== 'day' && period !== 'month') return undefined;
  if (typeof limit !== 'number' || typeof used !== 'number') return undefined;
  if (!LEVELS.includes(state as BudgetLevel)) return undefined;
  return {
    scope, period, limit, used,
    name: typeof name === 'string' ? name : null,
    resets_at: typeof resetsAt === 'string' ? resetsAt : '',
    state: state as BudgetLevel,
  };
}

/** The body of GET /v1/usage as today's usage; undefined when it is not that body. */
export function parseUsage(body: unknown): TodayUsage | undefined {
  if (!isRecord(body) || body.object !== 'usage' || !isRecord(body.totals)) return undefined;
  const totals: Record<string, number> = {};
  for (const name of COUNTS) {
    const value = body.totals[name];
    if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
    totals[name] = value;
  }
  const budgets = Array.isArray(body.budgets) ? body.budgets.map(readBudget) : [];
  return {
    day: typeof body.until === 'string' ? body.until : '',
    totals: totals as unknown as UsageTotals,
    budgets: budgets.filter((b): b is Budget => b !== undefined),
  };
}

/** The worst state of the budgets: a warning from 80 %, exceeded at the limit. */
export function budgetLevel(budgets: readonly Budget[]): BudgetLevel {
  let level: BudgetLevel = 'ok';
  for (const budget of budgets) {
    if (LEVELS.indexOf(budget.state) > LEVELS.indexOf(level)) level = budget.state;
  }
  return level;
}

const count = (n: number): string => Math.round(n).toLocaleString('en-US');

function budgetName(budget: Budget): string {
  const per = budget.period === 'day' ? 'daily' : 'monthly';
  return budget.scope === 'all' ? `The ${per} token budget` : `The ${per} token budget of ${budget.scope} ${budget.name ?? '?'}`;
}

/** One line per budget at 80 % or over. */
export function budgetLines(budgets: readonly Budget[]): string[] {
  return budgets
    .filter((b) => b.state !== 'ok')
    .map((b) => {
      const share = b.limit > 0 ? Math.floor((100 * b.used) / b.limit) : 100;
      const what = `${budgetName(b)} is ${b.state === 'exceeded' ? 'exceeded:' : 'at'} ${share} % (${count(b.used)} of ${count(b.limit)} tokens)`;
      return b.state === 'exceeded' && b.resets_at ? `${what}; requests are refused until ${b.resets_at}.` : `${what}.`;
    });
}

/** The tooltip lines about today's usage (after the status line). */
export function usageTooltip(usage: TodayUsage): string {
  const t = usage.totals;
  const requests = t.requests === 1 ? '1 request' : `${count(t.requests)} requests`;
  const lines = [
    `Today${usage.day ? ` (${usage.day})` : ''}: ${count(t.input_tokens)} input tokens (${count(t.cached_tokens)} cached), ` +
      `${count(t.output_tokens)} output tokens, ${requests}.`,
    ...budgetLines(usage.budgets).map((line) => `$(warning) ${line}`),
  ];
  return lines.join('\n');
}

/** The endpoint's root (without /v1) from its URL (`http://127.0.0.1:23335/v1`). */
export function endpointRoot(endpointUrl: string): string {
  return endpointUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** Where the status bar reads today's usage. */
export function todayUsageUrl(endpointUrl: string): string {
  return `${endpointRoot(endpointUrl)}/v1/usage?since=today&recent=0`;
}
