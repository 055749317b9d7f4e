// --out experimental-prometheus-rw: the run's series as k6 v2.2 writes them by remote write, read
// back with remote write's own protobuf messages, and into a real Prometheus (Debian's, started
// here on a free loopback port): its k6_http_reqs_total is the requests the server answered, the
// queries dashboards make of k6's series answer, native histograms too; a server that is down
// costs the run one line; a bad setting is one line and exit 2.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import snappy from 'snappyjs';
import { PromSeries } from '../src/outputs/prometheus/series.js';
import { prometheusConfig, trendStats } from '../src/outputs/prometheus/config.js';
import { NativeHistogram, bucketKey } from '../src/outputs/prometheus/native-histogram.js';
import { rawServer, spawnScript, ok } from './servers.js';
import { startPrometheus, prometheusMissing } from './prometheus-server.js';
import { freePort } from '../runtimes/processes/groups.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

// Remote write's messages (Prometheus' prompb/types.proto and remote.proto), as JSON for protobufjs.
const prompb = protobuf.Root.fromJSON({
  nested: {
    WriteRequest: { fields: { timeseries: { rule: 'repeated', type: 'TimeSeries', id: 1 } } },
    TimeSeries: { fields: { labels: { rule: 'repeated', type: 'Label', id: 1 }, samples: { rule: 'repeated', type: 'Sample', id: 2 }, histograms: { rule: 'repeated', type: 'Histogram', id: 4 } } },
    Label: { fields: { name: { type: 'string', id: 1 }, value: { type: 'string', id: 2 } } },
    Sample: { fields: { value: { type: 'double', id: 1 }, timestamp: { type: 'int64', id: 2 } } },
    BucketSpan: { fields: { offset: { type: 'sint32', id: 1 }, length: { type: 'uint32', id: 2 } } },
    Histogram: {
      fields: {
        countInt: { type: 'uint64', id: 1 },
        sum: { type: 'double', id: 3 },
        schema: { type: 'sint32', id: 4 },
        zeroThreshold: { type: 'double', id: 5 },
        zeroCountInt: { type: 'uint64', id: 6 },
        negativeSpans: { rule: 'repeated', type: 'BucketSpan', id: 8 },
        negativeDeltas: { rule: 'repeated', type: 'sint64', id: 9 },
        positiveSpans: { rule: 'repeated', type: 'BucketSpan', id: 11 },
        positiveDeltas: { rule: 'repeated', type: 'sint64', id: 12 },
        timestamp: { type: 'int64', id: 15 },
      },
    },
  },
}).lookupType('WriteRequest');

/** A WriteRequest's series as { name: { labels, value, t } } (the body as PromSeries hands it). */
function decode(body) {
  const m = prompb.toObject(prompb.decode(body), { longs: Number, defaults: true });
  const out = {};
  for (const s of m.timeseries) {
    const names = s.labels.map((l) => l.name);
    assert.deepEqual(names, [...names].sort(), 'labels sorted');
    const labels = Object.fromEntries(s.labels.map((l) => [l.name, l.value]));
    const name = labels.__name__;
    delete labels.__name__;
    out[`${name}${JSON.stringify(labels)}`] = s.histograms.length ? { h: s.histograms[0] } : { value: s.samples[0].value, t: s.samples[0].timestamp };
  }
  return out;
}

const env = (vars) => [(k) => vars[k], Object.keys(vars)];

function series(vars = {}, instance = 0, instances = 1) {
  const bodies = [];
  const sink = new PromSeries(prometheusConfig(...env(vars)), (body, n) => bodies.push({ body, n }), instance, instances);
  sink.metric(0, { name: 'http_reqs', type: 'counter' });
  sink.metric(1, { name: 'http_req_duration', type: 'trend', isTime: true });
  sink.metric(2, { name: 'checks', type: 'rate' });
  sink.metric(3, { name: 'vus', type: 'gauge' });
  sink.metric(4, { name: 'my_trend', type: 'trend' });
  sink.tags(0, { status: '200', method: 'GET', group: '', Zone: 'z' });
  sink.tags(1, {});
  return { sink, bodies };
}

