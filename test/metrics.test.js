// --metrics: the run's figures in Prometheus' text format while it goes: the format checked by
// promtool, and a real Prometheus scraping a run once a second, whose answers are the run's own.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../runtimes/processes/groups.js';
import { Histogram } from '../src/run/histogram.js';
import { metricsText, cumulativeBuckets, BOUNDARIES } from '../src/results/metrics-text.js';
import { rawServer, ok, spawnScript, startScript, paced } from './servers.js';
import { oneRuntimeAnd } from './scope.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const has = (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const PROMTOOL = has('promtool');
const PROMETHEUS = has('prometheus');

const snapshot = (histogram) => ({
  sent: 12,
  completed: 10,
  failed: 2,
  bytes: 4567,
  errors: { ECONNRESET: 1, 'check body: \'a "b"\' not found': 1 },
  statusCounts: { 200: 9, 503: 1 },
  connections: 3,
  inFlight: 0,
  targetRps: 100,
  achievedRps: 97,
  histogram,
  elapsedSeconds: 1.5,
  done: true,
});

test('the text: counters by status and reason, gauges, a cumulative histogram in seconds; labels escaped', () => {
  const h = new Histogram();
  for (const us of [50, 90, 300, 2000, 2000, 7000, 20000, 3e6, 20e6]) h.record(us);
  const text = metricsText(snapshot(h), { run: 'r"1\\', runtime: 'node 20', core: '0' });
  const labels = 'run="r\\"1\\\\",runtime="node 20",core="0"';
  assert.ok(text.includes(`loadtest_requests_sent_total{${labels}} 12\n`), text);
  assert.ok(text.includes(`loadtest_requests_completed_total{${labels},status="503"} 1\n`));
  assert.ok(text.includes(`loadtest_requests_failed_total{${labels},reason="check body: 'a \\"b\\"' not found"} 1\n`));
  assert.ok(text.includes(`loadtest_target_requests_per_second{${labels}} 100\n`));
  assert.ok(text.includes('# TYPE loadtest_latency_seconds histogram\n'));
  assert.deepEqual(cumulativeBuckets(h), [2, 2, 3, 3, 5, 5, 6, 7, 7, 7, 7, 7, 7, 7, 8, 8, 9]);
  assert.ok(text.includes(`loadtest_latency_seconds_bucket{${labels},le="0.0001"} 2\n`));
  assert.ok(text.includes(`loadtest_latency_seconds_bucket{${labels},le="+Inf"} 9\n`));
  assert.ok(text.includes(`loadtest_latency_seconds_count{${labels}} 9\n`));
  assert.equal(BOUNDARIES.length, 16);
});

test('the endpoint while a run goes: promtool accepts it; the counts grow; one line on bad HOST:PORT', { skip: PROMTOOL ? false : 'no promtool (apt-get install prometheus)' }, async () => {
  const server = await rawServer(paced());
  try {
    // -t 3: a loaded machine may answer the first scrape late in the run (a clean-clone run under
    // node: the endpoint gone, with a linger of 0.5, before a second scrape saw the counts grow).
    const { run, port, first } = await withMetrics([server.url, '-t', '3', '-c', '2', '-k', '--quiet'], ['--metrics-linger', '2']);
    assert.ok(first, 'the endpoint answered');
    const checked = spawnSync('promtool', ['check', 'metrics'], { input: first });
    assert.equal(checked.status, 0, `promtool: ${checked.stdout}${checked.stderr}`);
    const sent = (text) => Number(/loadtest_requests_sent_total\{[^}]*\} (\d+)/.exec(text)[1]);
    const grew = await untilAsync(async () => {
      const text = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text(), () => null);
      return text !== null && sent(text) > sent(first);
    }, 10000);
    assert.ok(grew, 'the counts grow while the run goes');
    const done = await run.done;
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stderr, new RegExp(`^loadtest: metrics at http://127\\.0\\.0\\.1:${port}/metrics\\n`));
    const bad = await spawnScript(CLI, [server.url, '-n', '1', '--metrics', 'nonsense']);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, "loadtest: --metrics 'nonsense': expected HOST:PORT, e.g. 127.0.0.1:9464 or :9464 (every interface)\n");
  } finally {
    await server.close();
  }
});

// The endpoint on each runtime is the test above's: what Prometheus makes of its text is the same
// whichever runtime served it.
test('a real Prometheus scrapes a 3 s run once a second: its completed count is the run\'s, its p99 within a bucket', { skip: oneRuntimeAnd(PROMETHEUS ? false : 'no prometheus (apt-get install prometheus)'), timeout: 120000 }, async () => {
  const server = await rawServer(({ socket, server: s }) => setTimeout(() => socket.write(ok()), s.requests % 10 === 0 ? 12 : 0));
  try {
    // A port found free may be taken before it is listened on (by a connection's own port, when
    // the machine's ephemeral range holds it: the run then said EADDRINUSE at once, in CI on bun);
    // then the whole again on new ports.
    for (let attempt = 1; ; attempt++) {
      const done = await scrapedRun(server);
      if (done) return;
      assert.ok(attempt < 3, 'a port taken three times over');
    }
  } finally {
    await server.close();
  }
});

