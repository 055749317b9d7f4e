// Records what k6 itself makes of each script here: run by hand, not by the suite, with a k6
// binary (`node test/k6-corpus/record.js [K6] [script.js ...]`, or K6=path; /tmp/k6v2/k6 by
// default). Each script runs twice against test/httpbin.js on 127.0.0.1, and what both runs
// agree on is written to expected.json: the exit code, the server's request counts, and the
// figures of the summary export that do not depend on timing (figuresOf below). A figure that
// differs between the two runs stops the recording: the script is not deterministic.
// test/k6-corpus.test.js runs the same scripts with `loadtest run` and compares.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import process from 'node:process';
import { startHttpbin } from '../httpbin.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));

// Counters whose count is bytes (headers differ between tools) or that k6 samples on a clock.
const TIMING_COUNTERS = new Set(['data_sent', 'data_received', 'dropped_iterations']);
// Built-in Trends and Gauges: times, and VU counts k6 samples once a second.
const BUILTIN = new Set(['vus', 'vus_max', 'iteration_duration', 'group_duration', 'http_req_duration', 'http_req_blocked', 'http_req_connecting', 'http_req_tls_handshaking', 'http_req_sending', 'http_req_waiting', 'http_req_receiving', 'ws_connecting', 'ws_session_duration', 'ws_ping']);

const baseName = (key) => key.replace(/\{.*$/, '');

/**
 * The figures of a summary export (k6's legacy --summary-export JSON, ours the same shape) that a
 * deterministic script gives on every run: counts of every Counter and sub-metric of one, passes
 * and fails of every Rate, a custom Gauge's and a custom Trend's values, each check's passes and
 * fails by its path, the group paths, and which thresholds failed. Groups and checks may be
 * objects by name (k6) or arrays (loadtest at first): both read the same.
 */
export function figuresOf(summary) {
  const counters = {};
  const rates = {};
  const gauges = {};
  const trends = {};
  const thresholds = {};
  for (const [key, v] of Object.entries(summary.metrics || {})) {
    const name = baseName(key);
    if (v.thresholds) thresholds[key] = Object.fromEntries(Object.entries(v.thresholds).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    if ('passes' in v) rates[key] = { passes: v.passes, fails: v.fails };
    else if ('count' in v) {
      if (!TIMING_COUNTERS.has(name)) counters[key] = v.count;
    } else if (BUILTIN.has(name)) continue;
    else if ('avg' in v) trends[key] = { min: v.min, max: v.max, avg: v.avg };
    else if ('value' in v) gauges[key] = { value: v.value, min: v.min, max: v.max };
  }
  const checks = {};
  const groups = [];
  const walk = (g) => {
    for (const c of Object.values(g.checks || {})) checks[c.path] = { passes: c.passes, fails: c.fails };
    for (const sub of Object.values(g.groups || {})) {
      groups.push(sub.path);
      walk(sub);
    }
  };
  walk(summary.root_group || {});
  groups.sort();
  return { counters: sorted(counters), rates: sorted(rates), gauges: sorted(gauges), trends: sorted(trends), checks: sorted(checks), groups, thresholds: sorted(thresholds) };
}

// The scripts recorded with k6 v1's full summary (each group and scenario apart); the others
// with its default, compact.
const FULL = new Set(['checks_groups.js', 'scenarios.js', 'setup_teardown.js', 'tagging.js', 'websocket.js']);
export const summaryModeOf = (script) => (FULL.has(script) ? 'full' : 'compact');

/**
 * The lines of k6 v1's end-of-test summary that do not depend on timing: durations, bytes,
 * rates per second and percentiles masked as T, the spaces that line them up (not those that
 * indent) as one, and the
 * vus lines (k6 samples them once a second) left out.
 */
export function summaryLines(stdout) {
  return stdout
    .split('\n')
    .map((line) =>
      line
        .replace(/[0-9]+(\.[0-9]+)?(µs|ms|s|ns| B| kB| MB|\/s)\b/g, 'T')
        .replace(/\b(med|p\([0-9.]+\))=[^ ]+/g, '$1=T')
        .replace(/\.{3,}:/, ':')
        .replace(/(\S) +/g, '$1 ')
        .trimEnd(),
    )
    .filter((line) => !/^ +(vus|vus_max|dropped_iterations):/.test(line));
}

const sorted = (o) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

// A quoted logfmt value's text (Go's %q escapes, which JSON reads for what a message holds).
function unquoted(text) {
  try {
    return JSON.parse(`"${text}"`);
  } catch {
    return text;
  }
}

/** What the script wrote with console.*, from k6's log lines on stderr: [level, message]. */
export function consoleLines(stderr) {
  const out = [];
  for (const line of stderr.split('\n')) {
    if (!/\bsource=console\b/.test(line)) continue;
    const level = /\blevel=(\w+)/.exec(line);
    const msg = /\bmsg="((?:[^"\\]|\\.)*)"/.exec(line) || /\bmsg=(\S*)/.exec(line);
    out.push([level ? level[1] : '', msg ? unquoted(msg[1]) : '']);
  }
  return out.sort();
}

