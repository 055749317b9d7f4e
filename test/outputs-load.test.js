// --out for load runs: each request as the samples a k6 script's http.get makes (the same metric
// names, kinds and tags), so that one dashboard reads both kinds of run: counted against the
// requests the server answered, beside a script's samples for the same URL, with --cores, for
// failures and refused statuses, through the API too; a bad --out is one line and exit 2.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawServer, spawnScript, ok } from './servers.js';
import { loadTest } from '../src/index.js';
import { startInflux, influxMissing } from './influxdb-server.js';
import { startPrometheus, prometheusMissing } from './prometheus-server.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const PHASES = ['http_req_blocked', 'http_req_connecting', 'http_req_duration', 'http_req_receiving', 'http_req_sending', 'http_req_tls_handshaking', 'http_req_waiting'];

/** --out json's points: [{ metric, value, tags }]. */
function points(file) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"type":"Point"'))
    .map((l) => {
      const p = JSON.parse(l);
      return { metric: p.metric, value: p.data.value, tags: p.data.tags };
    });
}

const of = (list, name) => list.filter((p) => p.metric === name);

test("a load run's requests are a script's samples: the same names, kinds and tags as http.get's, one http_reqs a request the server answered, the connection's setup on its first request", { timeout: 60000 }, async () => {
  let answered = 0;
  const server = await rawServer(({ socket }) => {
    answered++;
    socket.write(ok());
  });
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-out-load-'));
  try {
    const load = await spawnScript(CLI, ['-n', '30', '-c', '3', '-k', '--quiet', '--out', `json=${join(dir, 'load.json')}`, server.url], { timeoutMs: 30000 });
    assert.equal(load.code, 0, load.stderr);
    assert.equal(load.stderr, '');
    const got = points(join(dir, 'load.json'));
    assert.equal(of(got, 'http_reqs').length, 30);
    assert.equal(answered, 30);
    for (const name of [...PHASES, 'http_req_failed']) assert.equal(of(got, name).length, 30, name);
    // Three connections kept alive: each one's first request carries its connect time.
    assert.equal(of(got, 'http_req_connecting').filter((p) => p.value > 0).length, 3);
    assert.ok(of(got, 'http_req_failed').every((p) => p.value === 0));
    for (const p of of(got, 'http_req_duration')) assert.ok(p.value >= 0 && p.value < 30000, String(p.value));
    // The same URL from a script: the same tags on its http_reqs.
    writeFileSync(join(dir, 'test.js'), `import http from 'k6/http';\nexport const options = { iterations: 2 };\nexport default function () { http.get('${server.url}'); }\n`);
    const script = await spawnScript(CLI, ['run', '-q', '--out', `json=${join(dir, 'script.json')}`, join(dir, 'test.js')], { timeoutMs: 30000 });
    assert.equal(script.code, 0, script.stderr);
    const scripted = points(join(dir, 'script.json'));
    assert.deepEqual(of(got, 'http_reqs')[0].tags, of(scripted, 'http_reqs')[0].tags);
    const names = (list) => [...new Set(list.map((p) => p.metric))].filter((n) => n.startsWith('http_')).sort();
    assert.deepEqual(names(got), names(scripted));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
});

test('--cores 2: each child writes its own samples into the one file; a refused status and a lost connection are http_req_failed, the second with status 0 and its reason', { timeout: 60000 }, async () => {
  let answered = 0;
  const server = await rawServer(({ socket }, request) => {
    answered++;
    if (request.path === '/drop') return socket.destroy();
    socket.write(request.path === '/500' ? 'HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n' : ok());
  });
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-out-load-cores-'));
  try {
    const r = await spawnScript(CLI, ['-n', '40', '-c', '4', '-k', '--cores', '2', '--quiet', '--out', `json=${join(dir, 'cores.json')}`, server.url], { timeoutMs: 30000 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(of(points(join(dir, 'cores.json')), 'http_reqs').length, 40);
    assert.equal(answered, 40);
    const failing = await spawnScript(CLI, ['-n', '2', '-c', '1', '--quiet', '--out', `json=${join(dir, 'drop.json')}`, `${server.url}drop`], { timeoutMs: 30000 });
    const dropped = of(points(join(dir, 'drop.json')), 'http_req_failed');
    assert.equal(dropped.length, 2, failing.stderr);
    assert.ok(dropped.every((p) => p.value === 1 && p.tags.status === '0' && p.tags.expected_response === 'false' && p.tags.error !== ''));
    const refused = await spawnScript(CLI, ['-n', '2', '-c', '1', '--quiet', '--out', `json=${join(dir, '500.json')}`, `${server.url}500`], { timeoutMs: 30000 });
    const five = of(points(join(dir, '500.json')), 'http_req_failed');
    assert.equal(five.length, 2, refused.stderr);
    assert.ok(five.every((p) => p.value === 1 && p.tags.status === '500' && p.tags.expected_response === 'false'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
});

test('the API takes out too; a bad --out is one line and exit 2, before the run', { timeout: 60000 }, async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-out-load-api-'));
  try {
    const result = await loadTest({ url: server.url, maxRequests: 5, concurrency: 1, agentKeepAlive: true, quiet: true, out: [`csv=${join(dir, 'api.csv')}`] });
    assert.equal(result.totalRequests, 5);
    const rows = readFileSync(join(dir, 'api.csv'), 'utf8').trim().split('\n');
    assert.equal(rows.filter((row) => row.startsWith('http_reqs,')).length, 5);
    for (const [args, line] of [
      [['--out', 'nope'], "loadtest: --out 'nope': json=FILE, csv=FILE, influxdb[=URL], experimental-prometheus-rw or opentelemetry\n"],
      [['--out', 'influxdb=http://h:1/k6?x=1'], 'loadtest: --out influxdb: unknown query parameter: x\n'],
    ]) {
      const r = await spawnScript(CLI, [...args, '-n', '1', server.url], { timeoutMs: 30000 });
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stderr, line);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
});

test("a load run into a real InfluxDB and a real Prometheus: the requests the server answered, under k6's measurement and series names", { skip: influxMissing || prometheusMissing || false, timeout: 120000 }, async () => {
  const [db, prometheus] = await Promise.all([startInflux(), startPrometheus()]);
  let answered = 0;
  const server = await rawServer(({ socket }) => {
    answered++;
    socket.write(ok());
  });
  try {
    const r = await spawnScript(CLI, ['-n', '25', '-c', '2', '-k', '--quiet', '--out', `influxdb=${db.url}/load`, '--out', 'experimental-prometheus-rw', server.url], { env: { K6_PROMETHEUS_RW_SERVER_URL: prometheus.writeURL }, timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const [reqs] = await db.query('SELECT count(value) FROM http_reqs', 'load');
    assert.equal(reqs.values[0][1], 25);
    const [tagKeys] = await db.query('SHOW TAG KEYS FROM http_req_duration', 'load');
    assert.deepEqual(tagKeys.values.map((v) => v[0]), ['expected_response', 'method', 'name', 'proto', 'scenario', 'status']);
    const total = await prometheus.query('sum(last_over_time(k6_http_reqs_total[1h]))', Date.now() / 1000);
    assert.equal(Number(total[0].value[1]), 25);
    assert.equal(answered, 25);
  } finally {
    await server.close();
    await Promise.all([db.stop(), prometheus.stop()]);
  }
});
