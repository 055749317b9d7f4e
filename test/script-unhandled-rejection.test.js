// A promise of the script rejected with nothing to catch it, as k6 v1.3.0 takes it: logged
// ("Uncaught (in promise) ..."), the iteration counted, the run going on to its summary and
// exit 0. node and deno ended the process there with their stack trace. Found with a public
// script whose setup() maps over async callbacks it never awaits.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnScript } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

test("an unhandled rejection is logged, k6's way, and the run goes on: every iteration, the summary, exit 0", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-rejection-'));
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, `export const options = { iterations: 2 };
export default async function () {
  console.log('iter', __ITER);
  Promise.reject(new Error('nobody catches ' + __ITER));
}
`);
    const r = await spawnScript(CLI, ['run', '-q', path], { timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /iterations\.+: 2 /);
    assert.match(r.stderr, /^loadtest run: Uncaught \(in promise\) nobody catches 0 at test\.js:4:\d+$/m);
    assert.match(r.stderr, /^loadtest run: Uncaught \(in promise\) nobody catches 1 at test\.js:4:\d+$/m);
    assert.doesNotMatch(r.stderr, /^\s+at /m, 'no stack trace');
    assert.deepEqual(readdirSync(dir).filter((f) => f.includes('.loadtest-')), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
