// --out influxdb: every sample a point of InfluxDB v1's line protocol, as k6 v2.2 writes it, into a
// real InfluxDB (Debian's influxdb, started here on free loopback ports): the points stored add up
// to what the run's --out json wrote, metric by metric, and to the requests the server counted;
// a database that is down costs the run one line; a bad setting is one line and exit 2.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InfluxLines, goFloat } from '../src/outputs/influxdb/lines.js';
import { influxConfig } from '../src/outputs/influxdb/config.js';
import { rawServer, spawnScript, ok } from './servers.js';
import { startInflux, influxMissing } from './influxdb-server.js';
import { freePort } from '../runtimes/processes/groups.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const noEnv = () => undefined;

const decoder = new TextDecoder();
let out = [];
let points = 0;
// What InfluxLines hands its writer: whole lines, as text, and how many.
function written(bytes, n) {
  out.push(...decoder.decode(bytes).split(/(?<=\n)/));
  points += n;
}

test("a point's line: k6's measurement, its tags sorted and escaped, empty ones left out, tagsAsFields as fields in their kinds, the fields sorted", () => {
  const config = influxConfig('http://127.0.0.1:8086/k6?tagsAsFields=vu:int&tagsAsFields=url&tagsAsFields=ok:bool&tagsAsFields=w:float', noEnv);
  const lines = new InfluxLines(config, written);
  lines.metric(0, { name: 'http_req_duration' });
  lines.metric(1, { name: 'my metric,x' });
  lines.metric(2, { name: 'http_req_waiting', isTime: true });
  lines.tags(0, { status: '200', method: 'GET', group: '', name: 'a b,c=d', url: 'http://x/"q"\\', vu: '3', ok: 'true', w: 'abc' });
  lines.tags(1, {});
  lines.sample(0, 12.5, 0, 1700000000123);
  lines.sample(0, 1e-7, 0, 1700000000123);
  lines.sample(1, 2, 0, 1700000000124);
  lines.sample(1, NaN, 0, 1700000000124);
  // A time, as k6's are: whole nanoseconds, in milliseconds.
  lines.sample(2, 0.41234999999, 1, 1700000000124);
  lines.sample(2, 1234.5, 1, 1700000000124);
  lines.flush();
  assert.deepEqual(out, [
    'http_req_duration,method=GET,name=a\\ b\\,c\\=d,status=200 ok=true,url="http://x/\\"q\\"\\\\",value=12.5,vu=3i,w="abc" 1700000000123000000\n',
    'http_req_duration,method=GET,name=a\\ b\\,c\\=d,status=200 ok=true,url="http://x/\\"q\\"\\\\",value=0.0000001,vu=3i,w="abc" 1700000000123000001\n',
    'my\\ metric\\,x,method=GET,name=a\\ b\\,c\\=d,status=200 ok=true,url="http://x/\\"q\\"\\\\",value=2,vu=3i,w="abc" 1700000000124000000\n',
    'http_req_waiting value=0.41235 1700000000124000001\n',
    'http_req_waiting value=1234.5 1700000000124000002\n',
  ]);
  assert.equal(points, 5);
});

test("points of one millisecond get its nanoseconds in turn, apart from another process's; other precisions are the unit's whole count", () => {
  const times = (config, instance, instances) => {
    out = [];
    const lines = new InfluxLines(config, written, instance, instances);
    lines.metric(0, { name: 'm' });
    lines.tags(0, {});
    for (const now of [5000, 5000, 5000, 5001, 61999]) lines.sample(0, 1, 0, now);
    lines.flush();
    return out.map((line) => line.trim().split(' ').pop());
  };
  const ns = influxConfig('', noEnv);
  assert.deepEqual(times(ns, 0, 1), ['5000000000', '5000000001', '5000000002', '5001000000', '61999000000']);
  assert.deepEqual(times(ns, 1, 2), ['5000000001', '5000000003', '5000000005', '5001000001', '61999000001']);
  assert.deepEqual(times(influxConfig('http://h:1/db?precision=s', noEnv), 0, 1), ['5', '5', '5', '5', '61']);
  assert.deepEqual(times(influxConfig('http://h:1/db?precision=m', noEnv), 0, 1), ['0', '0', '0', '0', '1']);
});

