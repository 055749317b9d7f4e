// --new-machine-readable-summary (K6_NEW_MACHINE_READABLE_SUMMARY): k6 v1.5's summary for
// programs, which handleSummary(data) gets and --summary-export writes. Each document is checked
// against the shape k6 v2.2 writes (described below, from k6's output: the keys, their order,
// each type's values) and its figures against what the script and the server did; compact and
// full mode, the variable, refusals, and shards merged. Beside k6 v2.2 itself: doc/scripts.md.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawServer, spawnScript, ok } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

// Two scenarios with per-VU iterations (every count known), checks in nested groups (one fails
// each time), a metric of each type whose figures are exact, thresholds on a metric and on
// sub-metrics; handleSummary() writes what it got and checks its types.
const SCRIPT = `import http from 'k6/http';
import { check, group } from 'k6';
import { Counter, Gauge, Rate, Trend } from 'k6/metrics';
const orders = new Counter('orders');
const stock = new Gauge('stock');
const hits = new Rate('hits');
const basket = new Trend('basket');
const wait = new Trend('wait', true);
export const options = {
  scenarios: {
    shop: { executor: 'per-vu-iterations', vus: 2, iterations: 3, exec: 'shop' },
    browse: { executor: 'per-vu-iterations', vus: 1, iterations: 2, exec: 'browse' },
  },
  thresholds: { orders: ['count==12'], 'http_reqs{scenario:browse}': ['count==2'], 'http_req_waiting': ['p(95)<60000'] },
};
export function shop() {
  group('cart', () => {
    // Before the request: 'paid' is the first check made (the checks' order is the order they
    // are first made in, which a response's arrival would otherwise decide).
    group('pay', () => {
      check(1, { 'paid': () => true });
      orders.add(2);
      basket.add(40);
      wait.add(25);
      stock.add(7);
      hits.add(true);
    });
    http.get(\`\${__ENV.BASE}/cart\`);
  });
}
export function browse() {
  const r = http.get(\`\${__ENV.BASE}/list\`);
  check(r, { 'listed': (x) => x.status === 200, 'is json': (x) => x.status === 201 });
  hits.add(false);
}
export function handleSummary(data) {
  if (__ENV.HS === undefined) return undefined;
  const trend = data.results.metrics.find((m) => m.type === 'trend');
  const types = { metrics: Array.isArray(data.results.metrics), trend: trend !== undefined, version: typeof data.version };
  return { [__ENV.HS]: JSON.stringify({ data, types }) };
}
`;

async function withScript(source, fn) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-mrsummary-'));
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, source);
    const base = server.url.replace(/\/$/, '');
    // The last argument may be { env } for the command's environment.
    const run = (...args) => {
      const extra = typeof args.at(-1) === 'object' ? args.pop() : {};
      return spawnScript(CLI, ['run', '-q', '-e', `BASE=${base}`, ...args, path], { timeoutMs: 60000, ...extra });
    };
    await fn({ run, server, dir, path });
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const readJSON = (file) => JSON.parse(readFileSync(file, 'utf8'));
const isNumber = (x) => typeof x === 'number' && Number.isFinite(x);
const isCount = (x) => Number.isInteger(x) && x >= 0;

