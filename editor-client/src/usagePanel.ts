// Maestro Bridge: Show Usage: the endpoint's /usage page inside the editor, in a webview
// panel whose only content is a frame of that page (reached through asExternalUri, so that
// it works in remote and browser editors too). The key, when set, goes in the URL fragment,
// which the page reads and the browser never sends to the server.

import * as vscode from 'vscode';
import { framePage, keyFragment } from './usagePage';
import { endpointRoot } from './usageStatus';

export class UsagePanel {
  private static current: vscode.WebviewPanel | undefined;

  /** Opens the page of the endpoint at `endpointUrl` (or shows the open panel with it). */
  static async show(endpointUrl: string, apiKey: string): Promise<void> {
    const external = await vscode.env.asExternalUri(vscode.Uri.parse(`${endpointRoot(endpointUrl)}/usage`));
    const page = external.toString(true);
    const origin = `${external.scheme}://${external.authority}`;
    let panel = UsagePanel.current;
    if (!panel) {
      // Scripts run in the framed page (its own CSP governs them); the webview's own
      // document has none (its CSP allows none).
      panel = vscode.window.createWebviewPanel('maestroBridge.usage', 'Maestro Bridge Usage', vscode.ViewColumn.Active, {
        enableScripts: true,
        retainContextWhenHidden: false,
      });
      UsagePanel.current = panel;
      panel.onDidDispose(() => {
        UsagePanel.current = undefined;
      });
    } else {
      panel.reveal();
    }
    panel.webview.html = framePage(page + keyFragment(apiKey), origin);
  }
}
