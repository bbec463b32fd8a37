// The usage page in the editor: its frame document and the key's fragment. Pure functions
// (no vscode), unit tested; usagePanel.ts shows them.

/** The fragment that hands the page the key (never sent to the server); "" without a key. */
export function keyFragment(apiKey: string): string {
  return apiKey ? `#key=${encodeURIComponent(apiKey)}` : '';
}

/** The webview's document: a frame of `pageUrl` filling the panel, and nothing else. */
export function framePage(pageUrl: string, origin: string): string {
  const attr = (s: string): string =>
    s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const policy = `default-src 'none'; frame-src ${origin}; style-src 'unsafe-inline'`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${attr(policy)}">
<style>html, body, iframe { margin: 0; padding: 0; border: 0; width: 100%; height: 100%; overflow: hidden; }</style>
</head><body><iframe title="Maestro Bridge usage" src="${attr(pageUrl)}"></iframe></body></html>`;
}