test("series as k6 names them: k6_ and the metric's name, _total, _rate, one per Trend stat in seconds (its count too, as k6), labels sorted and empty ones left out", () => {
  const { sink, bodies } = series({ K6_PROMETHEUS_RW_TREND_STATS: 'p(95),p(99.9),avg,min,max,med,count,sum' });
  for (const [i, v] of [10, 20, 30, 40].entries()) {
    sink.sample(0, 1, 0, 1000.4 + i);
    sink.sample(1, v, 0, 1000.4 + i);
    sink.sample(2, i % 2, 0, 1000.4 + i);
  }
  sink.sample(3, 7, 1, 1005);
  sink.sample(4, 2.5, 1, 1005);
  sink.push();
  assert.equal(bodies.length, 1);
  const got = decode(bodies[0].body);
  const tags = '{"Zone":"z","method":"GET","status":"200"}';
  assert.deepEqual(got[`k6_http_reqs_total${tags}`], { value: 4, t: 1003 });
  assert.deepEqual(got[`k6_checks_rate${tags}`], { value: 0.5, t: 1003 });
  assert.deepEqual(got['k6_vus{}'], { value: 7, t: 1005 });
  const stat = (s) => got[`k6_http_req_duration_${s}${tags}`].value;
  // As the run's summary has them (its histogram: a percentile is a sample's value; k6
  // interpolates, 0.0385 for p95 here).
  assert.equal(stat('p95'), 0.04);
  assert.equal(stat('p999'), 0.04);
  assert.equal(stat('med'), 0.020015);
  assert.deepEqual([stat('avg'), stat('min'), stat('max'), stat('count'), stat('sum')], [0.025, 0.01, 0.04, 0.004, 0.1]);
  assert.equal(got['k6_my_trend_count{}'].value, 1, "a Trend that is not a time's stays in its unit");
  assert.equal(bodies[0].n, Object.keys(got).length);
  assert.equal(Object.keys(got).length, 3 + 8 + 8);
});

test('a push holds the series seen since the last one, each at its latest millisecond, its value since the run began; stale markers at the end', () => {
  const { sink, bodies } = series({ K6_PROMETHEUS_RW_STALE_MARKERS: 'true' });
  sink.sample(0, 1, 0, 2000);
  sink.sample(3, 3, 1, 2000);
  sink.push();
  sink.sample(0, 1, 0, 2500);
  sink.sample(0, 1, 0, 2500.7);
  sink.push();
  sink.push(); // nothing new: nothing sent
  sink.sample(0, 1, 0, 2500.9); // the same millisecond as last sent: counted, not sent
  sink.push();
  assert.equal(bodies.length, 2);
  const second = decode(bodies[1].body);
  assert.deepEqual(Object.keys(second), ['k6_http_reqs_total{"Zone":"z","method":"GET","status":"200"}']);
  assert.deepEqual(Object.values(second)[0], { value: 3, t: 2500 });
  sink.sample(0, 1, 0, 3000);
  sink.flush();
  assert.equal(bodies.length, 4);
  assert.deepEqual(Object.values(decode(bodies[2].body))[0], { value: 5, t: 3000 });
  // Every series, once, with Prometheus' stale NaN (its exact bits).
  const stale = decode(bodies[3].body);
  assert.equal(Object.keys(stale).length, 2);
  const bits = new DataView(new ArrayBuffer(8));
  for (const s of Object.values(stale)) {
    bits.setFloat64(0, s.value, true);
    assert.ok(Number.isNaN(s.value));
    assert.ok(s.t > 3000);
  }
  const raw = Buffer.from(bodies[3].body);
  assert.ok(raw.includes(Buffer.from([0x09, 2, 0, 0, 0, 0, 0, 0xf0, 0x7f])), 'the stale marker 0x7ff0000000000002');
});

