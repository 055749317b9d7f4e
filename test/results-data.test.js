// Results as data: --json (one document on stdout, nothing else), --json-file beside the report,
// --shard i/n with --start-at over separate processes, and `loadtest merge` adding them up exactly.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { Histogram } from '../src/run/histogram.js';
import { shareOf } from '../src/run/cores.js';
import { rawServer, ok, spawnScript } from './servers.js';
import { ONE_RUNTIME } from './scope.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const runCli = (args, options) => spawnScript(CLI, args, options);
const show = (r) => `exit ${r.code}\nstdout: ${r.stdout.slice(0, 2000)}\nstderr: ${r.stderr}`;

// The fields README documents for the JSON document.
const FIELDS = [
  'url', 'cores', 'maxRequests', 'maxSeconds', 'concurrency', 'agent', 'runtime', 'socket', 'totalRequests', 'totalErrors',
  'totalTimeSeconds', 'meanLatencyMs', 'minLatencyMs', 'maxLatencyMs', 'percentiles', 'effectiveRps', 'rps', 'errorCodes',
  'statusCodes', 'requestsSent', 'inFlight', 'retries', 'connections', 'errorsByReason', 'customErrors', 'bytesReceived',
  'bytesPerSecond', 'startTime', 'series', 'latencyHistogram',
];

function tempDir() {
  return mkdtempSync(join(tmpdir(), 'loadtest-results-'));
}

test('--json: stdout is one JSON document with every documented field, and nothing else', async () => {
  const server = await rawServer(({ socket, server: s }) => socket.write(s.requests % 4 === 0 ? ok('x').replace('200 OK', '500 Oops') : ok()));
  try {
    const r = await runCli(['-n', '200', '-c', '4', '-k', '--json', server.url]);
    assert.equal(r.code, 0, show(r));
    const doc = JSON.parse(r.stdout);
    assert.equal(r.stdout.trim(), JSON.stringify(doc), 'only the document on stdout');
    for (const field of FIELDS) assert.ok(field in doc, `field ${field}`);
    assert.equal(doc.totalRequests, 200);
    assert.equal(doc.totalErrors, 50);
    assert.deepEqual(doc.statusCodes, { 200: 150, 500: 50 });
    assert.equal(doc.latencyHistogram.count, 200);
    assert.equal(doc.latencyHistogram.buckets.filter((_, k) => k % 2 === 1).reduce((a, b) => a + b, 0), 200);
    // the histogram in the document gives the same percentiles as the run did
    const h = Histogram.fromJSON({ ...doc.latencyHistogram, pairs: doc.latencyHistogram.buckets });
    assert.equal(Math.round(h.percentile(99)) / 1000, doc.percentiles['99']);
    assert.equal(doc.series.reduce((a, e) => a + e.completed, 0), 200);
    assert.equal(server.requests, 200);
  } finally {
    await server.close();
  }
});

test('--json when nothing answers: the document still comes, with the one-line error and exit 1', async () => {
  const server = await rawServer(() => {});
  const url = server.url;
  await server.close();
  const r = await runCli(['-n', '5', '--json', url]);
  assert.equal(r.code, 1, show(r));
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.errorsByReason.ECONNREFUSED > 0, true);
  assert.match(r.stderr.trim(), /^loadtest: connection refused by 127\.0\.0\.1:\d+$/);
});

