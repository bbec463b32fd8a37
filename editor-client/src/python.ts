// Which Python runs the language server, whether it has maestro-bridge, and installing it
// into a private virtual environment in the extension's storage when it does not.

import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from './logging';
import { fallbackPythons, venvPython } from './pythonCandidates';

const CHECK_TIMEOUT_MS = 30_000;

/** The part of the Python extension's API we use (`@vscode/python-extension` documents it). */
interface PythonExtensionApi {
  environments: {
    getActiveEnvironmentPath(): { path: string };
    resolveEnvironment(env: { path: string }): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
  };
}

/** The interpreter the Python extension selected, when that extension is installed. */
async function pythonExtensionInterpreter(log: Logger): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>('ms-python.python');
  if (!ext) return undefined;
  try {
    const api = ext.isActive ? ext.exports : await ext.activate();
    const active = api.environments.getActiveEnvironmentPath();
    const resolved = await api.environments.resolveEnvironment(active);
    return resolved?.executable.uri?.fsPath ?? active.path;
  } catch (err) {
    log.warn(`Could not ask the Python extension for its interpreter: ${String(err)}`);
    return undefined;
  }
}

export function privateVenvDir(storage: vscode.Uri): string {
  return path.join(storage.fsPath, 'venv');
}


/**
 * The folder Python runs in: our own storage. `python -m` puts the working folder first on
 * sys.path, so a workspace (or any folder) with a `bridge/` of its own must not be it.
 */
export function neutralCwd(storage: vscode.Uri): string {
  fs.mkdirSync(storage.fsPath, { recursive: true });
  return storage.fsPath;
}

/** `maestro-bridge X.Y.Z` when `python` can run the bridge, else undefined. */
export function bridgeVersion(python: string, cwd: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(python, ['-m', 'bridge.cli', '--version'], { timeout: CHECK_TIMEOUT_MS, cwd }, (err, stdout) => {
      const line = String(stdout).trim();
      resolve(!err && line.startsWith('maestro-bridge ') ? line : undefined);
    });
  });
}

export type Interpreter =
  | { found: true; python: string; version: string }
  | { found: false; python: string /* the one we would have used: the base for a private venv */ };

/**
 * The first that has maestro-bridge of: the setting when given, else the Python extension's
 * interpreter; then the private environment (once installed there, it is used); then the
 * platform's usual commands (pythonCandidates.ts: `py`, `python`, `python3` on Windows).
 */
export async function findInterpreter(setting: string, storage: vscode.Uri, log: Logger): Promise<Interpreter> {
  const cwd = neutralCwd(storage);
  const candidates = setting
    ? [setting, venvPython(privateVenvDir(storage))]
    : [await pythonExtensionInterpreter(log), venvPython(privateVenvDir(storage)), ...fallbackPythons()];
  const tried: string[] = [];
  for (const python of candidates) {
    if (!python || tried.includes(python)) continue;
    tried.push(python);
    const version = await bridgeVersion(python, cwd);
    log.debug(`${python}: ${version ?? 'no maestro-bridge'}`);
    if (version) return { found: true, python, version };
  }
  const base = setting || tried.find((p) => !p.startsWith(storage.fsPath)) || (fallbackPythons()[0] ?? 'python3');
  return { found: false, python: base };
}

function run(command: string, args: string[], cwd: string, log: Logger): Promise<void> {
  return new Promise((resolve, reject) => {
    log.info(`$ ${command} ${args.join(' ')}`);
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const forward = (chunk: Buffer): void => {
      for (const line of chunk.toString().split(/\r?\n/)) if (line.trim()) log.info(line);
    };
    child.stdout.on('data', forward);
    child.stderr.on('data', forward);
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(command)} exited with code ${String(code)}`)),
    );
  });
}

/** The maestro-bridge wheel packaged into the VSIX (scripts/bundle-wheel.js), if there is one. */
export function bundledWheel(extensionDir: string): string | undefined {
  const dir = path.join(extensionDir, 'dist', 'wheels');
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return undefined; // a build without the wheel (e.g. run from source)
  }
  const wheel = names.filter((n) => n.endsWith('.whl')).sort().pop();
  return wheel === undefined ? undefined : path.join(dir, wheel);
}

/** Creates the private venv from `basePython` and pip-installs `spec`; its interpreter. */
export async function installPrivately(
  basePython: string, spec: string, storage: vscode.Uri, log: Logger,
): Promise<string> {
  const dir = privateVenvDir(storage);
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Maestro Bridge', cancellable: false },
    async (progress) => {
      const cwd = neutralCwd(storage);
      if (!fs.existsSync(venvPython(dir))) {
        progress.report({ message: 'Creating a private Python environment...' });
        await run(basePython, ['-m', 'venv', dir], cwd, log);
      }
      progress.report({ message: `Installing ${spec}...` });
      await run(venvPython(dir), ['-m', 'pip', 'install', '--disable-pip-version-check', '--upgrade', spec], cwd, log);
      const version = await bridgeVersion(venvPython(dir), cwd);
      if (!version) throw new Error(`${spec} installed, but \`python -m bridge.cli\` does not run`);
      log.info(`Installed ${version} into ${dir}`);
      return venvPython(dir);
    },
  );
}