test('a writer without room: points are counted lost unformatted, each point once, and lines go on once it has room', () => {
  let room = false;
  let lost = 0;
  let taken = 0;
  const lines = new InfluxLines(influxConfig('', noEnv), (bytes, n) => {
    // As PushWriter.put: a chunk it has no room for is lost, and counted there.
    if (!room) {
      lost += n;
      return false;
    }
    taken += n;
    return true;
  }, 0, 1, { hasRoom: () => room, loseFull: (n) => (lost += n) });
  lines.metric(0, { name: 'm' });
  lines.tags(0, { t: 'x'.repeat(200) });
  // Enough points for several 64 KiB chunks: the first is refused, the rest are skipped.
  for (let i = 0; i < 5000; i++) lines.sample(0, i, 0, 1000);
  room = true;
  for (let i = 0; i < 5000; i++) lines.sample(0, i, 0, 1000);
  lines.flush();
  assert.ok(lost > 4000 && taken > 4000, `${lost} ${taken}`);
  assert.equal(lost + taken, 10000);
});

test("numbers as Go's strconv.FormatFloat(v, 'f', -1, 64) writes them: the shortest digits, no exponent", () => {
  for (const [v, text] of [[0, '0'], [1, '1'], [-2.5, '-2.5'], [123.456, '123.456'], [1e21, '1000000000000000000000'], [1.5e-7, '0.00000015'], [-2.5e-8, '-0.000000025'], [1.2345e22, '12345000000000000000000']]) {
    assert.equal(goFloat(v), text);
  }
  // Random values: the text reads back as the same number.
  let seed = 7;
  for (let i = 0; i < 2000; i++) {
    seed = (seed * 48271) % 2147483647;
    const v = (seed / 2147483647 - 0.5) * 10 ** ((seed % 60) - 30);
    const text = goFloat(v);
    assert.doesNotMatch(text, /e/i, text);
    assert.equal(Number(text), v, text);
  }
});

test("k6's settings: defaults, K6_INFLUXDB_* under the URL's, and what cannot be honored refused", () => {
  const d = influxConfig('', noEnv);
  assert.equal(d.addr, 'http://localhost:8086');
  assert.equal(d.db, 'k6');
  assert.equal(d.pushInterval, 1000);
  assert.equal(d.concurrentWrites, 4);
  assert.deepEqual(d.tagsAsFields, ['vu', 'iter', 'url']);
  const env = { K6_INFLUXDB_DB: 'fromenv', K6_INFLUXDB_PUSH_INTERVAL: '250', K6_INFLUXDB_CONCURRENT_WRITES: '2', K6_INFLUXDB_USERNAME: 'u', K6_INFLUXDB_TAGS_AS_FIELDS: 'vu:int,iter:int' };
  const c = influxConfig('http://127.0.0.1:9999', (k) => env[k]);
  assert.deepEqual([c.addr, c.db, c.pushInterval, c.concurrentWrites, c.username, c.tagsAsFields], ['http://127.0.0.1:9999', 'fromenv', 250, 2, 'u', ['vu:int', 'iter:int']]);
  const u = influxConfig('http://a:p%40ss@127.0.0.1:9999/mydb?pushInterval=2s&precision=ms&retention=week&consistency=all', (k) => env[k]);
  assert.deepEqual([u.db, u.username, u.password, u.pushInterval, u.precision, u.retention, u.consistency], ['mydb', 'a', 'p@ss', 2000, 'ms', 'week', 'all']);
  for (const [url, envs, message] of [
    ['http://h:1/db?nope=1', {}, 'unknown query parameter: nope'],
    ['http://h:1/db?insecure=maybe', {}, 'insecure must be true or false, not maybe'],
    ['udp://h:8089', {}, 'udp:// is not supported here: write over http:// or https://'],
    ['', { K6_INFLUXDB_PROXY: 'http://p:3128' }, 'K6_INFLUXDB_PROXY is not supported here: leave it out'],
    ['http://h:1/db?concurrentWrites=0', {}, "influxdb's ConcurrentWrites must be a positive number"],
    ['', { K6_INFLUXDB_TAGS_AS_FIELDS: 'vu:number' }, 'an invalid type (number) is specified for an InfluxDB field (vu)'],
    ['', { K6_INFLUXDB_TAGS_AS_FIELDS: 'vu,vu:int' }, 'a tag name (vu) shows up more than once in InfluxDB field type configurations'],
    ['http://h:1/db?precision=us', {}, "precision 'us' is not supported here: ns (the default), ms, s, m or h"],
    ['', { K6_INFLUXDB_INSECURE: 'yes' }, "K6_INFLUXDB_INSECURE: 'yes' is not true or false"],
  ]) {
    assert.throws(() => influxConfig(url, (k) => envs[k]), { message }, url);
  }
});

const SCRIPT = `
import http from 'k6/http';
import { check, group } from 'k6';
export const options = { scenarios: { s: { executor: 'shared-iterations', vus: 3, iterations: 40 } } };
export default function () {
  group('g', () => {
    const r = http.get(\`\${__ENV.BASE}/items/\${__ITER % 3}\`, { tags: { name: 'items' } });
    check(r, { 'is 200': (x) => x.status === 200 });
  });
}
`;

