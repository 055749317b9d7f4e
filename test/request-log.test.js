// --log-file: one tab-separated line per request that ended, from every core, its latencies
// those of the report; written through a bounded buffer that holds the run back, never loses a
// line, when the file cannot keep up.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import http2 from 'node:http2';
import { loadTest, prepare } from '../src/index.js';
import { RequestLog, LOG_COLUMNS } from '../src/outputs/request-log.js';
import { rawServer, spawnScript, ok, until } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-log-'));
  return { dir, file: (name) => join(dir, name), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

// The file's rows as objects, after checking the header and that every row has every column.
function rows(path) {
  const lines = readFileSync(path, 'utf8').split('\n');
  assert.equal(lines.pop(), '', 'the file ends with a line break');
  assert.equal(lines[0], LOG_COLUMNS.join('\t'));
  return lines.slice(1).map((line, i) => {
    const cells = line.split('\t');
    assert.equal(cells.length, LOG_COLUMNS.length, `row ${i + 1}: ${JSON.stringify(line)}`);
    return Object.fromEntries(LOG_COLUMNS.map((c, k) => [c, cells[k]]));
  });
}

// HdrHistogram's rule: the value at rank ceil(p% of n) of the sorted values.
function exactPercentile(sorted, p) {
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1];
}

// A sink that keeps what it is given, in memory. While `held`, a write does not end until
// release() (a disk that cannot keep up); release() lets every write through until hold().
function memorySink({ held = false } = {}) {
  const sink = { chunks: [], pending: [], closed: false, held };
  sink.write = (bytes) => {
    sink.chunks.push(bytes.slice());
    if (!sink.held) return Promise.resolve();
    return new Promise((resolve) => sink.pending.push(resolve));
  };
  sink.release = () => {
    sink.held = false;
    sink.pending.splice(0).forEach((resolve) => resolve());
  };
  sink.hold = () => (sink.held = true);
  sink.close = async () => (sink.closed = true);
  sink.text = () => Buffer.concat(sink.chunks).toString('utf8');
  return sink;
}

test('a line: start µs since the epoch, latency and wait µs, status, bytes, connection, entry, core, shard', async () => {
  const sink = memorySink();
  const log = new RequestLog(sink, { core: 3, shard: '2/4' });
  const conn = { responseBytes: 1234, number: 17 };
  const start = performance.now();
  log.completed(conn, 200, start, 12.3456, 10.0004, -1);
  log.failed({ responseBytes: 0, number: 18 }, 'malformed response: bad\theader\r\nline', start, 0.5, 2);
  await log.close();
  const [a, b] = sink.text().split('\n');
  const cells = a.split('\t');
  assert.ok(Math.abs(Number(cells[0]) / 1000 - (performance.timeOrigin + start)) < 1, `start ${cells[0]}`);
  assert.deepEqual(cells.slice(1), ['12346', '10000', '200', '1234', '17', '-', '3', '2/4']);
  assert.deepEqual(b.split('\t').slice(1), ['500', '-', 'malformed response: bad header  line', '0', '18', '2', '3', '2/4']);
  assert.ok(sink.closed);
});

test('a server that waits: one line per request, whose latencies give the report\'s p50 and p99', async () => {
  const t = tempDir();
  // Latencies spread from 0 to ~20 ms, so that the percentiles mean something.
  const server = await rawServer(({ socket, server: s }) => setTimeout(() => socket.write(ok('hello')), s.requests % 20));
  try {
    const path = t.file('log.tsv');
    const r = await loadTest({ url: server.url, maxRequests: 400, concurrency: 8, agentKeepAlive: true, logFile: path });
    const log = rows(path);
    assert.equal(log.length, r.totalRequests);
    assert.equal(log.length, 400);
    assert.ok(log.every((row) => row.status === '200' && row.bytes === String(ok('hello').length) && row.entry === '-' && row.core === '0' && row.shard === '-'));
    assert.deepEqual([...new Set(log.map((row) => row.connection))].sort(), ['1', '2', '3', '4', '5', '6', '7', '8']);
    const latencies = log.map((row) => Number(row.latency_us)).sort((x, y) => x - y);
    for (const p of [50, 99]) {
      // The histogram reports its bucket's highest value: at most 1/1024 above the exact one.
      const exact = exactPercentile(latencies, p);
      const reported = r.percentiles[p] * 1000;
      assert.ok(reported >= exact - 1 && reported <= exact * (1 + 1 / 1024) + 1, `p${p}: report ${reported} µs, log ${exact} µs`);
    }
    const waits = log.map((row) => Number(row.wait_us));
    assert.ok(waits.every((w, i) => w <= Number(log[i].latency_us)), 'a wait is part of its latency');
  } finally {
    await server.close();
    t.remove();
  }
});

