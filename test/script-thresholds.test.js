// A script's thresholds watched during its run, as k6's metrics engine watches them: a metric
// with no sample yet is left out (found on steve-nickerson/k6-play's thresholds/threshold-abort.js
// pattern with a check's rate: before the first check, the rate is no rate at all), and a
// threshold with abortOnFail that fails stops the run with k6's one line, naming every metric
// whose thresholds fail, sorted; the thresholds crossed at the end are named the same way.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawServer, spawnScript, ok } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

async function runScript(source) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-thresholds-'));
  let requests = 0;
  const server = await rawServer(({ socket }) => {
    requests++;
    socket.write(ok());
  });
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, source);
    const r = await spawnScript(CLI, ['run', '-q', '-e', `BASE=${server.url.replace(/\/$/, '')}`, path], { timeoutMs: 60000 });
    return { ...r, requests };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('an abortOnFail threshold on a metric with no sample yet does not stop the run: its first check comes after the first evaluations', async () => {
  // The first check comes 2.5 s in, after the evaluation at 2 s, which once found the checks'
  // rate 0 (no check yet) below 0.9 and stopped the run with no request made.
  const r = await runScript(`import http from 'k6/http';
import { check, sleep } from 'k6';
export const options = {
  iterations: 1,
  thresholds: { checks: [{ threshold: 'rate>0.9', abortOnFail: true }], 'http_reqs{name:later}': [{ threshold: 'count>0', abortOnFail: true }] },
};
export default function () {
  sleep(2.5);
  check(http.get(__ENV.BASE, { tags: { name: 'later' } }), { 'is 200': (r) => r.status === 200 });
}
`);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.requests, 1);
  assert.match(r.stdout, /✓ 'rate>0\.9' rate=100\.00%/);
  assert.equal(r.stderr, '');
});

test("an abortOnFail threshold that fails stops the run with k6's line, naming every failing metric sorted, and nothing more of the thresholds; exit 99", async () => {
  const r = await runScript(`import http from 'k6/http';
import { check, sleep } from 'k6';
export const options = {
  vus: 1,
  duration: '60s',
  thresholds: {
    'http_reqs{name:x}': [{ threshold: 'count<1', abortOnFail: true }],
    iterations: ['count<0'],
    checks: ['rate==1'],
    http_req_duration: ['max<60000'],
  },
};
export default function () {
  check(http.get(__ENV.BASE, { tags: { name: 'x' } }), { never: () => false });
  sleep(0.1);
}
`);
  assert.equal(r.code, 99, r.stderr);
  assert.equal(r.stderr, "loadtest run: thresholds on metrics 'checks, http_reqs{name:x}, iterations' were crossed; at least one has abortOnFail enabled, stopping test prematurely\n");
  assert.ok(r.requests >= 1);
});

test("thresholds crossed at the end are named as k6 names them: sorted, in one pair of quotes", async () => {
  const r = await runScript(`import http from 'k6/http';
export const options = { iterations: 2, thresholds: { http_reqs: ['count>5'], 'http_reqs{status:200}': ['count<1'], iterations: ['count==2'], checks: [] } };
export default function () { http.get(__ENV.BASE); }
`);
  assert.equal(r.code, 99, r.stderr);
  assert.equal(r.stderr, "loadtest run: thresholds on metrics 'http_reqs, http_reqs{status:200}' have been crossed\n");
});

test("a Rate's thresholds pass while it has no sample, as k6's (it has no rate to compare); a Counter's do not", async () => {
  const r = await runScript(`import http from 'k6/http';
export const options = { iterations: 1, thresholds: { checks: ['rate>0.9'], 'http_reqs{name:none}': ['count>0'] } };
export default function () { http.get(__ENV.BASE); }
`);
  assert.equal(r.code, 99, r.stderr);
  assert.match(r.stdout, /✓ 'rate>0\.9' rate=0\.00%/);
  assert.match(r.stdout, /✗ 'count>0' count=0/);
  assert.match(r.stderr, /thresholds on metrics 'http_reqs\{name:none\}' have been crossed/);
});

test('abortOnFail is evaluated every 2 s, as k6\'s engine: a rate failing from its first sample stops the run no sooner', async () => {
  const r = await runScript(`import { Rate } from 'k6/metrics';
import { sleep } from 'k6';
const failing = new Rate('failing');
export const options = { vus: 1, duration: '60s', thresholds: { failing: [{ threshold: 'rate>0.5', abortOnFail: true }] } };
export default function () { failing.add(0); console.log(Date.now()); sleep(0.1); }
`);
  assert.equal(r.code, 99, r.stderr);
  const times = [...r.stderr.matchAll(/msg=(\d+) source=console/g)].map((m) => Number(m[1]));
  assert.ok(times.length > 1, r.stderr);
  // Evaluated each second, it stopped some 0.9 s after the first sample.
  assert.ok(times.at(-1) - times[0] >= 1500, `${times.at(-1) - times[0]} ms`);
});

test("a Trend's threshold on count is refused before the run, as k6 v2.2 refuses it (exit 104); on a Counter it is taken", async () => {
  for (const key of ['http_req_duration', 'http_req_waiting{status:404}']) {
    const r = await runScript(`import http from 'k6/http';
export const options = { iterations: 1, thresholds: { '${key}': ['count>=0'], http_reqs: ['count>=0'] } };
export default function () { http.get(__ENV.BASE); }
`);
    assert.equal(r.code, 104, r.stderr);
    assert.equal(r.requests, 0);
    assert.match(r.stderr, /'count' does not apply to a trend \(use avg, min, max, med, p\)/);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
});
