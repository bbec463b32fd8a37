// The pure parts of the agent commands: "Run Agent in Terminal" (`maestro-bridge run AGENT`),
// "Configure OpenCode" / "Configure Qwen Code" (`maestro-bridge configure opencode|qwen`) and
// the doctor report "Show Status" shows (`maestro-bridge doctor --json`). The work itself is
// the Python commands (bridge/run/, bridge/configure/, bridge/doctor/).

import { API_KEY_ENV, fileMessage, isString, parseOutcome, toolsFieldFits, type FileOutcome, type ToolsOutcome } from './configureSetup';

export const URL_ENV = 'MAESTRO_BRIDGE_URL';

/** The agents `maestro-bridge run` starts: its name for each, and what the pick shows. */
export const RUN_AGENTS: readonly { agent: string; label: string; description: string }[] = [
  { agent: 'codex', label: 'Codex', description: 'OpenAI Codex CLI (Responses API)' },
  { agent: 'claude', label: 'Claude Code', description: 'Anthropic Claude Code (Messages API)' },
  { agent: 'gemini', label: 'Gemini CLI', description: 'Google Gemini CLI (Gemini API)' },
  { agent: 'aider', label: 'Aider', description: 'Aider (Chat Completions)' },
  { agent: 'opencode', label: 'OpenCode', description: 'OpenCode (Chat Completions)' },
  { agent: 'qwen', label: 'Qwen Code', description: 'Qwen Code (Chat Completions)' },
];

/** The bridge's root URL (no /v1): what `run` and `doctor` take as --url. */
export function rootUrl(url: string): string {
  return url.replace(/\/+$/, '').replace(/\/v1(beta)?$/, '');
}

/** The terminal that runs `python -m bridge.cli run AGENT --url ROOT` (no shell in between). */
export interface AgentTerminal {
  name: string;
  shellPath: string;
  shellArgs: string[];
  env: Record<string, string | null>;
}

/** What "Run Agent in Terminal" opens for `agent` on the bridge at `url` (key in the environment). */
export function agentTerminal(python: string, agent: string, url: string, apiKey: string): AgentTerminal {
  const root = rootUrl(url);
  const label = RUN_AGENTS.find((a) => a.agent === agent)?.label ?? agent;
  return {
    name: `${label} (Maestro Bridge)`,
    shellPath: python,
    shellArgs: ['-m', 'bridge.cli', 'run', agent, `--url=${root}`],
    env: { [URL_ENV]: root, [API_KEY_ENV]: apiKey || null },
  };
}

/** `python ARGS`: the doctor's report, as JSON. */
export function doctorArgs(url: string): string[] {
  return ['-m', 'bridge.cli', 'doctor', '--json', `--url=${rootUrl(url)}`];
}

export interface DoctorCheck {
  name: string;
  status: 'ok' | 'warn' | 'fail' | 'info';
  detail: string;
  fix: string;
}

export interface DoctorReport {
  ok: boolean;
  checks: DoctorCheck[];
}

const STATUSES = new Set(['ok', 'warn', 'fail', 'info']);

/** The JSON `maestro-bridge doctor --json` printed; throws when it is not that. */
export function parseDoctor(stdout: string): DoctorReport {
  let data: unknown;
  try {
    data = JSON.parse(stdout);
  } catch {
    throw new Error(`unexpected output from maestro-bridge doctor: ${stdout.slice(0, 200)}`);
  }
  const o = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  const checks = Array.isArray(o.checks) ? o.checks as Record<string, unknown>[] : undefined;
  const fits = typeof o.ok === 'boolean' && checks !== undefined && checks.every((c) =>
    typeof c === 'object' && c !== null && isString(c.name) && isString(c.detail) && isString(c.fix) &&
    isString(c.status) && STATUSES.has(c.status));
  if (!fits) throw new Error('maestro-bridge doctor answered in an unexpected shape (an older version?)');
  return o as unknown as DoctorReport;
}

const MARKS: Record<DoctorCheck['status'], string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL', info: 'info' };

/** The report's lines, as `maestro-bridge doctor` prints them. */
export function doctorLines(report: DoctorReport): string[] {
  return report.checks.map((c) => `[${MARKS[c.status]}] ${c.name}: ${c.detail}${c.fix ? ` -> ${c.fix}` : ''}`);
}

/** One sentence for the notification: all well, or the first failure and what to do. */
export function doctorSummary(report: DoctorReport): string {
  const failed = report.checks.filter((c) => c.status === 'fail');
  const warned = report.checks.filter((c) => c.status === 'warn');
  const first = failed[0] ?? warned[0];
  if (first === undefined) return 'All checks passed.';
  const counts = `${failed.length} failed, ${warned.length} to look at`;
  return `${counts}. ${first.name}: ${first.detail}${first.fix ? ` (${first.fix})` : ''}`;
}

/** `configure opencode|qwen --json`'s answer (the fields we use). */
export interface ChatAgentOutcome extends FileOutcome, ToolsOutcome {
  baseUrl: string;
  model: string;
  models: string[];
  placeholderKey: boolean;
}

export function parseChatAgentOutcome(stdout: string, target: 'opencode' | 'qwen'): ChatAgentOutcome {
  return parseOutcome<ChatAgentOutcome>(stdout, target, (o) =>
    isString(o.baseUrl) && isString(o.model) && Array.isArray(o.models) && o.models.every(isString) &&
    typeof o.placeholderKey === 'boolean' && toolsFieldFits(o));
}

export function chatAgentMessage(client: string, o: ChatAgentOutcome): string {
  return `${client} configured: ${fileMessage(o)}; model ${o.model} (${o.models.length} models listed).`;
}