test("native histograms as client_golang's with k6's factor 1.1: schema 3, the buckets' keys and spans as makeBuckets writes them", () => {
  // A bucket k holds (2^((k-1)/8), 2^(k/8)].
  assert.deepEqual([1, 2, 1.05, 0.0125, 0.5, 3].map(bucketKey), [0, 8, 1, -50, -8, 13]);
  let seed = 11;
  for (let i = 0; i < 20000; i++) {
    seed = (seed * 48271) % 2147483647;
    const v = (seed / 2147483647) * 10 ** ((seed % 12) - 6);
    const k = bucketKey(v);
    assert.ok(v > 2 ** ((k - 1) / 8) * (1 - 1e-12) && v <= 2 ** (k / 8) * (1 + 1e-12), `${v} in bucket ${k}`);
  }
  const h = new NativeHistogram();
  for (const v of [1, 1, 1.05, 1.2, 2, 0, -1]) h.add(v);
  // Keys 0, 1, 3 (1.2) and 8: the gap of one (key 2) stays in the span as an empty bucket, the gap
  // of four starts a second span.
  assert.deepEqual(NativeHistogram.spans(h.positive), { spans: [{ offset: 0, length: 4 }, { offset: 4, length: 1 }], deltas: [2, -1, -1, 1, 0] });
  assert.deepEqual(NativeHistogram.spans(h.negative), { spans: [{ offset: 0, length: 1 }], deltas: [1] });
  assert.equal(h.zeroCount, 1);
  const gap = new NativeHistogram();
  for (const v of [1, 2 ** (3 / 8) + 1e-9]) gap.add(v); // keys 0 and 4: a gap of three starts a span
  assert.deepEqual(NativeHistogram.spans(gap.positive), { spans: [{ offset: 0, length: 1 }, { offset: 3, length: 1 }], deltas: [1, 0] });
  const { sink, bodies } = series({ K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM: 'true' });
  for (const v of [1000, 1000, 2000, 0]) sink.sample(1, v, 1, 7000);
  sink.push();
  const got = decode(bodies[0].body)['k6_http_req_duration_seconds{}'].h;
  assert.deepEqual(
    { count: got.countInt, sum: got.sum, schema: got.schema, zero: got.zeroCountInt, spans: got.positiveSpans, deltas: got.positiveDeltas, t: got.timestamp },
    { count: 4, sum: 4, schema: 3, zero: 1, spans: [{ offset: 0, length: 1 }, { offset: 7, length: 1 }], deltas: [2, -1], t: 7000 },
  );
});

test('--cores and shards: each process its own series, told apart by an instance label', () => {
  const { sink, bodies } = series({}, 1, 2);
  sink.sample(0, 1, 1, 1000);
  sink.push();
  assert.deepEqual(Object.keys(decode(bodies[0].body)), ['k6_http_reqs_total{"instance":"1"}']);
});

