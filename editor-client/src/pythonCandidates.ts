// Where Python is looked for on each platform (free of the vscode module: unit-tested).

import * as path from 'node:path';

/** The interpreter of a virtual environment: `Scripts\python.exe` on Windows, `bin/python` elsewhere. */
export function venvPython(dir: string, platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? path.win32.join(dir, 'Scripts', 'python.exe') : path.posix.join(dir, 'bin', 'python');
}

/**
 * Commands tried after the Python extension's interpreter and the private environment.
 * Windows: the `py` launcher first (python.org's installer puts it on PATH by default, `python`
 * only when asked to; without any Python, `python` and `python3` are the Microsoft Store's
 * stubs, which fail the version check). macOS: `python3` from PATH (VS Code takes it from the
 * login shell), then Homebrew's (Apple silicon, Intel) and python.org's, for a VS Code started
 * without that PATH. Linux: `python3`.
 */
export function fallbackPythons(platform: NodeJS.Platform = process.platform): string[] {
  if (platform === 'win32') return ['py', 'python', 'python3'];
  if (platform === 'darwin') return ['python3', '/opt/homebrew/bin/python3', '/usr/local/bin/python3'];
  return ['python3'];
}