test('a run into a real InfluxDB: its points add up to --out json\'s, metric by metric, and http_reqs to the requests the server answered, with --cores 2 too', { skip: influxMissing || false, timeout: 120000 }, async () => {
  const db = await startInflux();
  let answered = 0;
  const server = await rawServer(({ socket }) => {
    answered++;
    socket.write(ok());
  });
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-influx-run-'));
  try {
    writeFileSync(join(dir, 'test.js'), SCRIPT);
    const r = await spawnScript(CLI, ['run', '-q', '-e', `BASE=${server.url}`, '--out', `json=${join(dir, 'out.json')}`, '--out', `influxdb=${db.url}/k6run`, join(dir, 'test.js')], { timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const written = new Map();
    for (const line of readFileSync(join(dir, 'out.json'), 'utf8').split('\n')) {
      if (!line.includes('"type":"Point"')) continue;
      const name = JSON.parse(line).metric;
      written.set(name, (written.get(name) || 0) + 1);
    }
    const stored = new Map();
    for (const s of await db.query('SELECT count(value) FROM /.*/', 'k6run')) stored.set(s.name, s.values[0][1]);
    assert.deepEqual(Object.fromEntries([...stored].sort()), Object.fromEntries([...written].sort()));
    assert.equal(stored.get('http_reqs'), 40);
    assert.equal(answered, 40);
    const [tagKeys] = await db.query('SHOW TAG KEYS FROM http_req_duration', 'k6run');
    assert.deepEqual(tagKeys.values.map((v) => v[0]), ['expected_response', 'group', 'method', 'name', 'proto', 'scenario', 'status']);
    const [fieldKeys] = await db.query('SHOW FIELD KEYS FROM http_req_duration', 'k6run');
    assert.deepEqual(fieldKeys.values, [['url', 'string'], ['value', 'float']]);
    const [checks] = await db.query(`SELECT sum(value), count(value) FROM checks WHERE "check" = 'is 200' AND "group" = '::g'`, 'k6run');
    assert.deepEqual(checks.values[0].slice(1), [40, 40]);
    const [byName] = await db.query(`SELECT count(value) FROM http_reqs WHERE "name" = 'items' AND "status" = '200' AND "method" = 'GET'`, 'k6run');
    assert.equal(byName.values[0][1], 40);
    // --cores 2: the parent and each child write their own points into the one database.
    const cores = await spawnScript(CLI, ['run', '-q', '--cores', '2', '-e', `BASE=${server.url}`, '--out', `influxdb=${db.url}/k6cores`, join(dir, 'test.js')], { timeoutMs: 60000 });
    assert.equal(cores.code, 0, cores.stderr);
    const [reqs] = await db.query('SELECT count(value) FROM http_reqs', 'k6cores');
    assert.equal(reqs.values[0][1], 40);
    assert.equal(answered, 80);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
    await db.stop();
  }
});

test('a database that is down costs the run one line: how many points were lost and why, no password, exit 0', { timeout: 60000 }, async () => {
  const port = await freePort();
  const server = await rawServer(({ socket }) => socket.write(ok()));
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-influx-down-'));
  try {
    writeFileSync(join(dir, 'test.js'), SCRIPT);
    const r = await spawnScript(CLI, ['run', '-q', '-e', `BASE=${server.url}`, '--out', `influxdb=http://user:s3cret@127.0.0.1:${port}/k6`, join(dir, 'test.js')], { timeoutMs: 30000 });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /^loadtest run: --out influxdb: (\d+) of \1 points not written \(http:\/\/127\.0\.0\.1:\d+\/k6: .+\)$/);
    assert.doesNotMatch(r.stderr, /s3cret/);
    assert.match(r.stdout, /http_reqs/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
});

test('a bad setting of --out influxdb is one line and exit 2, before the run, without the URL', async () => {
  for (const [args, env, line] of [
    [['--out', 'influxdb=http://u:pw@127.0.0.1:1/k6?foo=1'], {}, 'loadtest run: --out influxdb: unknown query parameter: foo\n'],
    [['--out', 'influxdb'], { K6_INFLUXDB_CONCURRENT_WRITES: 'x' }, "loadtest run: --out influxdb: K6_INFLUXDB_CONCURRENT_WRITES: 'x' is not a whole number\n"],
    [['--out', 'influx=x'], {}, "loadtest run: --out 'influx=x': json=FILE, csv=FILE, influxdb[=URL], experimental-prometheus-rw, opentelemetry or web-dashboard\n"],
  ]) {
    const r = await spawnScript(CLI, ['run', ...args, 'nothing.js'], { env, timeoutMs: 30000 });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, line);
  }
});