test("k6's settings: defaults, K6_PROMETHEUS_RW_*, headers, and what cannot be honored refused", () => {
  const d = prometheusConfig(...env({}));
  assert.deepEqual([d.url, d.pushInterval, d.trendStats, d.nativeHistograms, d.staleMarkers], ['http://localhost:9090/api/v1/write', 5000, ['p(99)'], false, false]);
  const c = prometheusConfig(...env({ K6_PROMETHEUS_RW_SERVER_URL: 'https://h:1/w', K6_PROMETHEUS_RW_PUSH_INTERVAL: '2s', K6_PROMETHEUS_RW_HEADERS_X_Team: 'a', K6_PROMETHEUS_RW_HTTP_HEADERS: 'X-A:1,X-B:2', K6_FEATURES: 'native-histograms' }));
  assert.deepEqual([c.url, c.pushInterval, c.headers, c.nativeHistograms], ['https://h:1/w', 2000, { X_Team: 'a', 'X-A': '1', 'X-B': '2' }, true]);
  assert.deepEqual(trendStats(['p(99.9)', 'med', 'p(0)']).map((s) => s.suffix), ['p999', 'med', 'p0']);
  for (const [vars, message] of [
    [{ K6_PROMETHEUS_RW_TREND_STATS: 'p(101)' }, "invalid percentile trend stat value 'p(101)', provide a number between 0 and 100"],
    [{ K6_PROMETHEUS_RW_TREND_STATS: 'p95' }, "invalid trend stat 'p95', unknown format"],
    [{ K6_PROMETHEUS_RW_HTTP_HEADERS: 'X-A=1' }, 'the provided header (X-A=1) does not respect the expected format <header key>:<value>'],
    [{ K6_PROMETHEUS_RW_SIGV4_REGION: 'eu-west-1' }, 'K6_PROMETHEUS_RW_SIGV4_REGION: AWS SigV4 signing is not supported here: leave it out'],
    [{ K6_PROMETHEUS_RW_INSECURE_SKIP_TLS_VERIFY: 'true' }, "K6_PROMETHEUS_RW_INSECURE_SKIP_TLS_VERIFY=true is not supported here: give the server's certificate a CA the runtime trusts"],
    [{ K6_PROMETHEUS_RW_STALE_MARKERS: 'yes' }, "K6_PROMETHEUS_RW_STALE_MARKERS: 'yes' is not true or false"],
    [{ K6_PROMETHEUS_RW_SERVER_URL: 'localhost:9090' }, "K6_PROMETHEUS_RW_SERVER_URL 'localhost:9090' is not http:// or https://"],
  ]) {
    assert.throws(() => prometheusConfig(...env(vars)), { message }, JSON.stringify(vars));
  }
});

const SCRIPT = `
import http from 'k6/http';
import { check } from 'k6';
export const options = { scenarios: { s: { executor: 'constant-vus', vus: 2, duration: '3s' } } };
export default function () {
  const r = http.get(\`\${__ENV.BASE}/items/\${__ITER % 3}\`, { tags: { name: 'items' } });
  check(r, { 'is 200': (x) => x.status === 200 });
}
`;

const value = (result) => (result.length === 1 ? Number(result[0].value[1]) : result);

