// Runs the test files under deno, each in its own `deno test` process, DENO_JOBS (4) at a time,
// and prints each file's output whole when it ends, then the files that failed.
//
// Not `deno test --parallel`, which runs the files as workers of one process, sharing its file
// descriptors: deno's node:net closes a Unix socket's descriptor twice (deno 2.9.5, under strace:
// close(fd) = 0, then close(fd) = -1 EBADF), and between the two another file's worker may have
// opened a socket on that number: the second close then shuts that socket (a listener refusing
// connections, a proxy's tunnel dropped, a test waiting forever). Each file alone, a descriptor
// can only be its own file's.
//
//   node test/deno-each.js [FILE...]     (default: test/*.test.js; the environment is passed on)

import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const ROOT = new URL('..', import.meta.url).pathname;
const jobs = Number(process.env.DENO_JOBS) || 4;
// A file that has not ended by then hangs: its output so far, and it counts as failed.
const FILE_TIMEOUT_MS = 15 * 60 * 1000;
const deno = process.env.DENO || 'deno';

const files = process.argv.length > 2
  ? process.argv.slice(2)
  : readdirSync(join(ROOT, 'test')).filter((f) => f.endsWith('.test.js')).sort().map((f) => `test/${f}`);

function runFile(file) {
  return new Promise((resolve) => {
    const child = spawn(deno, ['test', '-A', '--no-check', file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }, FILE_TIMEOUT_MS);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ file, code: 1, output: `${output}\n${deno}: ${err.message}\n` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (hung) output += `\n${file}: still running after ${FILE_TIMEOUT_MS / 60000} min, killed\n`;
      resolve({ file, code: hung ? 1 : code, output });
    });
  });
}

const queue = [...files];
const failed = [];
let passed = 0;
let failedTests = 0;
async function worker() {
  while (queue.length > 0) {
    const r = await runFile(queue.shift());
    process.stdout.write(r.output);
    // deno's last line: "ok | 12 passed | 0 failed (3s)" or "FAILED | 11 passed | 1 failed (3s)".
    const plain = r.output.replace(/\x1b\[[0-9;]*m/g, '');
    const m = /(\d+) passed \| (\d+) failed/.exec(plain);
    if (m) {
      passed += Number(m[1]);
      failedTests += Number(m[2]);
    }
    if (r.code !== 0) failed.push(r.file);
  }
}
await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, worker));
console.log(`\ndeno, each file in its own process: ${files.length} files, ${passed} tests passed, ${failedTests} failed`);
if (failed.length > 0) {
  console.log(`failed: ${failed.join(' ')}`);
  process.exit(1);
}
