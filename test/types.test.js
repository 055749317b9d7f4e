// types/index.d.ts against the API as TypeScript users call it: an example that must compile and
// one with mistakes that must not. tsc resolves 'loadtest' through package.json's "exports"
// (a package may import itself by name), so the wiring is checked along with the declarations.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { runCommand } from './servers.js';

const TSC = fileURLToPath(new URL('../node_modules/.bin/tsc', import.meta.url));
// No tsconfig.json: files named on the command line are compiled with these flags alone.
const FLAGS = ['--noEmit', '--strict', '--module', 'nodenext', '--target', 'esnext'];

test('the typed example compiles against types/index.d.ts', async () => {
  const { code, stdout, stderr } = await runCommand(TSC, [...FLAGS, 'test/types-example.ts']);
  assert.equal(code, 0, stdout + stderr);
});

test('wrong option types and JSON-only fields on the result are type errors', async () => {
  const { code, stdout } = await runCommand(TSC, [...FLAGS, 'test/types-wrong.ts']);
  assert.notEqual(code, 0);
  assert.match(stdout, /types-wrong\.ts\(\d+,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/);
  assert.match(stdout, /types-wrong\.ts\(\d+,\d+\): error TS2339: Property 'latencyHistogram' does not exist on type 'LoadTestResult'/);
});