// The shape k6 v2.2 writes (grafana/k6-summary's schema 1.0.0 with the names k6's JS bridge
// gives its Go fields): every object's keys exactly, in this order.
function checkShape(doc) {
  assert.deepEqual(Object.keys(doc), ['config', 'metadata', 'results', 'version']);
  assert.equal(doc.version, '1.0.0');
  const config = Object.keys(doc.config);
  assert.ok(['duration,execution', 'duration,execution,script'].includes(config.join()), config.join());
  assert.ok(isNumber(doc.config.duration) && doc.config.duration >= 0);
  assert.equal(doc.config.execution, 'local');
  assert.deepEqual(Object.keys(doc.metadata), ['generated_at', 'k6_version']);
  assert.match(doc.metadata.generated_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  assert.match(doc.metadata.k6_version, /^\d+\.\d+\.\d+$/);
  assert.deepEqual(Object.keys(doc.results), ['checks', 'metrics']);
  assert.deepEqual(Object.keys(doc.results.checks), ['metrics', 'results']);
  for (const c of doc.results.checks.results) {
    assert.deepEqual(Object.keys(c), ['fails', 'name', 'passes']);
    assert.ok(typeof c.name === 'string' && isCount(c.passes) && isCount(c.fails));
  }
  for (const m of [...doc.results.checks.metrics, ...doc.results.metrics]) checkMetric(m);
}

const VALUE_KEYS = { counter: ['count'], gauge: ['max', 'min', 'value'], rate: ['matches', 'rate', 'total'], trend: ['avg', 'max', 'med', 'min', 'p90', 'p95'] };

function checkMetric(m) {
  assert.deepEqual(Object.keys(m), ['contains', 'name', 'type', 'values'], m.name);
  assert.ok(['default', 'time', 'data'].includes(m.contains), m.name);
  assert.deepEqual(Object.keys(m.values), VALUE_KEYS[m.type], m.name);
  const v = m.values;
  if (m.type === 'counter') assert.ok(isNumber(v.count) && v.count >= 0, m.name);
  if (m.type === 'gauge') assert.ok([v.max, v.min, v.value].every(isNumber), m.name);
  if (m.type === 'rate') assert.ok(isCount(v.matches) && isCount(v.total) && v.matches <= v.total && v.rate >= 0 && v.rate <= 1, m.name);
  if (m.type === 'trend') assert.ok(Object.values(v).every((x) => x === null || isNumber(x)), m.name);
}

const byName = (doc) => Object.fromEntries(doc.results.metrics.map((m) => [m.name, m]));

test('compact: handleSummary(data) and --summary-export get the new shape, the same document, with the run\'s figures', async () => {
  await withScript(SCRIPT, async ({ run, server, dir, path }) => {
    const exported = join(dir, 'export.json');
    const handled = join(dir, 'handled.json');
    const r = await run('--new-machine-readable-summary', '--summary-export', exported, '-e', `HS=${handled}`);
    assert.equal(r.code, 0, r.stderr);
    const { data, types } = readJSON(handled);
    assert.deepEqual(readJSON(exported), data, 'the export is what handleSummary() got');
    // Plain JavaScript values: k6's own are Go objects (its m.type === 'trend' is false).
    assert.deepEqual(types, { metrics: true, trend: true, version: 'string' });
    checkShape(data);
    assert.equal(data.config.script, SCRIPT);
    assert.deepEqual(data.results.checks.results, [
      { fails: 0, name: 'paid', passes: 6 },
      { fails: 0, name: 'listed', passes: 2 },
      { fails: 2, name: 'is json', passes: 0 },
    ]);
    assert.deepEqual(data.results.checks.metrics.map((m) => [m.name, m.values]), [
      ['checks_total', { count: 10 }],
      ['checks_failed', { matches: 2, rate: 0.2, total: 10 }],
      ['checks_succeeded', { matches: 8, rate: 0.8, total: 10 }],
    ]);
    const m = byName(data);
    assert.equal(server.requests, 8);
    assert.deepEqual(m.http_reqs.values, { count: 8 });
    assert.deepEqual(m['http_reqs{scenario:browse}'].values, { count: 2 });
    assert.deepEqual(m.http_req_failed.values, { matches: 0, rate: 0, total: 8 });
    assert.deepEqual(m.iterations.values, { count: 8 });
    assert.deepEqual(m.orders, { contains: 'default', name: 'orders', type: 'counter', values: { count: 12 } });
    assert.deepEqual(m.stock, { contains: 'default', name: 'stock', type: 'gauge', values: { max: 7, min: 7, value: 7 } });
    assert.deepEqual(m.hits, { contains: 'default', name: 'hits', type: 'rate', values: { matches: 6, rate: 0.75, total: 8 } });
    assert.deepEqual(m.basket, { contains: 'default', name: 'basket', type: 'trend', values: { avg: 40, max: 40, med: 40, min: 40, p90: 40, p95: 40 } });
    assert.deepEqual(m.wait, { contains: 'time', name: 'wait', type: 'trend', values: { avg: 25, max: 25, med: 25, min: 25, p90: 25, p95: 25 } });
    assert.equal(m.data_received.contains, 'data');
    // As k6's compact summary: no phase of a request's time, even with a threshold; no checks
    // or group_duration among the metrics.
    for (const name of ['http_req_waiting', 'http_req_blocked', 'checks', 'group_duration']) assert.equal(m[name], undefined, name);
    // k6's categories in its order (HTTP, execution, network, then the script's).
    const names = data.results.metrics.map((x) => x.name);
    assert.ok(names.indexOf('http_reqs') < names.indexOf('iterations') && names.indexOf('iterations') < names.indexOf('data_sent') && names.indexOf('data_sent') < names.indexOf('orders'), names.join());
  });
});

test('full mode: every metric the full summary shows; a Trend\'s statistics the summary does not show are null', async () => {
  const source = SCRIPT.replace("thresholds: {", "summaryTrendStats: ['avg', 'p(99)', 'count'],\n  thresholds: { basket: ['max<100'],");
  await withScript(source, async ({ run, dir }) => {
    const exported = join(dir, 'export.json');
    const r = await run('--new-machine-readable-summary', '--summary-mode', 'full', '--summary-export', exported);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /█ SCENARIO: shop/, 'the summary is printed as ever');
    const doc = readJSON(exported);
    checkShape(doc);
    const m = byName(doc);
    for (const name of ['http_req_waiting', 'http_req_blocked', 'http_req_connecting', 'http_req_sending', 'http_req_receiving']) assert.ok(m[name], name);
    // A threshold on max does not add it, as in k6.
    assert.deepEqual(m.basket.values, { avg: 40, max: null, med: null, min: null, p90: null, p95: null });
    assert.deepEqual(doc.results.checks.results.map((c) => c.name), ['paid', 'listed', 'is json']);
  });
});