test('--json-file: the report on stdout, the same figures in the file', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  const dir = tempDir();
  try {
    const file = join(dir, 'result.json');
    const r = await runCli(['-n', '120', '-c', '3', '-k', '--json-file', file, server.url]);
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /Completed requests: +120\n/);
    assert.match(r.stdout, /Received: +[\d.]+ KiB/);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(doc.totalRequests, 120);
    assert.match(r.stdout, new RegExp(`Effective rps: +${doc.effectiveRps}\\n`));
    const bad = await runCli(['-n', '1', '--json-file', join(dir, 'no', 'such', 'dir.json'), server.url]);
    assert.equal(bad.code, 1, show(bad));
    assert.match(bad.stderr.trim(), /^loadtest: --json-file: cannot write .*ENOENT/);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('shares of shares compose: 3 shards of 2 cores send every index once', () => {
  const run = { url: 'http://x/', maxRequests: 100, concurrency: 12, requestsPerSecond: 60 };
  const processes = [0, 1, 2].flatMap((s) => [0, 1].map((c) => shareOf(shareOf(run, s, 3), c, 2)));
  const indexes = processes.flatMap((p) => Array.from({ length: p.maxRequests }, (_, k) => k * p.indexStride + p.indexOffset));
  assert.deepEqual(indexes.sort((a, b) => a - b), [...Array(100).keys()]);
  assert.equal(processes.reduce((a, p) => a + p.concurrency, 0), 12);
  assert.equal(processes.reduce((a, p) => a + p.requestsPerSecond, 0), 60);
});

test('3 shards as separate processes, started together, merged: the totals the server counted and exact percentiles', async () => {
  const server = await rawServer(({ socket, server: s }) => {
    // latencies spread over two orders of magnitude, so that percentiles differ between shards
    setTimeout(() => socket.write(ok()), s.requests % 7 === 0 ? 12 : 0);
  });
  const dir = tempDir();
  try {
    // Every runtime is usually up and prepared by then; one that is not starts late, which changes
    // none of the figures checked.
    const startAt = Date.now() + 1200;
    const files = [1, 2, 3].map((i) => join(dir, `shard-${i}.json`));
    const runs = await Promise.all(files.map((file, i) => runCli(['-n', '1500', '-c', '6', '-k', '--index', 'N', '--shard', `${i + 1}/3`, '--start-at', String(startAt), '--json-file', file, '--quiet', server.url + 'r/N'])));
    for (const r of runs) assert.equal(r.code, 0, show(r));
    const docs = files.map((f) => JSON.parse(readFileSync(f, 'utf8')));
    assert.deepEqual(docs.map((d) => d.shard), ['1/3', '2/3', '3/3']);
    assert.deepEqual(docs.map((d) => d.totalRequests), [500, 500, 500]);
    assert.deepEqual(docs.map((d) => d.startTime), [startAt, startAt, startAt], 'they started together');
    // every index once across the shards
    const indexes = server.paths.map((p) => Number(p.split('/')[2])).sort((a, b) => a - b);
    assert.deepEqual(indexes, [...Array(1500).keys()]);

    const merged = await runCli(['merge', ...files, '--json']);
    assert.equal(merged.code, 0, show(merged));
    const m = JSON.parse(merged.stdout);
    assert.equal(m.totalRequests, server.requests);
    assert.equal(m.requestsSent, 1500);
    assert.equal(m.concurrency, 6);
    assert.equal(m.maxRequests, 1500);
    assert.equal(m.series.reduce((a, e) => a + e.completed, 0), 1500);
    // one histogram fed every response of the three shards
    const one = new Histogram();
    for (const d of docs) one.merge(Histogram.fromJSON({ ...d.latencyHistogram, pairs: d.latencyHistogram.buckets }));
    for (const p of ['50', '90', '99', '99.9']) assert.equal(m.percentiles[p], Math.round(one.percentile(Number(p))) / 1000, `p${p}`);
    assert.equal(m.maxLatencyMs, Math.max(...docs.map((d) => d.maxLatencyMs)));
    assert.equal(m.latencyHistogram.count, 1500);

    const report = await runCli(['merge', ...files]);
    assert.equal(report.code, 0, show(report));
    assert.match(report.stdout, /Completed requests: +1500\n/);
    assert.match(report.stdout, /Merged results: +3\n/);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

// The checks are the core's; the way out of the CLI on each runtime is cli.test.js's.
test('bad --shard, --start-at and merge input: one line, exit 2', { skip: ONE_RUNTIME }, async () => {
  const dir = tempDir();
  try {
    const notResult = join(dir, 'other.json');
    writeFileSync(notResult, '{"hello": 1}');
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"hello": ');
    const cases = [
      [['--shard', '0/3', 'http://127.0.0.1:1/'], /--shard '0\/3' must be i\/n/],
      [['--shard', '4/3', 'http://127.0.0.1:1/'], /--shard '4\/3' must be i\/n/],
      [['--shard', 'half', 'http://127.0.0.1:1/'], /--shard 'half' must be i\/n/],
      [['--shard', '1/3', '-c', '2', 'http://127.0.0.1:1/'], /2 connections cannot be shared by 3 shards/],
      [['--start-at', 'soon', 'http://127.0.0.1:1/'], /--start-at must be a number/],
      [['--start-at', String(Date.now() * 10), 'http://127.0.0.1:1/'], /--start-at \d+ is more than a day from now/],
      [['merge'], /no result files/],
      [['merge', notResult], /is not a loadtest result/],
      [['merge', broken], /is not JSON/],
      [['merge', join(dir, 'missing.json')], /cannot read .*ENOENT/],
    ];
    for (const [args, pattern] of cases) {
      const r = await runCli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${show(r)}`);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `${args.join(' ')}: ${show(r)}`);
      assert.match(lines[0], pattern);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The log's format is the core's; the run that feeds it is the other tests'.
test('--hdr-log: a log that the reference library reads back with the counts of every second of the series', { skip: ONE_RUNTIME }, async () => {
  const { HistogramLogReader } = await import('hdr-histogram-js');
  const server = await rawServer(({ socket, server: s }) => setTimeout(() => socket.write(ok()), s.requests % 5 === 0 ? 3 : 0));
  const dir = tempDir();
  try {
    const log = join(dir, 'run.hlog');
    const file = join(dir, 'run.json');
    const r = await runCli(['-t', '2.2', '-c', '3', '-k', '--quiet', '--hdr-log', log, '--json-file', file, server.url]);
    assert.equal(r.code, 0, show(r));
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    const text = readFileSync(log, 'utf8');
    assert.match(text, /^#\[Logged with loadtest .*\]\n#\[Histogram log format version 1\.3\]\n#\[StartTime: /);
    assert.ok(text.includes(`#[BaseTime: ${(doc.startTime / 1000).toFixed(3)} (seconds since epoch)]`));
    const reader = new HistogramLogReader(text);
    const decoded = [];
    for (let h; (h = reader.nextIntervalHistogram()) !== null; ) decoded.push(h);
    assert.equal(decoded.length, doc.series.length);
    assert.equal(decoded.length, 3);
    decoded.forEach((h, i) => {
      const entry = doc.series[i];
      assert.equal(h.totalCount, entry.buckets.filter((_, k) => k % 2 === 1).reduce((a, b) => a + b, 0), `second ${i + 1}`);
      assert.equal(h.totalCount, entry.completed - entry.errors);
      // the log's p99 of each second is the series' p99 of that second
      assert.equal(h.getValueAtPercentile(99) / 1000, entry.p99Ms, `p99 of second ${i + 1}`);
    });
    assert.equal(decoded.reduce((a, h) => a + h.totalCount, 0), doc.latencyHistogram.count);
    // merge writes one too
    const merged = join(dir, 'merged.hlog');
    const m = await runCli(['merge', file, file, '--hdr-log', merged]);
    assert.equal(m.code, 0, show(m));
    const again = new HistogramLogReader(readFileSync(merged, 'utf8'));
    assert.equal(again.nextIntervalHistogram().totalCount, 2 * decoded[0].totalCount);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
