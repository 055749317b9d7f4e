// --out opentelemetry: the run's metrics as k6 v2.2 exports them over OTLP, read back with the
// OpenTelemetry protobuf definitions (@opentelemetry/otlp-transformer's generated module), over
// gRPC and HTTP/protobuf into a receiver (test/otlp-receiver.js, node): the names, kinds, units
// and attributes k6 gives, the cumulative http_reqs the requests the server answered; a collector
// that is down or refuses costs the run one line; a bad setting is one line and exit 2.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { OtelMetrics, BOUNDS, bucketOf } from '../src/outputs/opentelemetry/metrics.js';
import { otelConfig } from '../src/outputs/opentelemetry/config.js';
import { rawServer, spawnScript, ok } from './servers.js';
import { freePort } from '../runtimes/processes/groups.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const RECEIVER = fileURLToPath(new URL('./otlp-receiver.js', import.meta.url));
const require = createRequire(import.meta.url);
const v1 = require('@opentelemetry/otlp-transformer/build/src/generated/root.js').opentelemetry.proto.collector.metrics.v1;

const decode = (bytes) => v1.ExportMetricsServiceRequest.toObject(v1.ExportMetricsServiceRequest.decode(bytes), { longs: String, enums: String, arrays: true });
const attrs = (list) => Object.fromEntries(list.map((a) => [a.key, a.value.stringValue]));
const env = (vars) => (k) => vars[k];

/** The metrics of a decoded request by name: { unit, kind, temporality, monotonic, points }. */
function metricsOf(request) {
  const out = {};
  for (const m of request.resourceMetrics[0].scopeMetrics[0].metrics) {
    const kind = ['sum', 'gauge', 'histogram'].find((k) => m[k]);
    out[m.name] = { unit: m.unit || '', kind, temporality: m[kind].aggregationTemporality, monotonic: m[kind].isMonotonic, points: m[kind].dataPoints };
  }
  return out;
}

test("metrics as k6 records them: a Counter a monotonic cumulative Sum, a Gauge its last value, a Trend a Histogram of the SDK's bounds, a Rate NAME.total by condition; units ms and By", () => {
  const bodies = [];
  const sink = new OtelMetrics(otelConfig(env({ K6_OTEL_METRIC_PREFIX: 'k6_' }), '9.9.9'), (body, n) => bodies.push({ body, n }), 0, 1, () => 5000);
  sink.metric(0, { name: 'http_reqs', type: 'counter' });
  sink.metric(1, { name: 'http_req_duration', type: 'trend', isTime: true });
  sink.metric(2, { name: 'checks', type: 'rate' });
  sink.metric(3, { name: 'vus', type: 'gauge' });
  sink.metric(4, { name: 'data_sent', type: 'counter' });
  sink.tags(0, { status: '200', method: 'GET', group: '' });
  sink.tags(1, {});
  for (const [i, v] of [0, 3, 5, 7.5, 20000].entries()) {
    sink.sample(0, 1, 0, 1000 + i);
    sink.sample(1, v, 0, 1000 + i);
    sink.sample(2, i % 2, 0, 1000 + i);
  }
  sink.sample(3, 4, 1, 1001);
  sink.sample(3, 6, 1, 1002);
  sink.sample(4, 100, 1, 1003);
  sink.push();
  const request = decode(bodies[0].body);
  const resource = attrs(request.resourceMetrics[0].resource.attributes);
  assert.deepEqual([resource['service.name'], resource['service.version']], ['k6', '9.9.9']);
  assert.equal(request.resourceMetrics[0].scopeMetrics[0].scope.name, 'k6');
  const m = metricsOf(request);
  assert.deepEqual(Object.keys(m).sort(), ['k6_checks.total', 'k6_data_sent', 'k6_http_req_duration', 'k6_http_reqs', 'k6_vus']);
  const reqs = m.k6_http_reqs;
  assert.deepEqual([reqs.kind, reqs.temporality, reqs.monotonic, reqs.unit, reqs.points[0].asDouble], ['sum', 'AGGREGATION_TEMPORALITY_CUMULATIVE', true, '', 5]);
  assert.deepEqual(attrs(reqs.points[0].attributes), { method: 'GET', status: '200' });
  assert.deepEqual([reqs.points[0].startTimeUnixNano, reqs.points[0].timeUnixNano], ['1000000000', '5000000000']);
  assert.deepEqual([m.k6_vus.kind, m.k6_vus.points[0].asDouble], ['gauge', 6]);
  assert.deepEqual([m.k6_data_sent.unit, m.k6_data_sent.points[0].asDouble], ['By', 100]);
  const h = m.k6_http_req_duration;
  assert.deepEqual([h.kind, h.unit, h.temporality], ['histogram', 'ms', 'AGGREGATION_TEMPORALITY_CUMULATIVE']);
  const p = h.points[0];
  assert.deepEqual(p.explicitBounds, BOUNDS);
  // Upper bounds are inclusive: 0 in (-inf, 0], 5 in (0, 5], 7.5 in (5, 10], 20000 past the last.
  assert.deepEqual(p.bucketCounts, ['1', '2', '1', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '1']);
  assert.deepEqual([p.count, p.sum, p.min, p.max], ['5', 20015.5, 0, 20000]);
  const rate = m['k6_checks.total'];
  assert.deepEqual([rate.kind, rate.monotonic, rate.unit], ['sum', true, '']);
  const byCondition = Object.fromEntries(rate.points.map((x) => [attrs(x.attributes).condition, x.asInt]));
  assert.deepEqual(byCondition, { zero: '3', nonzero: '2' });
  assert.equal(bodies[0].n, 6);
  assert.deepEqual([-1, 0, 0.1, 5, 5.01, 10000, 10001].map(bucketOf), [0, 0, 1, 1, 2, 14, 15]);
});

