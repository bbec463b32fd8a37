// "Configure Gemini CLI": the answer of `maestro-bridge configure gemini --json`, which writes
// the bridge into Gemini CLI's ~/.gemini/.env and its API-key sign-in into
// ~/.gemini/settings.json (the shared parts are in configureSetup).

import { fileMessage, isString, parseOutcome, toolsFieldFits, type FileOutcome, type ToolsOutcome } from './configureSetup';

/** The command's `--json` answer (the fields we use); `config` is the .env file. */
export interface GeminiOutcome extends FileOutcome, ToolsOutcome {
  settings: string;
  settingsWritten: boolean;
  settingsBackup: string | null;
  baseUrl: string;
  model: string;
  editorModel: string;
  /** `--router-model`: where Gemini CLI's model router and background checks go. */
  routerModel: string | null;
  contextWindow: number | null;
  placeholderKey: boolean;
}

/** The JSON `configure gemini` printed; throws when it is not the expected shape. */
export function parseGeminiOutcome(stdout: string): GeminiOutcome {
  return parseOutcome<GeminiOutcome>(stdout, 'gemini', (o) =>
    isString(o.settings) && typeof o.settingsWritten === 'boolean' &&
    (o.settingsBackup === null || isString(o.settingsBackup)) && isString(o.baseUrl) &&
    isString(o.model) && isString(o.editorModel) && (o.routerModel === null || isString(o.routerModel)) &&
    (o.contextWindow === null || typeof o.contextWindow === 'number') &&
    typeof o.placeholderKey === 'boolean' && toolsFieldFits(o));
}

/** The one-line notification after a successful run. */
export function geminiOutcomeMessage(o: GeminiOutcome): string {
  const settings = fileMessage({ config: o.settings, written: o.settingsWritten, backup: o.settingsBackup, report: [] });
  const router = o.routerModel === null ? '' : `, router and background checks on ${o.routerModel}`;
  return `Gemini CLI configured: ${fileMessage(o)}; ${settings}; model ${o.model}${router}. ` +
    'Gemini CLI started from now on in a trusted folder uses the bridge.';
}
