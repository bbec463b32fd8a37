// Builds maestro-bridge's wheel from this repository into dist/wheels/ for the VSIX. The
// extension's private install installs that wheel, so no package index needs maestro-bridge
// (its dependencies still come from the index). Run by `npm run package`; $PYTHON picks the
// interpreter (default python3), which needs pip.

'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const repo = path.resolve(__dirname, '..', '..');
const out = path.resolve(__dirname, '..', 'dist', 'wheels');
const python = process.env.PYTHON || (process.platform === 'win32' ? 'python' : 'python3');
const PACKAGES = ['bridge', 'lsp', 'headless_editor'];

fs.rmSync(out, { recursive: true, force: true });
// setuptools reuses build/lib: a module deleted since the last build would still ship.
fs.rmSync(path.join(repo, 'build'), { recursive: true, force: true });
execFileSync(python, ['-m', 'pip', 'wheel', '--quiet', '--disable-pip-version-check', '--no-deps', repo, '-w', out], {
  stdio: ['ignore', 'inherit', 'inherit'],
});
const wheels = fs.readdirSync(out).filter((f) => f.endsWith('.whl'));
if (wheels.length !== 1) throw new Error(`expected one wheel in ${out}, found: ${wheels.join(', ') || 'none'}`);
// The language server needs all three packages (pyproject.toml's package discovery lists them).
const check = [
  'import sys, zipfile',
  'tops = {n.split("/")[0] for n in zipfile.ZipFile(sys.argv[1]).namelist()}',
  'missing = sorted(set(sys.argv[2:]) - tops)',
  'sys.exit("wheel lacks packages: " + ", ".join(missing) if missing else 0)',
].join('\n');
execFileSync(python, ['-c', check, path.join(out, wheels[0]), ...PACKAGES], { stdio: 'inherit' });
console.log(`bundled ${path.join('dist', 'wheels', wheels[0])}`);
