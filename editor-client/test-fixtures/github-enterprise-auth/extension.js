// Test double: a `github-enterprise` authentication provider, signed in from the start with
// one fixed session, standing in for VS Code's built-in GitHub authentication (which the test
// host disables). GitHub Copilot Chat set to `github.copilot.advanced.authProvider:
// "github-enterprise"` asks it for a session as it asks GitHub in production, and exchanges
// the session's access token for a Copilot token at `github-enterprise.uri` (the fake cloud,
// tests/fake_capi/github_routes.py).
//
// The session: access token $MAESTRO_GHE_ACCESS_TOKEN (else a fixed one), account
// maestro-test, and the scopes Copilot asks for (read:user, user:email, repo, workflow).
// Every call of the provider is appended as one JSON line to $MAESTRO_E2E_RECORD (event
// "auth"), with the window's name.
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');

const PROVIDER = 'github-enterprise';
const SCOPES = ['read:user', 'user:email', 'repo', 'workflow'];
const ACCOUNT = { id: '4242', label: 'maestro-test' };

function record(entry) {
  const file = process.env.MAESTRO_E2E_RECORD;
  if (!file) return;
  const folder = vscode.workspace.workspaceFolders?.[0];
  const window = folder ? path.basename(folder.uri.fsPath) : '';
  fs.appendFileSync(file, JSON.stringify({ event: 'auth', window, ...entry }) + '\n');
}

function activate(context) {
  const session = {
    id: 'maestro-test-session',
    accessToken: process.env.MAESTRO_GHE_ACCESS_TOKEN || 'ghu_maestro_test_access_token',
    account: ACCOUNT,
    scopes: SCOPES,
  };
  const changed = new vscode.EventEmitter();
  const covers = (scopes) => (scopes || []).every((s) => SCOPES.includes(s));
  const provider = {
    onDidChangeSessions: changed.event,
    async getSessions(scopes) {
      const found = covers(scopes) ? [session] : [];
      record({ call: 'getSessions', scopes: scopes || [], sessions: found.length });
      return found;
    },
    async createSession(scopes) {
      record({ call: 'createSession', scopes });
      if (!covers(scopes)) throw new Error(`the test session has no scopes ${scopes}`);
      return session;
    },
    async removeSession(id) {
      record({ call: 'removeSession', id });
    },
  };
  context.subscriptions.push(
    changed,
    vscode.authentication.registerAuthenticationProvider(PROVIDER, 'GitHub Enterprise Server (test)', provider),
  );
  record({ call: 'registered' });
}

function deactivate() {}

module.exports = { activate, deactivate };
