// Request phases: connect, tls, wait and receive, against servers that wait a known time before
// the head (30 ms) and again before the rest of the body (40 ms), over HTTP/1.1 (one request at
// a time and pipelined), HTTP/2, TLS, a proxy's tunnel and WebSocket; counted once per
// connection or once per response, and merged exactly across cores and by `merge`.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { readFileSync } from 'node:fs';
import { loadTest } from '../src/index.js';
import { mergeResults } from '../src/results/merge.js';
import { rawServer, forwardProxy, spawnScript } from './servers.js';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const pem = (name) => readFileSync(new URL(`./tls/${name}.pem`, import.meta.url), 'utf8');

const HEAD_MS = 30;
const BODY_MS = 40;
// Lower bounds allow this much early. The servers' timers are late on a loaded machine (36 ms
// for a 30 ms wait with three test suites and a bench at once, 68 ms for a 40 ms one in CI), so
// each server notes what it did (`served`) and the upper bounds start from that: what a phase
// may add to it is the client's own delay in reading, LATE_MS, under the other phase, so that
// one phase counted in the other still shows.
const SLACK_MS = 5;
const LATE_MS = 25;

// Each response as the server sent it: its wait (request in, or its turn, to the head written)
// and its receive (the head to its last byte written), ms.
const served = { wait: [], receive: [] };
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const fresh = () => {
  served.wait.length = 0;
  served.receive.length = 0;
};
function serve(t0, t1, t2) {
  served.wait.push(t1 - t0);
  served.receive.push(t2 - t1);
}

// The head after HEAD_MS, then half the body, and the other half BODY_MS later; pipelined
// requests are answered one after the other (`socket.answered` is when the last one ends).
function answerSlowly(socket) {
  const after = socket.answered === undefined ? Promise.resolve() : socket.answered;
  socket.answered = after.then(
    () =>
      new Promise((done) => {
        const t0 = performance.now();
        setTimeout(() => {
          if (socket.destroyed) return done();
          const t1 = performance.now();
          socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello');
          setTimeout(() => {
            if (!socket.destroyed) socket.write('world');
            serve(t0, t1, performance.now());
            done();
          }, BODY_MS);
        }, HEAD_MS);
      }),
  );
}

const slowServer = () => rawServer(({ socket }) => answerSlowly(socket));

// A phase is the server's delay and what the machine adds: never less (a timer fires at most a
// millisecond early), and more by as much as a loaded machine runs late, well under the other
// phase, so that one phase counted in the other still shows. A receive starts when the head is
// read: a head that reached the client late (HTTP/2 once gave 37.4 ms for 40 on a loaded
// machine) shortens it by as much, which the wait before it shows: `early`, ms.
// `phase`: 'wait' or 'receive', whose servers' figures (`served`) bound it from above.
function near(actual, expected, phase, what, early = 0) {
  const did = served[phase].length > 0 ? Math.max(expected, median(served[phase])) : expected;
  const least = expected - 2 - early;
  assert.ok(actual >= least && actual <= did + LATE_MS, `${what}: ${actual} ms, expected ${expected} (${least.toFixed(1)} at least), the server's ${did.toFixed(1)} (+${LATE_MS}) ms`);
}

// How late the heads were read beyond the servers' wait: what a receive may lose to it.
const headLate = (r) => Math.max(0, r.phases.wait.p50 - HEAD_MS);

// Every response has a wait and a receive; nothing else does.
function perResponse(r) {
  const completed = r.totalRequests - Object.values(r.errorsByReason).reduce((a, b) => a + b, 0);
  assert.equal(r.phases.wait.count, completed, 'a wait per response');
  assert.equal(r.phases.receive.count, completed, 'a receive per response');
}