test("a run into a real Prometheus: k6_http_reqs_total is the requests the server answered; the dashboards' queries of k6's series answer; native histograms", { skip: prometheusMissing || false, timeout: 120000 }, async () => {
  const prometheus = await startPrometheus();
  let answered = 0;
  const server = await rawServer(({ socket }) => {
    answered++;
    socket.write(ok());
  });
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-prw-run-'));
  try {
    writeFileSync(join(dir, 'test.js'), SCRIPT);
    const run = (testid, vars) => spawnScript(CLI, ['run', '-q', '--tag', `testid=${testid}`, '-e', `BASE=${server.url}`, '--out', 'experimental-prometheus-rw', join(dir, 'test.js')], { env: { K6_PROMETHEUS_RW_SERVER_URL: prometheus.writeURL, K6_PROMETHEUS_RW_PUSH_INTERVAL: '1s', ...vars }, timeoutMs: 60000 });
    const r = await run('a', { K6_PROMETHEUS_RW_TREND_STATS: 'p(95),p(99),avg,count' });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const at = Date.now() / 1000;
    const last = (q) => prometheus.query(q, at);
    assert.equal(value(await last('sum(last_over_time(k6_http_reqs_total{testid="a"}[1h]))')), answered);
    assert.equal(value(await last('sum(last_over_time(k6_iterations_total{testid="a"}[1h]))')), answered);
    assert.equal(value(await last('last_over_time(k6_checks_rate{testid="a", check="is 200"}[1h])')), 1);
    assert.equal(value(await last('last_over_time(k6_http_req_failed_rate{testid="a"}[1h])')), 0);
    assert.equal(value(await last('last_over_time(k6_http_req_duration_count{testid="a"}[1h])')), answered / 1000);
    // What k6's Prometheus dashboards ask (grafana.com's "k6 Prometheus"): each answers.
    for (const q of ['sum(k6_vus{testid=~"a"})', 'sum(irate(k6_http_reqs_total{testid=~"a"}[1m]))', 'max(k6_http_req_duration_p95{testid=~"a"})', 'max by (name) (k6_http_req_duration_p99{testid=~"a"})', 'avg(k6_http_req_failed_rate{testid=~"a"})', 'sum by (status) (rate(k6_http_reqs_total{testid=~"a"}[1m]))', 'avg(k6_iteration_duration_p95{testid=~"a"})', 'sum(rate(k6_data_sent_total{testid=~"a"}[1m]))', 'k6_vus_max{testid=~"a"}']) {
      assert.ok((await prometheus.query(q, at)).length > 0, q);
    }
    const [labels] = await prometheus.series('k6_http_req_duration_p95{testid="a"}');
    assert.deepEqual(Object.keys(labels).sort(), ['__name__', 'expected_response', 'method', 'name', 'proto', 'scenario', 'status', 'testid', 'url']);
    const before = answered;
    const h = await run('h', { K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM: 'true' });
    assert.equal(h.code, 0, h.stderr);
    const hat = Date.now() / 1000;
    assert.equal(value(await prometheus.query('histogram_count(sum(k6_http_req_duration_seconds{testid="h"}))', hat)), answered - before);
    assert.ok(value(await prometheus.query('histogram_quantile(0.99, sum(k6_http_req_duration_seconds{testid="h"}))', hat)) > 0);
    const [hl] = await prometheus.series('k6_http_req_duration_seconds{testid="h"}');
    assert.equal(hl.k6_feature_native_histograms, 'true');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
    await prometheus.stop();
  }
});

test('a Prometheus that is down costs the run one line: how many samples were lost and why, no password, exit 0', { timeout: 60000 }, async () => {
  const port = await freePort();
  const server = await rawServer(({ socket }) => socket.write(ok()));
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-prw-down-'));
  try {
    writeFileSync(join(dir, 'test.js'), SCRIPT.replace("duration: '3s'", "duration: '1s'"));
    const r = await spawnScript(CLI, ['run', '-q', '-e', `BASE=${server.url}`, '--out', 'experimental-prometheus-rw', join(dir, 'test.js')], { env: { K6_PROMETHEUS_RW_SERVER_URL: `http://127.0.0.1:${port}/api/v1/write?token=s3cret`, K6_PROMETHEUS_RW_PASSWORD: 's3cret', K6_PROMETHEUS_RW_USERNAME: 'u' }, timeoutMs: 30000 });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /^loadtest run: --out experimental-prometheus-rw: (\d+) of \1 samples not written \(http:\/\/127\.0\.0\.1:\d+\/api\/v1\/write: .+\)$/);
    assert.doesNotMatch(r.stderr, /s3cret/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
});

test('a bad setting of --out experimental-prometheus-rw is one line and exit 2, before the run', async () => {
  for (const [args, env, line] of [
    [['--out', 'experimental-prometheus-rw=http://h:9090'], {}, "loadtest run: --out 'experimental-prometheus-rw=http://h:9090': experimental-prometheus-rw takes its settings from K6_PROMETHEUS_RW_* (K6_PROMETHEUS_RW_SERVER_URL...), not after '='\n"],
    [['--out', 'experimental-prometheus-rw'], { K6_PROMETHEUS_RW_TREND_STATS: 'p(x)' }, "loadtest run: --out experimental-prometheus-rw: invalid percentile trend stat value 'p(x)', provide a number between 0 and 100\n"],
  ]) {
    const r = await spawnScript(CLI, ['run', ...args, 'nothing.js'], { env, timeoutMs: 30000 });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, line);
  }
});