test("k6's settings: defaults, OTEL_SERVICE_NAME and K6_OTEL_*, and what cannot be honored refused", () => {
  const d = otelConfig(env({}), '1.0.0');
  assert.deepEqual([d.serviceName, d.protocol, d.endpoint, d.insecure, d.exportInterval, d.metricPrefix], ['k6', 'grpc', 'localhost:4317', false, 10000, '']);
  const h = otelConfig(env({ OTEL_SERVICE_NAME: 'svc', K6_OTEL_EXPORTER_PROTOCOL: 'http/protobuf', K6_OTEL_HTTP_EXPORTER_INSECURE: 'true', K6_OTEL_HEADERS: 'X-A=1,X%20B=a%2Cb', K6_OTEL_HTTP_EXPORTER_USERNAME: 'u', K6_OTEL_HTTP_EXPORTER_PASSWORD: 'p', K6_OTEL_EXPORT_INTERVAL: '2s' }), '1.0.0');
  assert.deepEqual([h.serviceName, h.endpoint, h.urlPath, h.insecure, h.exportInterval], ['svc', 'localhost:4318', '/v1/metrics', true, 2000]);
  assert.deepEqual(h.headers, { 'X-A': '1', 'X B': 'a,b', Authorization: `Basic ${btoa('u:p')}` });
  for (const [vars, message] of [
    [{ K6_OTEL_EXPORTER_PROTOCOL: 'http/json' }, 'unsupported exporter protocol "http/json", only "grpc" and "http/protobuf" are supported'],
    [{ K6_OTEL_EXPORTER_PROTOCOL: 'http/protobuf', K6_OTEL_HTTP_EXPORTER_ENDPOINT: 'http://h:4318' }, 'HTTP exporter endpoint must only be host and port, no scheme'],
    [{ K6_OTEL_SERVICE_NAME: '' }, 'providing service name is required'],
    [{ K6_OTEL_HEADERS: 'nope' }, 'invalid header "nope", expected format key=value'],
    [{ K6_OTEL_GRPC_EXPORTER_INSECURE: 'maybe' }, "K6_OTEL_GRPC_EXPORTER_INSECURE: 'maybe' is not true or false"],
    [{ K6_OTEL_TLS_CERTIFICATE: '/ca.pem' }, "K6_OTEL_TLS_CERTIFICATE is not supported here: give the server's certificate a CA the runtime trusts, or leave it out"],
    [{ K6_OTEL_FLUSH_INTERVAL: '1s' }, 'K6_OTEL_FLUSH_INTERVAL is not supported here: the samples reach the exporter as the run makes them (leave it out)'],
  ]) {
    assert.throws(() => otelConfig(env(vars), '1.0.0'), { message }, JSON.stringify(vars));
  }
});

