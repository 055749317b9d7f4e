// Server faults in the middle of a run: whatever the server does, every request sent ends in
// exactly one of completed, failed or in flight at the stop, the run ends on time, and the
// failures are counted under a reason that says what happened.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { loadTest } from '../src/index.js';
import { ok, writeForever, until } from './servers.js';
import { freePort } from '../runtimes/processes/groups.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * A node:net server on 127.0.0.1 (port 0 unless given) calling onRequest(socket, n) for each
 * request head read (n counts connections from 1); state.requests counts heads read. With
 * `read: false` it reads nothing at all.
 */
function server(onRequest, port = 0, { read = true } = {}) {
  const state = { requests: 0, connections: 0, port: 0 };
  const sockets = new Set();
  const srv = net.createServer((socket) => {
    const n = ++state.connections;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (!read) return socket.pause();
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      let end;
      while ((end = text.indexOf('\r\n\r\n')) >= 0) {
        text = text.slice(end + 4);
        state.requests++;
        onRequest(socket, n);
      }
    });
  });
  return new Promise((resolve, reject) => {
    srv.on('error', reject);
    srv.listen(port, '127.0.0.1', () => {
      state.port = srv.address().port;
      state.url = `http://127.0.0.1:${state.port}/`;
      state.close = () =>
        new Promise((done) => {
          for (const s of sockets) s.destroy();
          srv.close(() => done());
        });
      resolve(state);
    });
  });
}

/**
 * server() on a port the kernel never hands out by itself (freePort(): below its ephemeral range),
 * for a server that is to come back on the same port: one drawn by port 0 may be drawn again,
 * while the server is down, by another test's server or by a connect of the run's own to it (a
 * TCP self-connect), and be taken when it listens again (EADDRINUSE, seen in CI on Deno).
 */
async function serverOnFixedPort(onRequest) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await server(onRequest, await freePort());
    } catch (err) {
      if (err.code !== 'EADDRINUSE' || attempt === 20) throw err;
    }
  }
}

/** server() on `port` again, once the runtime has let it go (it may after close() called back). */
async function serverAgain(onRequest, port) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await server(onRequest, port);
    } catch (err) {
      if (err.code !== 'EADDRINUSE' || attempt === 100) throw err;
      await sleep(20);
    }
  }
}

/** Every request sent is accounted for once. */
function assertAccounted(result) {
  assert.equal(result.totalRequests + result.inFlight, result.requestsSent, `completed + failed + in flight != sent: ${JSON.stringify({ total: result.totalRequests, inFlight: result.inFlight, sent: result.requestsSent })}`);
}

const failures = (result) => Object.values(result.errorsByReason).reduce((a, b) => a + b, 0);

test('the server killed and restarted mid-run: errors counted, the run reconnects and goes on, connects back off', async () => {
  const answer = (socket) => socket.write(ok());
  let first = await serverOnFixedPort(answer);
  const port = first.port;
  let second = null;
  // The run goes until it is stopped below: each step waits for what it needs, not a time.
  const controller = new AbortController();
  const running = loadTest({ url: first.url, maxSeconds: 60, concurrency: 4, agentKeepAlive: true, signal: controller.signal });
  try {
    assert.ok(await until(() => first.requests >= 20, 20000), 'the run was going');
    const downAt = performance.now();
    await first.close();
    const before = first.requests;
    first = null;
    // Down for 800 ms (the outage is the test): without a backoff, 4 connections would try
    // thousands of times.
    await sleep(800);
    second = await serverAgain(answer, port);
    const downMs = performance.now() - downAt;
    assert.ok(await until(() => second.requests >= 20, 20000), 'the run came back');
    controller.abort();
    const result = await running;
    assertAccounted(result);
    assert.ok(before > 0 && second.requests > 0, `answered before (${before}) and after (${second.requests}) the outage`);
    // Answered: what the servers read, less what was cut by the outage or out at the stop.
    const read = before + second.requests;
    assert.ok(result.statusCodes[200] <= read && result.statusCodes[200] >= read - 4 - result.inFlight, `${result.statusCodes[200]} answered of ${read} read`);
    const refused = result.errorsByReason.ECONNREFUSED || 0;
    assert.ok(refused >= 4, `connects were refused while it was down: ${JSON.stringify(result.errorsByReason)}`);
    // Waits of 10, 20, 40, ... up to 1000 ms between attempts: how many fit in the outage as it
    // was measured (longer on a slow machine), and one more for the attempt that finds it back.
    let attempts = 1;
    for (let waited = 0, wait = 10; waited + wait <= downMs; waited += wait, wait = Math.min(wait * 2, 1000)) attempts++;
    assert.ok(refused <= 4 * (attempts + 1), `${refused} refused connects in ${Math.round(downMs)} ms: no backoff`);
    assert.equal(result.interrupted, true);
  } finally {
    if (first) await first.close();
    if (second) await second.close();
  }
});