test('keep-alive: wait ≈ 30 ms and receive ≈ 40 ms at the median; connect once per connection; no tls', async () => {
  fresh();
  const server = await slowServer();
  try {
    const r = await loadTest({ url: server.url, maxRequests: 40, concurrency: 4, agentKeepAlive: true });
    assert.equal(r.totalErrors, 0);
    assert.equal(r.totalRequests, 40);
    near(r.phases.wait.p50, HEAD_MS, 'wait', 'wait p50');
    near(r.phases.receive.p50, BODY_MS, 'receive', 'receive p50', headLate(r));
    assert.equal(r.phases.connect.count, 4, 'connect: once per connection');
    assert.equal(r.phases.connect.count, r.connections);
    assert.equal(r.phases.tls.count, 0, 'no tls over http');
    perResponse(r);
    // The phases of a request add up to no more than its latency: every latency holds the
    // server's two delays (each timer a millisecond early at most), so its median does too. (Not
    // the medians' sum: the median of sums may be below it, and was, 72.1 ms under load.)
    assert.ok(r.percentiles[50] >= HEAD_MS + BODY_MS - 2, `p50 ${r.percentiles[50]} < ${HEAD_MS} + ${BODY_MS} ms`);
    assert.ok(r.percentiles[50] >= r.phases.wait.p50 && r.percentiles[50] >= r.phases.receive.p50, 'a latency holds each of its phases');
  } finally {
    await server.close();
  }
});

