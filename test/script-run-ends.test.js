// A scripted run in a process of the caller's (runScript, as the API runs it): once it resolves,
// nothing of it is left to keep the process up, whatever its executors. The CLI exits at the
// end, so a timer left behind would be seen only here: shared-iterations left its maxDuration's
// (10 minutes by default) running.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScript } from './servers.js';

const PROBE = fileURLToPath(new URL('./script-run-ends-probe.js', import.meta.url));

const SCRIPT = `import { sleep } from 'k6';
export const options = { scenarios: {
  shared: { executor: 'shared-iterations', vus: 2, iterations: 4 },
  perVu: { executor: 'per-vu-iterations', vus: 2, iterations: 2 },
  constant: { executor: 'constant-vus', vus: 1, duration: '1s' },
  ramping: { executor: 'ramping-vus', stages: [{ duration: '300ms', target: 2 }] },
  arrivals: { executor: 'constant-arrival-rate', rate: 10, timeUnit: '1s', duration: '1s', preAllocatedVUs: 1 },
  rampingArrivals: { executor: 'ramping-arrival-rate', startRate: 5, timeUnit: '1s', stages: [{ duration: '300ms', target: 10 }], preAllocatedVUs: 1 },
} };
export default function () { sleep(0.01); }
`;

test("a scripted run in the caller's process leaves nothing running once it resolves, whatever its executors", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-ends-'));
  try {
    const script = join(dir, 'script.js');
    writeFileSync(script, SCRIPT);
    const r = await startScript(PROBE, [script], { timeoutMs: 60000 }).done;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'done');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