test('failures are lines too: the reason in the status column, no wait', async () => {
  const t = tempDir();
  // Every other connection is closed at once, its request unanswered.
  const server = await rawServer(({ socket, server: s }) => (s.requests % 2 ? socket.destroy() : socket.end(ok('x', 'Connection: close\r\n'))));
  try {
    const path = t.file('log.tsv');
    const r = await loadTest({ url: server.url, maxRequests: 40, concurrency: 2, method: 'POST', body: 'x', logFile: path });
    const log = rows(path);
    assert.equal(log.length, r.totalRequests);
    const failed = log.filter((row) => row.status !== '200');
    assert.equal(failed.length, r.totalErrors);
    assert.ok(failed.length > 0);
    for (const row of failed) {
      assert.ok(row.status in r.errorsByReason, `reason ${row.status}`);
      assert.equal(row.wait_us, '-');
    }
  } finally {
    await server.close();
    t.remove();
  }
});

test('--cores 2 and --shard: every core appends its lines, with its core and shard', async () => {
  const t = tempDir();
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const path = t.file('cores.tsv');
    const run = await spawnScript(CLI, [server.url, '-n', '3000', '-c', '4', '-k', '--cores', '2', '--shard', '1/1', '--log-file', path, '--quiet']);
    assert.equal(run.code, 0, run.stderr);
    const log = rows(path);
    assert.equal(log.length, 3000);
    assert.equal(server.requests, 3000);
    const byCore = {};
    for (const row of log) byCore[row.core] = (byCore[row.core] || 0) + 1;
    assert.deepEqual(byCore, { 0: 1500, 1: 1500 });
    assert.ok(log.every((row) => row.shard === '1/1'));
  } finally {
    await server.close();
    t.remove();
  }
});

test('a file that cannot keep up holds the run back, loses no line, and the run then ends', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const { run } = await prepare({ url: server.url, maxRequests: 3000, concurrency: 4, agentKeepAlive: true });
    const sink = memorySink({ held: true });
    // Small chunks and limit: a few hundred lines fill it.
    const log = new RequestLog(sink, { chunk: 4096, limit: 16384 });
    run.useLog(log);
    // The disk slows again as soon as the run resumes.
    const resume = log.waiting;
    let drains = 0;
    log.onDrain(() => (drains++, sink.hold(), resume()));
    const done = run.start();
    let rounds = 0;
    for (; rounds < 1000 && !run.done; rounds++) {
      assert.ok(await until(() => log.blocked || run.done), 'the log holds the run back, or the run ends');
      if (run.done) break;
      // Held back: what is out ends, and nothing new goes until the writes catch up.
      const sent = run.stats.sent;
      assert.ok(await until(() => run.inFlight === 0), 'the requests out end');
      assert.equal(run.stats.sent, sent, 'no request sent while the log is behind');
      // Bounded: the limit, and the lines of the requests that were out (4 connections).
      assert.ok(log.out <= 16384 + 4096, `bytes out ${log.out}`);
      const before = drains;
      sink.release();
      assert.ok(await until(() => drains > before), 'the writes catch up and the run resumes');
    }
    assert.ok(rounds >= 3, `held back ${rounds} times`);
    const stats = await done;
    sink.release();
    await log.close();
    assert.equal(stats.completed, 3000);
    assert.equal(sink.text().split('\n').length - 1, 3000);
  } finally {
    await server.close();
  }
});

test('WebSocket and HTTP/2 runs log their requests too', async () => {
  const t = tempDir();
  try {
    const { startServer } = await import('../src/index.js');
    const ts = await startServer({ port: 0, quiet: true });
    try {
      const path = t.file('ws.tsv');
      const r = await loadTest({ url: `ws://127.0.0.1:${ts.port}/`, maxRequests: 50, concurrency: 2, logFile: path });
      const log = rows(path);
      assert.equal(log.length, r.totalRequests);
      assert.ok(log.every((row) => row.status === '101' && Number(row.bytes) > 0));
    } finally {
      await ts.close();
    }
    const h2 = http2.createServer();
    h2.on('stream', (stream) => {
      stream.on('error', () => {});
      stream.respond({ ':status': 200 });
      stream.end('hello');
    });
    await new Promise((resolve) => h2.listen(0, '127.0.0.1', resolve));
    try {
      const path = t.file('h2.tsv');
      const r = await loadTest({ url: `http://127.0.0.1:${h2.address().port}/`, http2: true, streams: 4, maxRequests: 40, concurrency: 2, logFile: path });
      const log = rows(path);
      assert.equal(log.length, r.totalRequests);
      assert.equal(log.length, 40);
      // The header block and the 5 bytes of DATA.
      assert.ok(log.every((row) => row.status === '200' && Number(row.bytes) > 5), JSON.stringify(log[0]));
    } finally {
      await new Promise((done) => h2.close(done));
    }
  } finally {
    t.remove();
  }
});

test('cli: a --log-file that cannot be opened is one line and exit 2, before anything is sent', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const run = await spawnScript(CLI, [server.url, '-n', '5', '--log-file', '/nonexistent-dir/x.tsv']);
    assert.equal(run.code, 2);
    assert.equal(run.stderr, 'loadtest: --log-file /nonexistent-dir/x.tsv: ENOENT\n');
    assert.equal(server.requests, 0);
  } finally {
    await server.close();
  }
});
