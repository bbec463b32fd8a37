// The `webSearch` initialization options (bridge/settings.py WebSearchSettings, docs/web-search.md)
// from the user's `maestroBridge.webSearch.*` settings. Pure (no vscode import), unit-tested.
// The key of Brave or Tavily is not a setting: the server reads $MAESTRO_WEB_SEARCH_API_KEY from
// the environment VS Code gives it, so it never sits in settings.json.

import type { WebSearchOptions } from './protocol';

export const WEB_SEARCH_BACKENDS = ['', 'searxng', 'brave', 'tavily', 'tool'] as const;

export const WEB_SEARCH_SETTINGS: readonly string[] = [
  'webSearch.backend',
  'webSearch.url',
  'webSearch.tool',
  'webSearch.maxResults',
  'webSearch.timeoutSeconds',
];

type Values = Readonly<Record<string, unknown>>;

/** The options the user set (others stay the server's defaults); wrong types go to `ignored`. */
export function webSearchOptions(set: Values, has: (key: string) => boolean, ignored: string[]): WebSearchOptions {
  const options: WebSearchOptions = {};
  if (has('webSearch.backend')) {
    const value = set['webSearch.backend'];
    if (typeof value === 'string' && (WEB_SEARCH_BACKENDS as readonly string[]).includes(value)) {
      if (value !== '') options.backend = value as WebSearchOptions['backend'];
    } else ignored.push('webSearch.backend');
  }
  for (const name of ['url', 'tool'] as const) {
    const key = `webSearch.${name}`;
    if (!has(key)) continue;
    const value = set[key];
    if (typeof value === 'string') {
      if (value.trim() !== '') options[name] = value.trim();
    } else ignored.push(key);
  }
  for (const name of ['maxResults', 'timeoutSeconds'] as const) {
    const key = `webSearch.${name}`;
    if (!has(key)) continue;
    const value = set[key];
    const whole = name === 'maxResults';
    if (typeof value === 'number' && Number.isFinite(value) && (!whole || Number.isInteger(value))) options[name] = value;
    else ignored.push(key);
  }
  return options;
}

/** Whether the server searches over https (Brave, Tavily, an https URL): it then keeps Python's
 * `ssl` module, which it otherwise leaves out (bridge/plain_http.py). */
export function webSearchNeedsTls(set: Values): boolean {
  const backend = set['webSearch.backend'];
  const url = set['webSearch.url'];
  return backend === 'brave' || backend === 'tavily' || (typeof url === 'string' && url.trim().toLowerCase().startsWith('https:'));
}

/** Whether searches run on an editor tool: the editor then answers the tool methods. */
export function webSearchUsesEditorTool(set: Values): boolean {
  return set['webSearch.backend'] === 'tool';
}
