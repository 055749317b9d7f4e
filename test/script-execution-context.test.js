// k6/execution and __ITER where there is no iteration, as k6 v1.3.0: the scenario is an
// iteration's, the VU and the test's options are not in the init code, the instance's figures
// are in setup() and the iterations only; each says so with k6's GoError, and __ITER is a
// ReferenceError outside an iteration. Found with panutat-p/k6-snippets 06_context (its setup()
// logged scenario.startTime, k6's GoError) beside k6.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnScript } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

const SCRIPT = `import exec from 'k6/execution';
const t = (f) => { try { const v = f(); return v === undefined ? 'undefined' : JSON.stringify(v); } catch (e) { return String(e).replace(/ (information|options) .* not supported$/, ' $1'); } };
function probe(where) {
  const parts = {
    scenario: () => exec.scenario.name, inTest: () => exec.scenario.iterationInTest, completed: () => exec.instance.iterationsCompleted,
    vu: () => exec.vu.idInTest, inScenario: () => exec.vu.iterationInScenario, tags: () => exec.vu.tags,
    options: () => Object.keys(exec.test.options).length > 0, iter: () => __ITER, vuNumber: () => __VU,
  };
  console.log(where + ': ' + Object.entries(parts).map(([k, f]) => k + '=' + t(f)).join(' '));
}
if (__VU === 1) probe('init1');
export function setup() { probe('setup'); }
export default function () { probe('default'); }
export function teardown() { probe('teardown'); }
`;

test("k6/execution and __ITER outside an iteration: k6's GoErrors and ReferenceError, 0 for setup's iteration numbers", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-exec-'));
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, SCRIPT);
    const r = await spawnScript(CLI, ['run', '-q', '--iterations', '1', path], { timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stderr);
    const lines = [...r.stderr.matchAll(/msg="((?:[^"\\]|\\.)*)" source=console/g)].map((m) => JSON.parse(`"${m[1]}"`));
    const scenario = 'scenario=GoError: getting scenario information inTest=GoError: getting scenario information';
    // What k6 v1.3.0 printed for the same script (its tags in a Go map's order, this one of them).
    assert.deepEqual(lines, [
      `init1: ${scenario} completed=GoError: getting instance information vu=GoError: getting VU information inScenario=GoError: getting VU information tags=GoError: getting VU information options=GoError: getting test options iter=ReferenceError: __ITER is not defined vuNumber=1`,
      `setup: ${scenario} completed=0 vu=0 inScenario=0 tags={"group":"::setup"} options=true iter=ReferenceError: __ITER is not defined vuNumber=0`,
      'default: scenario="default" inTest=0 completed=0 vu=1 inScenario=0 tags={"scenario":"default","group":""} options=true iter=0 vuNumber=1',
      `teardown: ${scenario} completed=GoError: getting instance information vu=0 inScenario=0 tags={"group":"::teardown"} options=true iter=ReferenceError: __ITER is not defined vuNumber=0`,
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('exec.scenario.progress counts the iterations done, not the one running, as k6 v2.2.0 (NarasimhaYanamala/k6-personal\'s execution-context-variables.js)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-progress-'));
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, `import exec from 'k6/execution';
import { sleep } from 'k6';
export const options = { scenarios: {
  a: { executor: 'per-vu-iterations', vus: 1, iterations: 4 },
  b: { executor: 'shared-iterations', vus: 1, iterations: 4, startTime: '0.5s' },
} };
export default function () { const before = exec.scenario.progress; sleep(0.01); console.log(exec.scenario.name + ' ' + before + ' ' + exec.scenario.progress); }
`);
    const r = await spawnScript(CLI, ['run', '-q', path], { timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stderr);
    const logged = [...r.stderr.matchAll(/msg="(.*)" source=console/g)].map((m) => m[1]);
    // k6 v2.2.0's lines: the same before and after the iteration's wait.
    assert.deepEqual(logged, ['a 0 0', 'a 0.25 0.25', 'a 0.5 0.5', 'a 0.75 0.75', 'b 0 0', 'b 0.25 0.25', 'b 0.5 0.5', 'b 0.75 0.75']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