test('without keep-alive: connect once per request', async () => {
  fresh();
  const server = await rawServer(({ socket }) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok'));
  try {
    const r = await loadTest({ url: server.url, maxRequests: 30, concurrency: 3 });
    assert.equal(r.totalErrors, 0);
    assert.equal(r.phases.connect.count, 30);
    assert.equal(r.connections, 30);
    assert.ok(r.phases.connect.max > 0);
    perResponse(r);
  } finally {
    await server.close();
  }
});

// The clock reads of a run, counted: each is a call, and on Deno an op. A request sent as the
// previous response on its connection ends takes that response's read as its start, so a
// request costs one read at keep-alive (its response's) and two without (and its connect's).
// The run's own reads (its start, the series' seconds) are a few beside them.
async function clockReads(options) {
  // Bun's now() is the object's own property, node's and Deno's its prototype's.
  const own = Object.getOwnPropertyDescriptor(performance, 'now');
  const now = performance.now;
  let reads = 0;
  performance.now = function () {
    reads++;
    return now.call(this);
  };
  try {
    const r = await loadTest(options);
    assert.equal(r.totalErrors, 0);
    assert.equal(r.totalRequests, options.maxRequests);
    return reads;
  } finally {
    if (own) Object.defineProperty(performance, 'now', own);
    else delete performance.now;
  }
}

test('one clock read a request at keep-alive, two with a new connection each', async () => {
  const N = 400;
  const keep = await rawServer(({ socket }) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'));
  try {
    const reads = await clockReads({ url: keep.url, maxRequests: N, concurrency: 4, keepAlive: true });
    assert.ok(reads >= N && reads < N + 50, `${reads} clock reads for ${N} requests`);
  } finally {
    await keep.close();
  }
  const close = await rawServer(({ socket }) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok'));
  try {
    const reads = await clockReads({ url: close.url, maxRequests: N, concurrency: 4 });
    assert.ok(reads >= 2 * N && reads < 2 * N + 50, `${reads} clock reads for ${N} requests`);
  } finally {
    await close.close();
  }
});

// A TLS server on this runtime's node:tls that answers slowly.
const slowTlsServer = () => rawServer(({ socket }) => answerSlowly(socket), { tls: { key: pem('server-key'), cert: pem('server') } });

test('https: a tls phase per connection, after its connect; wait still ≈ 30 ms', async () => {
  fresh();
  const server = await slowTlsServer();
  try {
    const r = await loadTest({ url: server.url, ca: pem('ca'), maxRequests: 24, concurrency: 3, agentKeepAlive: true });
    assert.deepEqual(r.errorCodes, {});
    assert.equal(r.totalRequests, 24);
    assert.equal(r.phases.tls.count, 3, 'tls: once per connection');
    assert.equal(r.phases.connect.count, 3);
    assert.equal(server.connections, 3);
    assert.ok(r.phases.tls.max > 0);
    near(r.phases.wait.p50, HEAD_MS, 'wait', 'wait p50');
    near(r.phases.receive.p50, BODY_MS, 'receive', 'receive p50', headLate(r));
    perResponse(r);
  } finally {
    await server.close();
  }
});

test('pipelined: each response has its wait and receive', async () => {
  fresh();
  const server = await slowServer();
  try {
    const r = await loadTest({ url: server.url, maxRequests: 24, concurrency: 2, pipelining: 3 });
    assert.equal(r.totalErrors, 0);
    assert.equal(r.totalRequests, 24);
    perResponse(r);
    assert.equal(r.phases.connect.count, 2);
    // Responses come one after the other on a connection: each still has its body's 40 ms, and
    // the wait of the k-th of a pipeline holds the k - 1 before it (50 ms each).
    near(r.phases.receive.p50, BODY_MS, 'receive', 'receive p50');
    assert.ok(r.phases.wait.min >= HEAD_MS - SLACK_MS, `wait min ${r.phases.wait.min}`);
    assert.ok(r.phases.wait.max >= HEAD_MS + 2 * (HEAD_MS + BODY_MS) - SLACK_MS, `wait max ${r.phases.wait.max}`);
  } finally {
    await server.close();
  }
});

test('HTTP/2: wait and receive per stream; connect once per connection', async () => {
  fresh();
  const server = http2.createServer();
  const sessions = new Set();
  server.on('session', (s) => (sessions.add(s), s.on('close', () => sessions.delete(s)), s.on('error', () => {})));
  server.on('stream', (stream) => {
    stream.on('error', () => {});
    const t0 = performance.now();
    setTimeout(() => {
      if (stream.destroyed) return;
      const t1 = performance.now();
      stream.respond({ ':status': 200 });
      stream.write('hello');
      setTimeout(() => {
        if (!stream.destroyed) stream.end('world');
        serve(t0, t1, performance.now());
      }, BODY_MS);
    }, HEAD_MS);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const r = await loadTest({ url: `http://127.0.0.1:${server.address().port}/`, http2: true, streams: 4, maxRequests: 24, concurrency: 1 });
    assert.deepEqual(r.errorCodes, {});
    assert.equal(r.totalRequests, 24);
    assert.equal(r.phases.connect.count, 1);
    perResponse(r);
    near(r.phases.wait.p50, HEAD_MS, 'wait', 'wait p50');
    near(r.phases.receive.p50, BODY_MS, 'receive', 'receive p50', headLate(r));
  } finally {
    for (const s of sessions) s.destroy();
    await new Promise((done) => server.close(done));
  }
});

test('through a proxy: connect ends with the tunnel (the CONNECT included), then tls', async () => {
  fresh();
  const server = await slowTlsServer();
  const proxy = await forwardProxy();
  try {
    const r = await loadTest({ url: server.url, proxy: proxy.url, ca: pem('ca'), maxRequests: 6, concurrency: 2, agentKeepAlive: true });
    assert.deepEqual(r.errorCodes, {});
    assert.equal(proxy.connects.length, 2);
    assert.equal(r.phases.connect.count, 2);
    assert.equal(r.phases.tls.count, 2);
    // One hop more, and only 6 responses: the wait is the server's 30 ms and the proxy's relay.
    const did = Math.max(HEAD_MS, median(served.wait));
    assert.ok(r.phases.wait.p50 >= HEAD_MS - SLACK_MS && r.phases.wait.p50 <= did + LATE_MS, `wait p50 ${r.phases.wait.p50}, the server's ${did.toFixed(1)}`);
  } finally {
    await proxy.close();
    await server.close();
  }
});

test('--cores 2 and merge: the phase histograms add up exactly', async () => {
  const server = await rawServer(({ socket }) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'));
  try {
    const run = await spawnScript(CLI, [server.url, '-n', '200', '-c', '4', '-k', '--cores', '2', '--json', '--quiet']);
    assert.equal(run.code, 0, run.stderr);
    const doc = JSON.parse(run.stdout);
    assert.equal(doc.totalRequests, 200);
    assert.equal(doc.phases.connect.count, doc.connections);
    assert.equal(doc.phases.wait.count, 200);
    assert.equal(doc.phaseHistograms.wait.count, 200);
    const twice = mergeResults([doc, doc]);
    for (const p of ['connect', 'wait', 'receive']) {
      assert.equal(twice.phases[p].count, 2 * doc.phases[p].count, p);
      assert.equal(twice.phases[p].p99, doc.phases[p].p99, `${p}: the same distribution twice has the same p99`);
      assert.equal(twice.phases[p].max, doc.phases[p].max, p);
    }
    assert.deepEqual(twice.phaseHistograms.tls.count, 0);
  } finally {
    await server.close();
  }
});
