// Our k6 v1 summary text beside k6 v1.3's own renderer, character for character, on runs made
// up at random: metrics of every type and unit (with sub-metrics, custom ones, thresholds of
// every aggregation), checks that pass and fail, groups within groups, scenarios; in colour and
// not. k6's
// renderer (internal/js/summary.js, AGPL) is read from a fetched mirror of grafana/k6 and run
// here, never copied into the project.
//   node bench/summary-vs-k6.js [RUNS] [MIRROR_GIT_DIR]
import { execFileSync } from 'node:child_process';
import process from 'node:process';
import { summaryText } from '../src/script/summary/summary.js';
import { summaryReport } from '../src/script/summary/summary-report.js';
import { Breakdown } from '../src/script/summary/breakdown.js';
import { Metric } from '../src/script/metrics/metrics.js';

const RUNS = Number(process.argv[2] || 300);
const MIRROR = process.argv[3] || '/work/.mirror/grafana+k6/repo';

const source = execFileSync('git', ['--git-dir', MIRROR, 'show', 'v1.3.0:internal/js/summary.js'], { encoding: 'utf8' });
const k6 = {};
new Function('exports', source)(k6);

// mulberry32: the same runs every time
let seed = 7;
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (a) => a[Math.floor(random() * a.length)];
const int = (n) => Math.floor(random() * n);
// Values across every unit's boundaries: ns, µs, ms, s, minutes, hours; bytes to GB.
const value = () => pick([0, 0.0004, 0.5, 3.14159, 42, 999.999, 1234.5, 65432.1, 4e6, 9e6 * random(), random() * 100, 1e9 * random()]);

const BUILTIN = [['http_reqs', 'counter'], ['http_req_duration', 'trend', true], ['http_req_blocked', 'trend', true], ['http_req_waiting', 'trend', true], ['http_req_failed', 'rate'], ['iterations', 'counter'], ['iteration_duration', 'trend', true], ['data_sent', 'counter'], ['data_received', 'counter'], ['vus', 'gauge'], ['ws_sessions', 'counter'], ['ws_connecting', 'trend', true], ['grpc_req_duration', 'trend', true], ['checks', 'rate'], ['group_duration', 'trend', true]];
const CUSTOM = ['orders', 'basket', 'Latency', 'zeta_time', 'ok_rate', 'Ä_umlaut'];
const STATS = [['avg', 'min', 'med', 'max', 'p(90)', 'p(95)'], ['avg', 'p(99)', 'count'], ['min', 'max', 'p(99.9)']];

function madeUpRun() {
  const trendStats = pick(STATS);
  const unit = pick(['', '', 'ms', 's', 'us']);
  const seconds = 0.5 + random() * 200;
  const metrics = new Map();
  for (const [name, type, isTime] of BUILTIN) if (random() < 0.7) metrics.set(name, new Metric(name, type, isTime));
  for (const name of CUSTOM) if (random() < 0.4) metrics.set(name, new Metric(name, pick(['counter', 'gauge', 'rate', 'trend']), random() < 0.5));
  const subs = [];
  for (const m of metrics.values()) if (random() < 0.3) subs.push(m.sub(pick(['status:200', 'kind:gift', 'scenario:buy', 'expected_response:true'])));
  const breakdown = new Breakdown();
  const byName = new Map();
  const groups = ['::cart', '::cart::pay', '::browse', '', ''];
  const checks = ['status 200', 'has a body', 'fast enough', 'ünïcode ✓'];
  for (let i = 0; i < 60; i++) {
    const m = pick([...metrics.values()]);
    const tags = { scenario: pick(['default', 'default', 'buy', 'browse']), group: pick(groups) };
    let v = m.type === 'rate' ? int(2) : value();
    if (m.type === 'counter' && m.name.startsWith('http_reqs')) v = 1;
    if (m.name === 'checks') {
      tags.check = pick(checks);
      const c = byName.get(tags.check) || { name: tags.check, passes: 0, fails: 0 };
      byName.set(tags.check, c);
      if (v) c.passes++;
      else c.fails++;
    }
    m.add(v, tags);
    breakdown.add(m, v, tags);
  }
  const data = { options: { summaryTrendStats: trendStats, summaryTimeUnit: unit }, state: { testRunDurationMs: seconds * 1000 }, metrics: {} };
  const entry = (name, m, sink) => {
    if (sink.count === 0) return;
    // As summary-data.js gives them: a Trend's values also those its thresholds name.
    const e = { type: m.type, contains: m.isTime ? 'time' : name.startsWith('data_') ? 'data' : 'default', values: sink.values(seconds, m.type === 'trend' ? [...new Set([...trendStats, 'avg', 'p(99)', 'max'])] : undefined) };
    if (random() < 0.3) {
      const agg = { counter: ['count', 'rate'], gauge: ['value'], rate: ['rate'], trend: ['avg', 'p(99)', 'max'] }[m.type];
      e.thresholds = { [`${pick(agg)}<${int(100)}`]: { ok: random() < 0.5 }, [` ${pick(agg)} > 1 `]: { ok: true } };
    }
    data.metrics[name] = e;
  };
  for (const m of metrics.values()) {
    entry(m.name, m, m.sink);
    for (const s of m.subs) entry(s.name, m, s.sink);
  }
  if (data.metrics.checks) data.metrics.checks.values = { ...data.metrics.checks.values };
  return { data, state: { checksByName: byName, registry: { breakdown } }, subs };
}

// Our report in the shape k6's renderer reads (its Go structs as JavaScript objects).
function k6Shape(report) {
  const sectioned = (m) => ({ http: m.http, execution: m.execution, network: m.network, browser: m.browser, web_vitals: m.web_vitals, grpc: m.grpc, websocket: m.websocket, custom: m.custom });
  const checks = (c) => (c === null ? undefined : { metrics: c.metrics, ordered_checks: c.ordered });
  const part = (p) => ({ checks: checks(p.checks), metrics: sectioned(p.metrics), groups: Object.fromEntries(p.groups.map(([n, g]) => [n, part(g)])) });
  const thresholds = Object.fromEntries(Object.entries(report.thresholds).map(([name, t]) => [name, { metric: { name, ...t.metric }, thresholds: t.thresholds }]));
  return { thresholds, checks: checks(report.checks), metrics: sectioned(report.metrics), groups: Object.fromEntries(report.groups.map(([n, g]) => [n, part(g)])), scenarios: Object.fromEntries(report.scenarios.map(([n, g]) => [n, part(g)])) };
}

let same = 0;
for (let i = 0; i < RUNS; i++) {
  const run = madeUpRun();
  const color = i % 2 === 1;
  for (const mode of ['compact', 'full']) {
    const ours = summaryText(run.data, { state: run.state, mode, color });
    const report = summaryReport(run.data, run.state, mode);
    const theirs = `\n${k6.textSummary(k6Shape(report), { enableColors: color, summaryTrendStats: run.data.options.summaryTrendStats, summaryTimeUnit: run.data.options.summaryTimeUnit })}\n\n`;
    if (ours === theirs) {
      same++;
      continue;
    }
    const a = ours.split('\n');
    const b = theirs.split('\n');
    const at = a.findIndex((line, j) => line !== b[j]);
    console.log(`run ${i} (${mode}) differs at line ${at + 1}:\n  ours: ${JSON.stringify(a[at])}\n  k6's: ${JSON.stringify(b[at])}`);
    process.exitCode = 1;
    if (process.exitCode && same < i) break;
  }
}
console.log(`${same} of ${RUNS * 2} summaries the same as k6 v1.3's renderer gives`);