test('K6_NEW_MACHINE_READABLE_SUMMARY as k6 reads it, under the flag; no checks is an empty list of each', async () => {
  const source = "export const options = { iterations: 1 };\nexport default function () {}\n";
  await withScript(source, async ({ run, dir }) => {
    const exported = join(dir, 'export.json');
    const shapeOf = async (...args) => {
      rmSync(exported, { force: true });
      const r = await run('--summary-export', exported, ...args);
      assert.equal(r.code, 0, r.stderr);
      return Object.keys(readJSON(exported))[0];
    };
    assert.equal(await shapeOf({ env: { K6_NEW_MACHINE_READABLE_SUMMARY: '1' } }), 'config');
    assert.equal(await shapeOf({ env: { K6_NEW_MACHINE_READABLE_SUMMARY: 'false' } }), 'root_group');
    assert.equal(await shapeOf('--new-machine-readable-summary=false', { env: { K6_NEW_MACHINE_READABLE_SUMMARY: 'true' } }), 'root_group');
    assert.equal(await shapeOf('--new-machine-readable-summary', { env: { K6_NEW_MACHINE_READABLE_SUMMARY: 'false' } }), 'config');
    const doc = readJSON(exported);
    checkShape(doc);
    assert.deepEqual(doc.results.checks, { metrics: [], results: [] });
    const bad = await run('--new-machine-readable-summary', { env: { K6_NEW_MACHINE_READABLE_SUMMARY: 'yes' } });
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, "loadtest run: env var 'K6_NEW_MACHINE_READABLE_SUMMARY' is not a valid boolean value: 'yes'\n");
    const legacy = await run('--new-machine-readable-summary', '--summary-mode', 'legacy');
    assert.equal(legacy.code, 2);
    assert.match(legacy.stderr, /^loadtest run: the new machine-readable summary .* is not for --summary-mode=legacy: .*\n$/);
    // Disabled: no handleSummary() and no export, as ever.
    rmSync(exported, { force: true });
    const disabled = await run('--new-machine-readable-summary', '--summary-mode', 'disabled', '--summary-export', exported);
    assert.equal(disabled.code, 0, disabled.stderr);
    assert.equal(existsSync(exported), false);
  });
});

test('shards merged: loadtest merge --new-machine-readable-summary writes the whole run\'s, without the script', async () => {
  await withScript(SCRIPT, async ({ run, dir }) => {
    const files = [1, 2].map((i) => join(dir, `s${i}.json`));
    const started = Date.now() + 1500;
    const shards = await Promise.all(files.map((f, i) => run('--shard', `${i + 1}/2`, '--start-at', String(started), '--result', f)));
    for (const s of shards) assert.ok(s.code === 0 || s.code === 99, s.stderr);
    const exported = join(dir, 'merged.json');
    const merged = await spawnScript(CLI, ['merge', '--new-machine-readable-summary', '--summary-export', exported, ...files], { timeoutMs: 30000 });
    assert.equal(merged.code, 0, merged.stderr);
    const doc = readJSON(exported);
    checkShape(doc);
    assert.equal(doc.config.script, undefined);
    assert.deepEqual(doc.results.checks.metrics[0].values, { count: 10 });
    assert.deepEqual(byName(doc).http_reqs.values, { count: 8 });
    assert.deepEqual(byName(doc).hits.values, { matches: 6, rate: 0.75, total: 8 });
    const alone = await spawnScript(CLI, ['merge', '--new-machine-readable-summary', ...files], { timeoutMs: 30000 });
    assert.equal(alone.code, 2);
    assert.equal(alone.stderr, 'loadtest merge: --new-machine-readable-summary is the shape of --summary-export: give that too\n');
  });
});
