import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fallbackPythons, venvPython } from '../pythonCandidates';

describe('venvPython', () => {
  it('is Scripts\\python.exe on Windows', () => {
    assert.equal(venvPython('C:\\Users\\ana\\storage\\venv', 'win32'), 'C:\\Users\\ana\\storage\\venv\\Scripts\\python.exe');
  });

  it('is bin/python on macOS and Linux', () => {
    assert.equal(venvPython('/Users/ana/storage/venv', 'darwin'), '/Users/ana/storage/venv/bin/python');
    assert.equal(venvPython('/home/ana/storage/venv', 'linux'), '/home/ana/storage/venv/bin/python');
  });
});

describe('fallbackPythons', () => {
  it('tries the py launcher first on Windows, never a Unix path', () => {
    const windows = fallbackPythons('win32');
    assert.equal(windows[0], 'py');
    assert.ok(windows.includes('python'));
    assert.ok(windows.every((command) => !command.includes('/')));
  });

  it("tries PATH's python3 first on macOS, then Homebrew's and python.org's", () => {
    assert.deepEqual(fallbackPythons('darwin'), ['python3', '/opt/homebrew/bin/python3', '/usr/local/bin/python3']);
  });

  it('tries python3 on Linux', () => {
    assert.deepEqual(fallbackPythons('linux'), ['python3']);
  });
});
