// "Show Status": the bridge's state, and the report of `maestro-bridge doctor` (the same checks
// as on the command line: the bridge, its key, the editor's models, MCP, usage, budgets, each
// agent's configuration), its lines in the log and its first problem in the notification.

import * as vscode from 'vscode';
import { doctorArgs, doctorLines, doctorSummary, parseDoctor, type DoctorReport } from './agentSetup';
import { configureEnv } from './configureSetup';
import type { Controller } from './controller';
import { describeState, endpointUrlOf } from './convert';
import type { Logger } from './logging';
import { neutralCwd } from './python';
import { execFile } from 'node:child_process';

const DOCTOR_TIMEOUT_MS = 60_000;

/** `python -m bridge.cli doctor --json`: its report (it exits 1 when a check failed, still with the report). */
function runDoctor(python: string, url: string, apiKey: string, cwd: string): Promise<DoctorReport> {
  return new Promise((resolve, reject) => {
    execFile(python, doctorArgs(url), { cwd, env: configureEnv(process.env, apiKey), timeout: DOCTOR_TIMEOUT_MS }, (err, stdout, stderr) => {
      try {
        resolve(parseDoctor(String(stdout)));
      } catch (parseError) {
        reject(err ? new Error(String(stderr).trim() || err.message) : parseError);
      }
    });
  });
}

export async function showStatus(controller: Controller, log: Logger, storage: vscode.Uri): Promise<void> {
  const where = describeState(controller.state);
  const python = controller.python ? ` Python: ${controller.python} (${controller.version ?? '?'}).` : '';
  const url = endpointUrlOf(controller.state);
  let summary: string;
  if (url && controller.python) {
    try {
      const report = await runDoctor(controller.python, url, controller.settings.apiKey, neutralCwd(storage));
      log.info('maestro-bridge doctor:');
      for (const line of doctorLines(report)) log.info(line);
      summary = ` Doctor: ${doctorSummary(report)}`;
    } catch (err) {
      summary = ` Doctor could not run: ${err instanceof Error ? err.message : String(err)}`;
      log.warn(summary.trim());
    }
  } else {
    const models = await vscode.lm.selectChatModels({});
    summary = ` Chat models: ${models.map((m) => m.id).join(', ') || 'none'}.`;
  }
  const pick = await vscode.window.showInformationMessage(
    `Maestro Bridge is ${where}.${python}${summary} ${controller.keys.describe()}`, 'Show Report', 'Copy URL', 'Restart',
  );
  if (pick === 'Show Report') log.channel.show();
  if (pick === 'Copy URL') await vscode.commands.executeCommand('maestroBridge.copyEndpointUrl');
  if (pick === 'Restart') await controller.restart();
}
