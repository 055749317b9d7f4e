#!/usr/bin/env node
// loadtest 8's own tests, unchanged, against this package (`npm run test:peer`): its five API
// test files are copied from its npm package (devDependency `loadtest8`) into a temporary folder
// beside one-line shims (index.js, lib/loadtest.js, lib/testserver.js, bin/loadtest.js) that
// re-export ours, and run by its own `testing` package on node, bun and deno, each run bounded.
//
//   node test/peer-loadtest8.js [node|bun|deno ...]

import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, copyFileSync, cpSync, writeFileSync, symlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PEER = join(ROOT, 'node_modules', 'loadtest8');
const FILES = ['testserver.js', 'integration.js', 'loadtest.js', 'request-generator.js', 'body-generator.js'];
const TIMEOUT_MS = 60000;
const BIN = join(ROOT, 'node_modules', '.bin');
// The five files' tests in loadtest 8.2.1: fewer reported means a run stopped early.
const EXPECTED = 20;

function prepare() {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest8-peer-'));
  mkdirSync(join(dir, 'lib'));
  mkdirSync(join(dir, 'bin'));
  mkdirSync(join(dir, 'test'));
  const api = JSON.stringify(join(ROOT, 'src', 'index.js'));
  writeFileSync(join(dir, 'index.js'), `export { loadTest, startServer } from ${api};\n`);
  writeFileSync(join(dir, 'lib', 'loadtest.js'), `export { loadTest } from ${api};\n`);
  writeFileSync(join(dir, 'lib', 'testserver.js'), `export { startServer } from ${api};\n`);
  writeFileSync(join(dir, 'bin', 'loadtest.js'), `import ${JSON.stringify(join(ROOT, 'src', 'cli.js'))};\n`);
  for (const file of FILES) copyFileSync(join(PEER, 'test', file), join(dir, 'test', file));
  // What the tests read: their fixtures, and the samples they name by path.
  cpSync(join(PEER, 'test', 'fixtures'), join(dir, 'test', 'fixtures'), { recursive: true });
  cpSync(join(PEER, 'sample'), join(dir, 'sample'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'loadtest', type: 'module', dependencies: { testing: '*' } }));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  // One runner for the five files, as loadtest 8's test/all.js runs them.
  const imports = FILES.map((f, i) => `import { test as t${i} } from './test/${f}';`).join('\n');
  writeFileSync(join(dir, 'all.js'), `import testing from 'testing';\n${imports}\ntesting.run([${FILES.map((_, i) => `t${i}`).join(', ')}], 4200);\n`);
  return dir;
}

function run(runtime, dir) {
  const command = runtime === 'node' ? [process.execPath, ['all.js']] : runtime === 'bun' ? [join(BIN, 'bun'), ['all.js']] : [join(BIN, 'deno'), ['run', '-A', 'all.js']];
  return new Promise((resolve) => {
    const child = spawn(command[0], command[1], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (t) => (out += t));
    child.stderr.on('data', (t) => (out += t));
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, out });
    });
  });
}

// Each test's outcome, from the `testing` package's lines ("✓ name: ..." / "✕ name: ..."):
// true (passed) or false (failed). Every test of the five files must pass.
function outcomes(out) {
  const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
  const results = new Map();
  for (const m of plain.matchAll(/^\s*([✓✕]) (\w+): ?(.*)$/gm)) {
    if (m[2] === 'test' || m[2] === 'main') continue;
    const outcome = m[1] === '✓';
    if (!results.has(m[2]) || results.get(m[2]) === true) results.set(m[2], outcome);
  }
  return results;
}

const runtimes = process.argv.length > 2 ? process.argv.slice(2) : ['node', 'bun', 'deno'];
let failed = 0;
for (const runtime of runtimes) {
  const dir = prepare();
  const r = await run(runtime, dir);
  rmSync(dir, { recursive: true, force: true });
  const results = outcomes(r.out);
  const failures = [...results].filter(([, ok]) => !ok).map(([name]) => name);
  const passed = results.size - failures.length;
  const missing = Math.max(0, EXPECTED - results.size);
  if (process.env.VERBOSE || r.signal || missing) console.log(r.out);
  console.log(`loadtest 8's tests on ${runtime}: ${passed} passed, ${failures.length} failed${failures.length ? ` (${failures.join(', ')})` : ''}${missing ? `, ${missing} never reported` : ''}${r.signal ? `; killed after ${TIMEOUT_MS / 1000} s` : ''}`);
  if (failures.length || r.signal || missing) failed++;
}
process.exit(failed ? 1 : 0);
