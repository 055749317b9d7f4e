// Metrics as k6 v1.3.0 gives them, where public scripts showed ours differing: a metric made
// with a truthy second argument holds times whatever its type; --out json's Metric line lists a
// threshold that aborts in its long form; a request's `blocked` ends when it has its
// connection (Go's GotConn), so a new connection's connecting counts in it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawServer, spawnScript, ok } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

async function runScript(source, args = []) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-metrics-'));
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const path = join(dir, 'test.js');
    const out = join(dir, 'out.json');
    writeFileSync(path, source);
    const r = await spawnScript(CLI, ['run', '-q', '--out', `json=${out}`, '-e', `BASE=${server.url.replace(/\/$/, '')}`, ...args, path], { timeoutMs: 60000 });
    const metrics = readFileSync(out, 'utf8').split('\n').filter((l) => l.includes('"type":"Metric"')).map((l) => JSON.parse(l).data);
    return { ...r, metrics };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('isTime on a Counter, a Gauge and a Rate too, and any truthy second argument: their values shown as times, "contains":"time"', async () => {
  const r = await runScript(`import { Counter, Gauge, Rate, Trend } from 'k6/metrics';
const c = new Counter('c_time', true), g = new Gauge('g_time', 'rows pending'), r = new Rate('r_time', 1), t = new Trend('t_plain');
export const options = { iterations: 1, thresholds: { c_time: ['count<5000'] } };
export default function () { c.add(1500); g.add(2500); r.add(1); t.add(2); }
`);
  assert.equal(r.code, 0, r.stderr);
  const contains = Object.fromEntries(r.metrics.filter((m) => /_(time|plain)$/.test(m.name)).map((m) => [m.name, m.contains]));
  assert.deepEqual(contains, { c_time: 'time', g_time: 'time', r_time: 'time', t_plain: 'default' });
  // k6 v1.3.0's lines.
  assert.match(r.stdout, /✓ 'count<5000' count=1\.5s/);
  assert.match(r.stdout, /c_time\.+: 1\.5s /);
  assert.match(r.stdout, /g_time\.+: 2\.5s +min=2\.5s +max=2\.5s/);
});

test("--out json's Metric line: a threshold that aborts in k6's long form, its delay in Go's form; one that does not as its text", async () => {
  const r = await runScript(`import { Rate } from 'k6/metrics';
const r = new Rate('my_rate');
export const options = { iterations: 1, thresholds: { my_rate: ['rate>0', { threshold: 'rate<2', abortOnFail: true }, { threshold: 'rate<3', abortOnFail: true, delayAbortEval: '1m' }, { threshold: 'rate<4', delayAbortEval: '5s' }, { threshold: 'rate<6', abortOnFail: true, delayAbortEval: 1500 }] } };
export default function () { r.add(1); }
`);
  assert.equal(r.code, 0, r.stderr);
  // k6 v1.3.0's.
  assert.deepEqual(r.metrics.find((m) => m.name === 'my_rate').thresholds, [
    'rate>0',
    { threshold: 'rate<2', abortOnFail: true, delayAbortEval: null },
    { threshold: 'rate<3', abortOnFail: true, delayAbortEval: '1m0s' },
    'rate<4',
    { threshold: 'rate<6', abortOnFail: true, delayAbortEval: '1.5s' },
  ]);
});

test("a request's blocked holds its new connection's connecting, as k6's; a reused connection's connecting is 0", async () => {
  const r = await runScript(`import http from 'k6/http';
export const options = { iterations: 2 };
export default function () {
  const t = http.get(__ENV.BASE).timings;
  console.log(__ITER, t.connecting > 0, t.blocked >= t.connecting);
}
`);
  assert.equal(r.code, 0, r.stderr);
  const lines = [...r.stderr.matchAll(/msg="([^"]*)" source=console/g)].map((m) => m[1]);
  assert.deepEqual(lines, ['0 true true', '1 false true']);
});

test("a reused connection's blocked is nil, whatever the other VUs do in the turn its request goes out in", async () => {
  // Each VU works 5 ms before its request: requests of several VUs made in one turn go out
  // together after it (the client's Network.later), and none of that wait is blocked.
  const r = await runScript(`import http from 'k6/http';
export const options = { vus: 3, iterations: 12 };
export default function () {
  const until = Date.now() + 5;
  while (Date.now() < until);
  const t = http.get(__ENV.BASE).timings;
  if (t.connecting === 0) console.log('blocked ' + t.blocked);
}
`);
  assert.equal(r.code, 0, r.stderr);
  const blocked = [...r.stderr.matchAll(/msg="blocked ([^"]*)" source=console/g)].map((m) => Number(m[1]));
  assert.ok(blocked.length >= 9, r.stderr);
  assert.deepEqual([...new Set(blocked)], [0]);
});