// A run scraped by a new Prometheus, checked; false when a port it was given was taken.
async function scrapedRun(server) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-prometheus-'));
  const metricsPort = await freePort();
  const webPort = await freePort();
  writeFileSync(join(dir, 'prometheus.yml'), `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: loadtest\n    static_configs:\n      - targets: ['127.0.0.1:${metricsPort}']\n`);
  const prometheus = spawn('prometheus', [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${webPort}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  prometheus.stderr.on('data', (chunk) => (log += chunk));
  const api = `http://127.0.0.1:${webPort}`;
  try {
    const ready = await untilAsync(() => prometheus.exitCode !== null || fetch(`${api}/-/ready`).then((r) => r.ok, () => false), 30000);
    if (prometheus.exitCode !== null && /address already in use/.test(log)) return false;
    assert.ok(ready && prometheus.exitCode === null, `prometheus ready: ${log.slice(-2000)}`);
    const run = await spawnScript(CLI, [server.url, '-t', '3', '-c', '4', '-k', '--json', '--metrics', `127.0.0.1:${metricsPort}`, '--metrics-linger', '3', '--run-name', 'three'], { timeoutMs: 60000 });
    if (run.code === 2 && /cannot listen \(EADDRINUSE\)/.test(run.stderr)) return false;
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    const query = async (q) => {
      const body = await (await fetch(`${api}/api/v1/query?query=${encodeURIComponent(q)}`)).json();
      assert.equal(body.status, 'success', JSON.stringify(body));
      return body.data.result.length ? Number(body.data.result[0].value[1]) : null;
    };
    // Over the last minute: once the run has exited, Prometheus' next scrape fails and marks the
    // series stale, and an instant query at that moment finds nothing.
    assert.equal(await query('max(max_over_time(loadtest_run_done{run="three"}[1m]))'), 1, 'a scrape saw the run done');
    const completed = await query('sum(max_over_time(loadtest_requests_completed_total{run="three"}[1m]))');
    assert.equal(completed, result.totalRequests, 'the last scrape saw the totals');
    const p99 = await query('histogram_quantile(0.99, sum by (le) (max_over_time(loadtest_latency_seconds_bucket{run="three"}[1m])))');
    const own = result.percentiles['99'] / 1000;
    const k = BOUNDARIES.findIndex((b) => own <= b);
    const low = k > 1 ? BOUNDARIES[k - 2] : 0;
    const high = BOUNDARIES[Math.min(BOUNDARIES.length - 1, k + 1)];
    assert.ok(p99 >= low && p99 <= high, `PromQL p99 ${p99} s, the run's ${own} s: more than a bucket apart`);
    return true;
  } finally {
    if (prometheus.exitCode === null) prometheus.kill('SIGTERM');
    await new Promise((resolve) => (prometheus.exitCode !== null ? resolve() : prometheus.once('exit', resolve)));
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The CLI started with `--metrics` on a free port, once its endpoint answered (`first`, its
 * text; null if it never did); on another port should that one be taken before the run listened
 * on it (a connection's own port, when the machine's ephemeral range holds it).
 */
async function withMetrics(args, more) {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const run = startScript(CLI, [...args, '--metrics', `127.0.0.1:${port}`, ...more]);
    let exited = null;
    run.done.then((r) => (exited = r), () => {});
    let first = null;
    for (let i = 0; i < 400 && first === null && exited === null; i++) {
      first = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => (r.ok ? r.text() : null), () => null);
      if (first === null) await new Promise((r) => setTimeout(r, 25));
    }
    if (first === null && attempt < 3 && exited !== null && exited.code === 2 && /cannot listen \(EADDRINUSE\)/.test(exited.stderr)) continue;
    return { run, port, first };
  }
}

async function untilAsync(condition, ms) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

test('--cores 2: the parent serves each child as its series (core="0", "1"); once done they sum to the result', { timeout: 60000 }, async () => {
  const server = await rawServer(paced());
  try {
    const { run, port, first } = await withMetrics([server.url, '-t', '1', '-c', '4', '-k', '--cores', '2', '--json'], ['--metrics-linger', '2']);
    let text = first || '';
    const done = (t) => (t.match(/loadtest_run_done\{[^}]*\} 1/g) || []).length === 2;
    for (let i = 0; i < 600 && !done(text); i++) {
      text = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text(), () => '');
      if (!done(text)) await new Promise((r) => setTimeout(r, 25));
    }
    assert.ok(done(text), `both children done in:\n${text}`);
    const result = JSON.parse((await run.done).stdout);
    const completed = [...text.matchAll(/^loadtest_requests_completed_total\{[^}]*core="(\d)"[^}]*\} (\d+)$/gm)];
    assert.deepEqual(completed.map((m) => m[1]).sort(), ['0', '1']);
    assert.equal(completed.reduce((sum, m) => sum + Number(m[2]), 0), result.totalRequests);
    if (PROMTOOL) assert.equal(spawnSync('promtool', ['check', 'metrics'], { input: text }).status, 0);
  } finally {
    await server.close();
  }
});