/** test/otlp-receiver.js on node: { http, grpc, requests: [...], next(n): the n-th request, stop() }. */
async function startReceiver(args = []) {
  const child = spawn('node', [RECEIVER, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const requests = [];
  let ports = null;
  let waiting = null;
  const ready = new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`otlp-receiver exited with ${code}`)));
    lines.on('line', (line) => {
      const message = JSON.parse(line);
      if (ports === null) {
        ports = message;
        return resolve();
      }
      requests.push(message);
      if (waiting) waiting();
    });
  });
  await ready;
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return {
    ...ports,
    requests,
    stop: async () => {
      child.stdin.end();
      await exited;
    },
  };
}

const SCRIPT = `
import http from 'k6/http';
import { check } from 'k6';
export const options = { scenarios: { s: { executor: 'constant-vus', vus: 2, duration: '2s' } } };
export default function () {
  const r = http.get(\`\${__ENV.BASE}/items/\${__ITER % 3}\`, { tags: { name: 'items' } });
  check(r, { 'is 200': (x) => x.status === 200 });
}
`;

/** The last request's value of `name`, summed over its points, and the requests of `testid`. */
function lastOf(requests, testid, name) {
  const mine = requests.filter((r) => JSON.stringify(r.request).includes(`"testid"},"value":{"stringValue":"${testid}"`) || JSON.stringify(r.request).includes(`"stringValue":"${testid}"`));
  const last = metricsOf(mine[mine.length - 1].request)[name];
  return { mine, metric: last, sum: last.points.reduce((s, p) => s + Number(p.asDouble ?? p.asInt ?? p.count), 0) };
}

test('a run into an OTLP receiver over gRPC and over HTTP/protobuf: http_reqs is the requests the server answered, checks.total by condition, the headers given, each --cores process its own service.instance.id', { timeout: 120000 }, async () => {
  const receiver = await startReceiver();
  let answered = 0;
  const server = await rawServer(({ socket }) => {
    answered++;
    socket.write(ok());
  });
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-otel-run-'));
  try {
    writeFileSync(join(dir, 'test.js'), SCRIPT);
    const run = (testid, vars, extra = []) => spawnScript(CLI, ['run', '-q', ...extra, '--tag', `testid=${testid}`, '-e', `BASE=${server.url}`, '--out', 'opentelemetry', join(dir, 'test.js')], { env: { K6_OTEL_EXPORT_INTERVAL: '500ms', K6_OTEL_HEADERS: 'x-team=perf', ...vars }, timeoutMs: 60000 });
    const grpc = await run('g', { K6_OTEL_GRPC_EXPORTER_INSECURE: 'true', K6_OTEL_GRPC_EXPORTER_ENDPOINT: `127.0.0.1:${receiver.grpc}` });
    assert.equal(grpc.code, 0, grpc.stderr);
    assert.equal(grpc.stderr, '');
    const g = lastOf(receiver.requests, 'g', 'http_reqs');
    assert.ok(g.mine.length >= 2, `exports: ${g.mine.length}`);
    assert.ok(g.mine.every((r) => r.transport === 'grpc' && r.headers['x-team'] === 'perf'));
    assert.equal(g.sum, answered);
    assert.equal(lastOf(receiver.requests, 'g', 'iterations').sum, answered);
    const checks = lastOf(receiver.requests, 'g', 'checks.total').metric;
    assert.deepEqual(checks.points.map((p) => attrs(p.attributes).condition), ['nonzero']);
    const duration = lastOf(receiver.requests, 'g', 'http_req_duration').metric;
    assert.deepEqual([duration.kind, duration.unit], ['histogram', 'ms']);
    assert.deepEqual(Object.keys(attrs(duration.points[0].attributes)).sort(), ['expected_response', 'method', 'name', 'proto', 'scenario', 'status', 'testid', 'url']);
    const before = answered;
    const web = await run('h', { K6_OTEL_EXPORTER_PROTOCOL: 'http/protobuf', K6_OTEL_HTTP_EXPORTER_INSECURE: 'true', K6_OTEL_HTTP_EXPORTER_ENDPOINT: `127.0.0.1:${receiver.http}`, K6_OTEL_HTTP_EXPORTER_USERNAME: 'u', K6_OTEL_HTTP_EXPORTER_PASSWORD: 'pw' });
    assert.equal(web.code, 0, web.stderr);
    const h = lastOf(receiver.requests, 'h', 'http_reqs');
    assert.ok(h.mine.every((r) => r.transport === 'http' && r.headers.authorization === `Basic ${btoa('u:pw')}` && r.headers['x-team'] === 'perf'));
    assert.equal(h.sum, answered - before);
    // --cores 2: each process exports its own series, told apart by service.instance.id.
    const cores = await run('c', { K6_OTEL_GRPC_EXPORTER_INSECURE: 'true', K6_OTEL_GRPC_EXPORTER_ENDPOINT: `127.0.0.1:${receiver.grpc}` }, ['--cores', '2']);
    assert.equal(cores.code, 0, cores.stderr);
    const mine = receiver.requests.filter((r) => JSON.stringify(r.request).includes('"stringValue":"c"'));
    const ids = new Set(mine.map((r) => attrs(r.request.resourceMetrics[0].resource.attributes)['service.instance.id']));
    assert.ok(ids.size >= 2, [...ids].join());
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
    await receiver.stop();
  }
});

