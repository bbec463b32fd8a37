// "Configure Claude Code": the answer of `maestro-bridge configure claude-code --json`, which
// writes the bridge into the `env` of Claude Code's settings.json (the shared parts are in
// configureSetup).

import { fileMessage, isString, parseOutcome, type FileOutcome } from './configureSetup';

/** The command's `--json` answer (the fields we use). */
export interface ClaudeOutcome extends FileOutcome {
  baseUrl: string;
  model: string;
  opusModel: string;
  sonnetModel: string;
  haikuModel: string;
  contextWindow: number | null;
  placeholderToken: boolean;
}

/** The JSON `configure claude-code` printed; throws when it is not the expected shape. */
export function parseClaudeOutcome(stdout: string): ClaudeOutcome {
  return parseOutcome<ClaudeOutcome>(stdout, 'claude-code', (o) =>
    isString(o.baseUrl) && isString(o.model) && isString(o.opusModel) && isString(o.sonnetModel) &&
    isString(o.haikuModel) && (o.contextWindow === null || typeof o.contextWindow === 'number') &&
    typeof o.placeholderToken === 'boolean');
}

/** The one-line notification after a successful run. */
export function claudeOutcomeMessage(o: ClaudeOutcome): string {
  const families = `opus ${o.opusModel}, sonnet ${o.sonnetModel}, haiku ${o.haikuModel}`;
  return `Claude Code configured: ${fileMessage(o)}, model ${o.model} (${families}). ` +
    'Claude Code started from now on uses the bridge.';
}