test('a server that stops reading: our writes back up, the timeout fires, the requests outstanding stay few', async () => {
  // The server reads nothing at all: a 512 KiB body fills the socket buffers and waits.
  const stalled = await server(() => {}, 0, { read: false });
  try {
    const result = await loadTest({ url: stalled.url, method: 'POST', body: 'x'.repeat(512 * 1024), maxSeconds: 1.5, timeout: 300, concurrency: 2 });
    assertAccounted(result);
    assert.equal(result.totalRequests - failures(result), 0, 'nothing completed');
    assert.ok(result.errorsByReason.timeout >= 2, JSON.stringify(result.errorsByReason));
    // One request per connection at a time, each dropped at its timeout: what is queued in
    // memory is at most one body per connection, never a growing backlog.
    assert.ok(result.requestsSent <= 2 * (1500 / 300 + 2), `${result.requestsSent} sent`);
  } finally {
    await stalled.close();
  }
});

test('a slowloris response (a byte every 100 ms) hits the timeout', async () => {
  const timers = new Set();
  const srv = await server((socket) => {
    const bytes = Buffer.from(ok('a slow body'));
    let at = 0;
    const timer = setInterval(() => {
      if (socket.destroyed || at >= bytes.length) return clearInterval(timer), timers.delete(timer);
      socket.write(bytes.subarray(at, ++at));
    }, 100);
    timers.add(timer);
  });
  try {
    const result = await loadTest({ url: srv.url, maxRequests: 4, timeout: 600, concurrency: 2 });
    assertAccounted(result);
    assert.equal(result.errorsByReason.timeout, 4, JSON.stringify(result.errorsByReason));
    // The timeouts end it, long before the server's drip (a byte every 100 ms) would.
    assert.ok(result.totalTimeSeconds < 8, `${result.totalTimeSeconds} s`);
  } finally {
    for (const t of timers) clearInterval(t);
    await srv.close();
  }
});

test('a server that accepts and never answers: every request times out and the run ends on time', async () => {
  const srv = await server(() => {});
  try {
    const started = Date.now();
    const result = await loadTest({ url: srv.url, maxSeconds: 1, timeout: 300, concurrency: 3, agentKeepAlive: true });
    assertAccounted(result);
    assert.ok(Date.now() - started < 3000);
    assert.ok(result.errorsByReason.timeout >= 3, JSON.stringify(result.errorsByReason));
    assert.equal(Object.keys(result.statusCodes).length, 0);
  } finally {
    await srv.close();
  }
});

for (const framing of ['chunked', 'close-delimited']) {
  test(`an endless ${framing} body fails at maxBodySize with that reason`, async () => {
    const head = framing === 'chunked' ? 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n' : 'HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n';
    const piece = Buffer.from(framing === 'chunked' ? `4000\r\n${'z'.repeat(0x4000)}\r\n` : 'z'.repeat(0x4000));
    const srv = await server((socket) => {
      socket.write(head);
      // Endless: as fast as the client reads, until it goes away.
      writeForever(socket, piece);
    });
    try {
      const result = await loadTest({ url: srv.url, maxRequests: 6, concurrency: 2, maxBodySize: 100000, timeout: 5000 });
      assertAccounted(result);
      assert.deepEqual(result.errorsByReason, { 'response body over 100000 bytes': 6 });
    } finally {
      await srv.close();
    }
  });
}

test('a server that resets every 3rd connection: those requests fail, the others complete', async () => {
  const srv = await server((socket, n) => {
    if (n % 3 === 0) {
      // A reset where the runtime can send one (RST), else an abrupt close.
      if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
      else socket.destroy();
    } else {
      socket.end(ok());
    }
  });
  try {
    // Without keep-alive: one connection per request, so exactly every 3rd request is cut.
    const result = await loadTest({ url: srv.url, maxRequests: 60, concurrency: 3 });
    assertAccounted(result);
    assert.equal(result.statusCodes[200], 40);
    assert.equal(failures(result), 20, JSON.stringify(result.errorsByReason));
    for (const reason of Object.keys(result.errorsByReason)) assert.match(reason, /^(ECONNRESET|closed before response|EPIPE)$/);
  } finally {
    await srv.close();
  }
});
