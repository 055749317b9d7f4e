// --out experimental-prometheus-rw and --out opentelemetry beside k6's: the same script
// (bench/influxdb/script.js, or one given) run by k6 and by loadtest on node, bun and deno with
// both outputs at once, into one Prometheus (Debian's, remote write and native histograms on)
// and one OTLP receiver (test/otlp-receiver.js, over gRPC), each run tagged testid=TOOL. Compared
// with k6's: each Prometheus series' name and label keys; what the queries of k6's Prometheus
// dashboards answer (empty or not); each OTLP metric's unit, kind, temporality, monotonicity,
// value type and attribute keys, and the resource's attribute keys.
//   node bench/push-beside-k6.js path/to/k6 [SCRIPT [FLAG...]]   (its requests go to BASE)
// Prints what differs from k6's, then a line per output.

import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startPrometheus } from '../test/prometheus-server.js';

const K6 = process.argv[2];
if (!K6) throw new Error('usage: node bench/push-beside-k6.js path/to/k6 [SCRIPT [FLAG...]]');
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SCRIPT = process.argv[3] || `${ROOT}bench/influxdb/script.js`;
const FLAGS = process.argv.slice(4);
const BIN = `${ROOT}node_modules/.bin`;
// The queries of grafana.com's "k6 Prometheus" dashboard (for k6's remote write), $testid given.
const PROMQL = [
  'sum(k6_vus{testid=~"T"})',
  'sum(irate(k6_http_reqs_total{testid=~"T"}[1m]))',
  'max(k6_http_req_duration_p99{testid=~"T"})',
  'max by (name) (k6_http_req_duration_p99{testid=~"T"})',
  'avg(k6_http_req_failed_rate{testid=~"T"})',
  'sum by (status) (rate(k6_http_reqs_total{testid=~"T"}[1m]))',
  'max(k6_iteration_duration_p99{testid=~"T"})',
  'sum(rate(k6_data_sent_total{testid=~"T"}[1m]))',
  'sum(rate(k6_data_received_total{testid=~"T"}[1m]))',
  'avg(k6_checks_rate{testid=~"T"})',
  'max(k6_vus_max{testid=~"T"})',
];

const run = (cmd, args, env) =>
  new Promise((resolve) => {
    const c = spawn(cmd, args, { env: { ...process.env, K6_NO_USAGE_REPORT: 'true', ...env } });
    let stderr = '';
    c.stderr.on('data', (d) => (stderr += d));
    c.stdout.resume();
    c.on('exit', (status) => resolve({ status, stderr }));
  });

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.end('OK'));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;
const prometheus = await startPrometheus();
const receiver = spawn('node', [`${ROOT}test/otlp-receiver.js`], { stdio: ['pipe', 'pipe', 'inherit'] });
const requests = [];
const ports = await new Promise((resolve) => {
  let first = true;
  createInterface({ input: receiver.stdout }).on('line', (line) => {
    if (first) {
      first = false;
      return resolve(JSON.parse(line));
    }
    requests.push(JSON.parse(line).request);
  });
});
const tools = {
  k6: [K6, []],
  node: [process.execPath, [`${ROOT}src/cli.js`]],
  bun: [`${BIN}/bun`, [`${ROOT}src/cli.js`]],
  deno: [`${BIN}/deno`, ['run', '-A', `${ROOT}src/cli.js`]],
};
const env = {
  K6_PROMETHEUS_RW_SERVER_URL: prometheus.writeURL,
  K6_PROMETHEUS_RW_PUSH_INTERVAL: '1s',
  K6_OTEL_GRPC_EXPORTER_INSECURE: 'true',
  K6_OTEL_GRPC_EXPORTER_ENDPOINT: `127.0.0.1:${ports.grpc}`,
  K6_OTEL_EXPORT_INTERVAL: '1s',
  K6_OTEL_METRIC_PREFIX: 'k6_',
};
const prom = {};
const otel = {};
try {
  for (const [name, [cmd, prefix]] of Object.entries(tools)) {
    const r = await run(cmd, [...prefix, 'run', '-q', ...FLAGS, '--tag', `testid=${name}`, '--out', 'experimental-prometheus-rw', '--out', 'opentelemetry', '-e', `BASE=${base}`, SCRIPT], env);
    if (r.status !== 0 || r.stderr.trim() !== '') console.log(`${name}: exit ${r.status}\n${r.stderr}`);
    const at = Date.now() / 1000;
    const series = await prometheus.series(`{testid="${name}"}`);
    const shape = {};
    for (const s of series) shape[s.__name__] = [...new Set([...(shape[s.__name__] || []), ...Object.keys(s).filter((k) => k !== '__name__' && k !== 'instance')])].sort().join(',');
    const answered = [];
    for (const q of PROMQL) answered.push((await prometheus.query(q.replaceAll('"T"', `"${name}"`), at)).length > 0 ? 'answers' : 'EMPTY');
    prom[name] = { shape, answered };
    otel[name] = otlpShape(requests.filter((q) => JSON.stringify(q).includes(`{"key":"testid","value":{"stringValue":"${name}"}}`)));
  }
} finally {
  receiver.stdin.end();
  await prometheus.stop();
  server.close();
}

/** Each metric of a tool's exports: its unit, kind, temporality, monotonicity, value type, attribute keys. */
function otlpShape(list) {
  const shape = {};
  for (const request of list) {
    for (const rm of request.resourceMetrics) {
      shape['(resource)'] = rm.resource.attributes.map((a) => a.key).sort().join(',');
      for (const sm of rm.scopeMetrics || []) {
        for (const m of sm.metrics) {
          const kind = ['sum', 'gauge', 'histogram'].find((k) => m[k]);
          const points = m[kind].dataPoints;
          const keys = [...new Set(points.flatMap((p) => p.attributes.map((a) => a.key)))].sort().join(',');
          const value = points.some((p) => p.asInt !== undefined) ? 'int' : kind === 'histogram' ? `bounds ${points[0].explicitBounds.join(' ')}` : 'double';
          shape[m.name] = `${m.unit || '-'} ${kind} ${m[kind].aggregationTemporality || ''} ${m[kind].isMonotonic ? 'monotonic' : ''} ${value} [${keys}]`;
        }
      }
    }
  }
  return shape;
}

function compare(label, byTool) {
  const names = new Set(Object.values(byTool).flatMap((s) => Object.keys(s)));
  let same = 0;
  for (const n of [...names].sort()) {
    const ref = JSON.stringify(byTool.k6[n]);
    let differs = false;
    for (const tool of ['node', 'bun', 'deno']) {
      const ours = JSON.stringify(byTool[tool][n]);
      if (ours === ref) continue;
      differs = true;
      console.log(`${label} ${n}, ${tool}:\n  k6:   ${ref}\n  ours: ${ours}`);
    }
    if (!differs) same++;
  }
  console.log(`${label}: ${same} of ${names.size} as k6's on node, bun and deno`);
}
compare('prometheus series', Object.fromEntries(Object.entries(prom).map(([t, p]) => [t, p.shape])));
for (const [tool, p] of Object.entries(prom)) console.log(`prometheus dashboard queries, ${tool}: ${p.answered.filter((a) => a === 'answers').length} of ${PROMQL.length} answer`);
compare('otlp metrics', otel);
