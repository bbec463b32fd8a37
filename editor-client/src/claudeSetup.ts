// "Configure Claude Code": the answer of `maestro-bridge configure claude-code --json`, which
// writes the bridge into the `env` of Claude Code's settings.json (the shared parts are in
// configureSetup).

import { fileMessage, isString, parseOutcome, toolsFieldFits, type FileOutcome, type ToolsOutcome } from './configureSetup';

/** The command's `--json` answer (the fields we use). */
export interface ClaudeOutcome extends FileOutcome, ToolsOutcome {
  baseUrl: string;
  model: string;
  opusModel: string;
  sonnetModel: string;
  haikuModel: string;
  /** `--small-model`: where Claude Code's background requests go (also the haiku model). */
  smallModel: string | null;
  contextWindow: number | null;
  placeholderToken: boolean;
  /** `--tools`: the file the MCP server went into (Claude Code's .claude.json), else null. */
  mcpConfig: string | null;
  mcpWritten: boolean;
  mcpBackup: string | null;
}

/** The JSON `configure claude-code` printed; throws when it is not the expected shape. */
export function parseClaudeOutcome(stdout: string): ClaudeOutcome {
  return parseOutcome<ClaudeOutcome>(stdout, 'claude-code', (o) =>
    isString(o.baseUrl) && isString(o.model) && isString(o.opusModel) && isString(o.sonnetModel) &&
    isString(o.haikuModel) && (o.smallModel === null || isString(o.smallModel)) && (o.contextWindow === null || typeof o.contextWindow === 'number') &&
    typeof o.placeholderToken === 'boolean' && toolsFieldFits(o) && (o.mcpConfig === null || isString(o.mcpConfig)) &&
    typeof o.mcpWritten === 'boolean' && (o.mcpBackup === null || isString(o.mcpBackup)));
}

/** The one-line notification after a successful run. */
export function claudeOutcomeMessage(o: ClaudeOutcome): string {
  const families = `opus ${o.opusModel}, sonnet ${o.sonnetModel}, haiku ${o.haikuModel}`;
  const background = o.smallModel === null ? '' : `, background requests on ${o.smallModel}`;
  const mcp = o.mcpConfig === null ? '' : `; ${fileMessage({ config: o.mcpConfig, written: o.mcpWritten, backup: o.mcpBackup, report: [] })}`;
  return `Claude Code configured: ${fileMessage(o)}${mcp}, model ${o.model} (${families})${background}. ` +
    'Claude Code started from now on uses the bridge.';
}
