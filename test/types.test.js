// types/index.d.ts against the API as TypeScript users call it: an example that must compile and
// one with mistakes that must not. tsc resolves 'loadtest' through package.json's "exports"
// (a package may import itself by name), so the wiring is checked along with the declarations.

// tsc and deno check the declarations whichever runtime runs the test: under node (scope.js).
import { oneRuntimeTest as test } from './scope.js';
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

test('every field of a real result and of its JSON document is declared', async () => {
  const { loadTest, startServer } = await import('../src/index.js');
  const { readFileSync } = await import('node:fs');
  const dts = readFileSync(new URL('../types/index.d.ts', import.meta.url), 'utf8');
  const body = (name) => dts.match(new RegExp(`export interface ${name} [^{]*\\{([^}]*)\\}`))[1];
  const declared = (name) => new Set([...body(name).matchAll(/^ {2}(\w+)\??[:(]/gm)].map((m) => m[1]));
  const server = await startServer({ port: 0, host: '127.0.0.1', quiet: true });
  try {
    const result = await loadTest({ url: `http://127.0.0.1:${server.port}/`, maxRequests: 5, concurrency: 2 });
    const doc = JSON.parse(JSON.stringify(result));
    const fields = new Set([...declared('ResultData'), ...declared('LoadTestJson'), ...declared('LoadTestResult')]);
    const missing = Object.keys(doc).filter((k) => !fields.has(k));
    assert.deepEqual(missing, [], `result fields missing from types/index.d.ts: ${missing.join(', ')}`);
    assert.ok(fields.has('show') && fields.has('toJSON'));
    assert.deepEqual(Object.keys(doc.series[0] || {}).filter((k) => !declared('SeriesEntry').has(k)), []);
    assert.deepEqual(Object.keys(doc.latencyHistogram).filter((k) => !declared('LatencyHistogram').has(k)), []);
  } finally {
    await server.close();
  }
});