test('a collector that is down or refuses costs the run one line: how many data points were lost and why, exit 0', { timeout: 60000 }, async () => {
  const port = await freePort();
  const refusing = await startReceiver(['--fail-grpc', '7']);
  const server = await rawServer(({ socket }) => socket.write(ok()));
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-otel-down-'));
  try {
    writeFileSync(join(dir, 'test.js'), SCRIPT.replace("duration: '2s'", "duration: '1s'"));
    for (const [vars, why] of [
      [{ K6_OTEL_EXPORTER_PROTOCOL: 'http/protobuf', K6_OTEL_HTTP_EXPORTER_INSECURE: 'true', K6_OTEL_HTTP_EXPORTER_ENDPOINT: `127.0.0.1:${port}`, K6_OTEL_HTTP_EXPORTER_PASSWORD: 's3cret', K6_OTEL_HTTP_EXPORTER_USERNAME: 'u' }, /http:\/\/127\.0\.0\.1:\d+\/v1\/metrics: .+/],
      [{ K6_OTEL_GRPC_EXPORTER_INSECURE: 'true', K6_OTEL_GRPC_EXPORTER_ENDPOINT: `127.0.0.1:${port}` }, /grpc:\/\/127\.0\.0\.1:\d+: rpc error: code = Unavailable desc = .+/],
      [{ K6_OTEL_GRPC_EXPORTER_INSECURE: 'true', K6_OTEL_GRPC_EXPORTER_ENDPOINT: `127.0.0.1:${refusing.grpc}` }, /grpc:\/\/127\.0\.0\.1:\d+: rpc error: code = PermissionDenied desc = the collector says no/],
    ]) {
      const r = await spawnScript(CLI, ['run', '-q', '-e', `BASE=${server.url}`, '--out', 'opentelemetry', join(dir, 'test.js')], { env: vars, timeoutMs: 30000 });
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0], /^loadtest run: --out opentelemetry: (\d+) of \1 data points not written \((.+)\)$/);
      assert.match(lines[0], why);
      assert.doesNotMatch(r.stderr, /s3cret/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
    await refusing.stop();
  }
});

test('a bad setting of --out opentelemetry is one line and exit 2, before the run', async () => {
  for (const [args, vars, line] of [
    [['--out', 'opentelemetry=127.0.0.1:4317'], {}, "loadtest run: --out 'opentelemetry=127.0.0.1:4317': opentelemetry takes its settings from K6_OTEL_* (K6_OTEL_EXPORTER_PROTOCOL, K6_OTEL_GRPC_EXPORTER_ENDPOINT...), not after '='\n"],
    [['--out', 'experimental-opentelemetry'], { K6_OTEL_EXPORTER_PROTOCOL: 'udp' }, 'loadtest run: --out opentelemetry: unsupported exporter protocol "udp", only "grpc" and "http/protobuf" are supported\n'],
  ]) {
    const r = await spawnScript(CLI, ['run', ...args, 'nothing.js'], { env: vars, timeoutMs: 30000 });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, line);
  }
});
