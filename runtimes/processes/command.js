// Running another program (docker, kubectl, tar, ldd) and reading what it says: node's
// child_process, which node, Bun and Deno all have.

import { spawn } from 'node:child_process';
import { Buffer } from 'node:buffer';

/**
 * Runs `file` with `args`, `input` on its stdin. Resolves to { code, stdout, stderr }; a program
 * that is not there resolves to { code: null, missing: true }. `onStart(stop)`: for Ctrl-C.
 */
export function runCommand(file, args, { input = null, onStart = null } = {}) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (err) {
      resolve({ code: null, missing: err.code === 'ENOENT', stdout: '', stderr: String(err.message) });
      return;
    }
    const out = [];
    const err = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => err.push(b));
    child.on('error', (e) => resolve({ code: null, missing: e.code === 'ENOENT', stdout: '', stderr: String(e.message) }));
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
    child.stdin.on('error', () => {});
    child.stdin.end(input === null ? undefined : input);
    if (onStart) onStart(() => child.kill());
  });
}