/** The scripts of the corpus: every .js file here but this one. */
export function corpusScripts() {
  return readdirSync(HERE)
    .filter((f) => /\.(js|ts)$/.test(f) && !f.startsWith('.') && f !== basename(fileURLToPath(import.meta.url)))
    .sort();
}

function run(command, args, timeoutMs = 60000) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** One run of k6 on `script` against a fresh httpbin: exit code, counts, figures, console lines. */
async function recordOnce(k6, script) {
  const server = await startHttpbin(0);
  const dir = mkdtempSync(join(tmpdir(), 'k6-corpus-'));
  try {
    const exportFile = join(dir, 'summary.json');
    const r = await run(k6, ['run', '-q', '--no-usage-report', '--summary-mode', summaryModeOf(script), '-e', `BASE=${server.url}`, '--summary-export', exportFile, join(HERE, script)]);
    let summary = {};
    try {
      summary = JSON.parse(readFileSync(exportFile, 'utf8'));
    } catch {
      throw new Error(`${script}: k6 wrote no summary export (exit ${r.code})\n${r.stderr}`);
    }
    const counts = Object.fromEntries([...server.counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    const entry = { exitCode: r.code, counts, ...figuresOf(summary), summary: summaryLines(r.stdout) };
    const lines = consoleLines(r.stderr);
    if (lines.length) entry.console = lines;
    return entry;
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const args = process.argv.slice(2);
  const k6 = args[0] && !args[0].endsWith('.js') ? args.shift() : process.env.K6 || '/tmp/k6v2/k6';
  const version = (await run(k6, ['version'])).stdout.trim();
  const only = args.map((a) => basename(a));
  const file = join(HERE, 'expected.json');
  let expected = {};
  try {
    expected = JSON.parse(readFileSync(file, 'utf8')).scripts || {};
  } catch {
    expected = {};
  }
  let unstable = 0;
  for (const script of corpusScripts()) {
    if (only.length && !only.includes(script)) continue;
    const first = await recordOnce(k6, script);
    const second = await recordOnce(k6, script);
    if (!isDeepStrictEqual(first, second)) {
      unstable++;
      console.error(`${script}: two runs of k6 differ, not recorded\n${JSON.stringify(first)}\n${JSON.stringify(second)}`);
      continue;
    }
    expected[script] = first;
    console.log(`${script}: exit ${first.exitCode}, ${Object.values(first.counts).reduce((a, b) => a + b, 0)} requests`);
  }
  const scripts = Object.fromEntries(Object.entries(expected).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  writeFileSync(file, JSON.stringify({ recordedWith: version, scripts }, null, 2) + '\n');
  if (unstable) process.exit(1);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
