// Adversarial servers: connections cut mid-head, mid-body and mid-chunk, garbage after a
// response, split terminators, Connection: close without a close, HTTP/1.0, interim responses,
// seeded random resets, late responses after a timeout, stops mid-response, idle connections
// closed under the open model, bodiless replies with framing headers, throwing callbacks, and
// several cores. Every test checks the first rule: each request sent ends exactly once
// (completed, failed with a reason, or in flight at the stop), and the server read what the
// result says it was sent (plus the documented retries).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadTest, prepare } from '../src/index.js';
import { rawServer, writeInPieces, ok, until } from './servers.js';
import { mulberry32 } from './random.js';

const sum = (values) => values.reduce((a, b) => a + b, 0);

// Failure reasons are the errorCodes keys that are neither a status ("503") nor a custom error
// ("200:E1").
const isStatusKey = (k) => /^\d+(:.*)?$/.test(k);

/** sent = ended + in flight, and the ended ones split exactly into statuses and failures. */
function accounted(result) {
  assert.equal(result.requestsSent, result.totalRequests + result.inFlight, 'sent = ended + in flight');
  // statusCodes has every response (those a contentInspector marked included).
  const byStatus = sum(Object.values(result.statusCodes));
  const failures = sum(Object.entries(result.errorCodes).filter(([k]) => !isStatusKey(k)).map(([, v]) => v));
  assert.equal(byStatus + failures, result.totalRequests, 'ended = with a status + failed');
  // errorCodes counts each error once: HTTP errors, custom errors and failures.
  assert.equal(sum(Object.values(result.errorCodes)), result.totalErrors, 'totalErrors = the sum of errorCodes');
  return { byStatus, failures };
}

/** The run's promise, or a failure when it has not ended after `ms` (a hung run). */
function ended(promise, ms, what) {
  let timer;
  const guard = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: the run did not end within ${ms} ms`)), ms);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// An RST where the runtime's node:net can send one, else a plain close.
function reset(socket) {
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}

// A seeded PRNG: the same "random" resets on every run.
const seeded = mulberry32;

test('a close in the middle of a Content-Length body: incomplete response, counted once, never retried', async () => {
  // Each connection: a full response, then half of the next body and a close.
  const server = await rawServer(({ socket, index }) => {
    if (index === 0) socket.write(ok('0123456789'));
    else socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n01234');
  });
  const calls = [];
  try {
    const result = await loadTest({
      url: server.url, maxRequests: 20, concurrency: 2, agentKeepAlive: true,
      statusCallback: (error, r) => calls.push([error && error.code, r.statusCode]),
    });
    assert.equal(result.totalRequests, 20);
    assert.deepEqual(result.statusCodes, { 200: 10 });
    assert.deepEqual(result.errorCodes, { 'incomplete response': 10 });
    assert.equal(result.retries, 0, 'a response that had begun is never sent again');
    assert.equal(server.requests, 20);
    assert.equal(server.connections, 10);
    assert.equal(calls.length, 20);
    assert.equal(calls.filter(([code, status]) => code === 'incomplete response' && status === null).length, 10);
    accounted(result);
  } finally {
    await server.close();
  }
});

test('closes in the middle of a chunk, of the chunk terminator, of the status line and of a header', async () => {
  const cuts = [
    'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel',
    'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n',
    'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r',
    'HTT',
    'HTTP/1.1 200 OK\r\nContent-Le',
    'HTTP/1.1 100 Continue\r\n\r\n',
  ];
  const server = await rawServer(({ socket, server: s }) => socket.end(cuts[(s.requests - 1) % cuts.length]));
  try {
    const result = await loadTest({ url: server.url, maxRequests: 36, concurrency: 3, agentKeepAlive: true });
    assert.equal(result.totalRequests, 36);
    assert.deepEqual(result.errorCodes, { 'incomplete response': 36 });
    assert.deepEqual(result.statusCodes, {});
    assert.equal(result.retries, 0);
    assert.equal(server.requests, 36);
    assert.equal(server.connections, 36);
    accounted(result);
  } finally {
    await server.close();
  }
});

test('a body delimited by the close: complete at a clean close, failed when a reset ends it', async () => {
  // Even requests (in the server's order) end with a FIN, odd ones with a reset: same bytes.
  let canReset = true;
  const server = await rawServer(({ socket, server: s }) => {
    canReset = typeof socket.resetAndDestroy === 'function';
    const clean = s.requests % 2 === 0;
    socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhalf of a bo');
    setTimeout(() => (clean ? socket.end() : reset(socket)), 5);
  });
  let calls = 0;
  try {
    const result = await loadTest({
      url: server.url, maxRequests: 20, concurrency: 2, agentKeepAlive: true, timeout: 2000,
      statusCallback: () => calls++,
    });
    assert.equal(result.totalRequests, 20);
    if (canReset) {
      // Every clean close completes its response, and a reset fails one with its reason; on a
      // loaded machine an abortive close has been seen to reach the client as a plain end (11
      // and 9), never anything else.
      const completed = result.statusCodes[200] || 0;
      assert.ok(completed >= 10, `completed ${completed}`);
      assert.deepEqual(result.errorCodes, completed === 20 ? {} : { ECONNRESET: 20 - completed }, 'an abortive close may have cut the body');
    }
    assert.equal(result.retries, 0);
    assert.equal(server.requests, 20);
    assert.equal(calls, 20);
    accounted(result);
  } finally {
    await server.close();
  }
});

test('a response followed by garbage in the same packet: counted once, the connection not reused', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok() + 'GARBAGE\r\n\r\n'));
  try {
    const result = await loadTest({ url: server.url, maxRequests: 30, concurrency: 3, agentKeepAlive: true });
    assert.equal(result.totalRequests, 30);
    assert.deepEqual(result.statusCodes, { 200: 30 });
    assert.equal(result.totalErrors, 0);
    assert.equal(result.unexpectedData, 30);
    assert.equal(server.requests, 30);
    assert.equal(server.connections, 30, 'a connection whose framing is broken is not reused');
    accounted(result);
  } finally {
    await server.close();
  }
});

test('garbage a few ms after each response: whatever it lands on fails once, nothing is counted twice', async () => {
  const server = await rawServer(({ socket }) => {
    socket.write(ok());
    setTimeout(() => !socket.destroyed && socket.write('GARBAGE\r\n'), 3);
  });
  const calls = [];
  try {
    const result = await loadTest({
      url: server.url, maxRequests: 40, concurrency: 2, agentKeepAlive: true, timeout: 2000,
      statusCallback: (error, r) => calls.push(r.statusCode),
    });
    assert.equal(result.totalRequests, 40);
    // A request written as garbage arrived fails, and its socket is dropped: the server may
    // never read it. Every answered one it did.
    assert.ok(server.requests <= 40 && server.requests >= (result.statusCodes[200] || 0), `${server.requests} read`);
    const { byStatus, failures } = accounted(result);
    assert.equal(byStatus + failures, 40);
    assert.equal(calls.length, 40);
    assert.equal(calls.filter((s) => s === 200).length, result.statusCodes[200] || 0);
    for (const k of Object.keys(result.errorCodes)) assert.match(k, /^malformed response/);
  } finally {
    await server.close();
  }
});

test('the last CRLF of a chunked body arrives 5 ms later: the response does not complete early', async () => {
  const variants = [
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n', '\r\n'],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r', '\n'],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-Trailer: 1\r\n', '\r\n'],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello', '\r\n0\r\n\r\n'],
  ];
  const server = await rawServer(({ socket, server: s }) => {
    const [first, rest] = variants[(s.requests - 1) % variants.length];
    socket.write(first);
    setTimeout(() => !socket.destroyed && socket.write(rest), 5);
  });
  const bodies = [];
  try {
    const result = await loadTest({
      url: server.url, maxRequests: 24, concurrency: 2, agentKeepAlive: true, timeout: 2000,
      statusCallback: (error, r) => bodies.push(r.body),
    });
    assert.equal(result.totalRequests, 24);
    assert.deepEqual(result.statusCodes, { 200: 24 });
    assert.deepEqual(result.errorCodes, {});
    assert.equal(result.unexpectedData, 0);
    assert.equal(server.requests, 24);
    assert.equal(server.connections, 2, 'every response ended where its framing says');
    assert.deepEqual(new Set(bodies), new Set(['hello']));
    // Each response waited for its last bytes.
    assert.ok(result.minLatencyMs >= 4, `min latency ${result.minLatencyMs} ms`);
  } finally {
    await server.close();
  }
});

test('Connection: close without closing: the client still never reuses the connection', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok('OK', 'Connection: close\r\n')));
  try {
    const result = await loadTest({ url: server.url, maxRequests: 25, concurrency: 3, agentKeepAlive: true, timeout: 2000 });
    assert.deepEqual(result.statusCodes, { 200: 25 });
    assert.deepEqual(result.errorCodes, {});
    assert.equal(result.retries, 0);
    assert.equal(server.requests, 25);
    assert.equal(server.connections, 25);
    accounted(result);
  } finally {
    await server.close();
  }
});

test('HTTP/1.0: closes unless keep-alive is said; keep-alive reuses; no length means until the close', async () => {
  const plain = await rawServer(({ socket }) => socket.write('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nOK'));
  const kept = await rawServer(({ socket }) => socket.write('HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nOK'));
  const toClose = await rawServer(({ socket }) => writeInPieces(socket, 'HTTP/1.0 200 OK\r\n\r\n' + 'y'.repeat(500), 200, () => socket.end()));
  const lengths = [];
  try {
    const a = await loadTest({ url: plain.url, maxRequests: 12, concurrency: 2, agentKeepAlive: true, timeout: 2000 });
    assert.deepEqual(a.statusCodes, { 200: 12 });
    assert.equal(plain.connections, 12, 'HTTP/1.0 without keep-alive: one connection per request');
    const b = await loadTest({ url: kept.url, maxRequests: 12, concurrency: 2, agentKeepAlive: true, timeout: 2000 });
    assert.deepEqual(b.statusCodes, { 200: 12 });
    assert.equal(kept.connections, 2, 'HTTP/1.0 with keep-alive: reused');
    const c = await loadTest({
      url: toClose.url, maxRequests: 6, concurrency: 2, agentKeepAlive: true, timeout: 2000,
      statusCallback: (error, r) => lengths.push(r.body.length),
    });
    assert.deepEqual(c.statusCodes, { 200: 6 });
    assert.deepEqual(lengths, Array(6).fill(500));
    assert.equal(plain.requests + kept.requests + toClose.requests, 30);
    for (const r of [a, b, c]) accounted(r);
  } finally {
    await plain.close();
    await kept.close();
    await toClose.close();
  }
});

test('100 Continue, then the final response a moment later, for a POST', async () => {
  const server = await rawServer(({ socket }, req) => {
    socket.write('HTTP/1.1 100 Continue\r\n\r\n');
    setTimeout(() => !socket.destroyed && socket.write(ok(`got ${req.body}`)), 2);
  });
  const bodies = [];
  try {
    const result = await loadTest({
      url: server.url, method: 'POST', body: 'payload', maxRequests: 20, concurrency: 2, agentKeepAlive: true, timeout: 2000,
      statusCallback: (error, r) => bodies.push(r.body),
    });
    assert.deepEqual(result.statusCodes, { 200: 20 });
    assert.equal(server.requests, 20);
    assert.deepEqual(new Set(server.bodies), new Set(['payload']));
    assert.deepEqual(new Set(bodies), new Set(['got payload']));
    assert.equal(server.connections, 2);
    accounted(result);
  } finally {
    await server.close();
  }
});

test('a server that resets connections at random (seeded): every request ends once, the server read sent + retries', async () => {
  const random = seeded(42);
  let resets = 0;
  const server = await rawServer(({ socket }) => {
    if (random() < 0.3) {
      resets++;
      reset(socket);
    } else {
      socket.write(ok());
    }
  });
  const calls = { ok: 0, failed: 0, other: 0 };
  try {
    const result = await loadTest({
      url: server.url, maxRequests: 300, concurrency: 6, agentKeepAlive: true,
      statusCallback: (error, r) => (r.statusCode === 200 && !error ? calls.ok++ : r.statusCode === null ? calls.failed++ : calls.other++),
    });
    assert.equal(result.requestsSent, 300);
    assert.equal(result.totalRequests, 300);
    assert.equal(result.inFlight, 0);
    const { failures } = accounted(result);
    for (const k of Object.keys(result.errorCodes)) assert.ok(k === 'ECONNRESET' || k === 'closed before response' || k === 'EPIPE', k);
    // Every reset request was read by the server: it either failed or was sent once more.
    assert.equal(resets, failures + result.retries);
    assert.equal(server.requests, 300 + result.retries);
    assert.equal(result.statusCodes[200], 300 - failures);
    assert.deepEqual(calls, { ok: 300 - failures, failed: failures, other: 0 });
  } finally {
    await server.close();
  }
});

test('a server that misbehaves at random (seeded) in six ways at once: every request ends exactly once', async () => {
  const random = seeded(2024);
  const kinds = [
    (socket) => socket.write(ok()),
    (socket) => reset(socket),
    (socket) => {
      socket.write(ok());
      reset(socket);
    },
    (socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n012');
      setTimeout(() => reset(socket), 1);
    },
    (socket) => socket.end(ok()),
    (socket) => setTimeout(() => !socket.destroyed && socket.write(ok()), 2),
  ];
  const server = await rawServer(({ socket }) => kinds[Math.floor(random() * kinds.length)](socket));
  let calls = 0;
  try {
    const result = await ended(loadTest({
      url: server.url, maxRequests: 400, concurrency: 8, agentKeepAlive: true, timeout: 2000,
      statusCallback: () => calls++,
    }), 8000, 'random misbehaviour');
    assert.equal(result.requestsSent, 400);
    assert.equal(result.totalRequests, 400);
    assert.equal(calls, 400);
    const { byStatus } = accounted(result);
    assert.deepEqual(Object.keys(result.statusCodes), byStatus ? ['200'] : []);
    for (const k of Object.keys(result.errorCodes)) {
      assert.ok(['ECONNRESET', 'EPIPE', 'closed before response', 'incomplete response'].includes(k), k);
    }
    // Every request that ended was read (the server only misbehaves after reading one); a
    // retried one was read once or twice (a retry may be lost with its reset connection).
    assert.ok(server.requests >= result.totalRequests, `server read ${server.requests}`);
    assert.ok(server.requests <= 400 + result.retries, `server read ${server.requests}, sent 400 + ${result.retries} retries`);
  } finally {
    await server.close();
  }
});

test('timeout shorter than the delay on keep-alive: late responses are never counted, not even after the run', async () => {
  // Every third request (in the server's order) is answered only after the run; the others at
  // once. (A timeout well above a loaded machine's pauses: an answer at once never meets it; 250
  // ms once did, under deno with four test files at once on two cores.)
  const late = [];
  const server = await rawServer(({ socket, server: s }) => {
    if (s.requests % 3 === 0) late.push(socket);
    else socket.write(ok());
  });
  let calls = 0;
  try {
    const result = await loadTest({
      url: server.url, maxRequests: 30, concurrency: 3, agentKeepAlive: true, timeout: 1000,
      statusCallback: () => calls++,
    });
    assert.equal(result.totalRequests, 30);
    assert.deepEqual(result.errorCodes, { timeout: 10 });
    assert.deepEqual(result.statusCodes, { 200: 20 });
    assert.equal(server.requests, 30);
    assert.ok(result.maxLatencyMs < 1000, `no late response counted: max ${result.maxLatencyMs} ms`);
    // The late responses arrive after the run: nothing may count them.
    for (const socket of late) if (!socket.destroyed) socket.write(ok());
    await sleep(100);
    assert.equal(calls, 30);
    assert.equal(result.totalRequests, 30);
    accounted(result);
  } finally {
    await server.close();
  }
});

test('maxSeconds stops while responses are half received: in flight, never completed later', async () => {
  // Half of each body now, the rest only after the run: only the deadline can end it.
  const halves = [];
  const server = await rawServer(({ socket }) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n01234');
    halves.push(socket);
  });
  let calls = 0;
  try {
    const result = await loadTest({
      url: server.url, maxSeconds: 0.2, concurrency: 4, agentKeepAlive: true,
      statusCallback: () => calls++,
    });
    assert.equal(result.requestsSent, 4);
    assert.equal(result.inFlight, 4);
    assert.equal(result.totalRequests, 0);
    assert.equal(result.totalErrors, 0);
    assert.ok(await until(() => server.requests === 4, 5000), `the server read ${server.requests} of 4`);
    assert.ok(result.totalTimeSeconds >= 0.19 && result.totalTimeSeconds < 2, `stopped at the deadline: ${result.totalTimeSeconds} s`);
    for (const socket of halves) if (!socket.destroyed) socket.write('56789');
    await sleep(100);
    assert.equal(calls, 0, 'the rest of the bodies arrived after the stop: not counted');
    accounted(result);
  } finally {
    await server.close();
  }
});

test('maxSeconds 0.05: a tiny run still adds up, against a fast and a silent server', async () => {
  const fast = await rawServer(({ socket }) => socket.write(ok()));
  const silent = await rawServer(() => {});
  try {
    const a = await loadTest({ url: fast.url, maxSeconds: 0.05, concurrency: 5, agentKeepAlive: true });
    accounted(a);
    assert.ok(a.totalTimeSeconds < 3, `${a.totalTimeSeconds} s`);
    assert.equal(a.totalErrors, 0);
    assert.ok(a.inFlight <= 5);
    // A request in flight at the stop may or may not have reached the server.
    assert.ok(fast.requests >= a.totalRequests && fast.requests <= a.requestsSent, `server ${fast.requests}, sent ${a.requestsSent}`);
    const b = await loadTest({ url: silent.url, maxSeconds: 0.05, concurrency: 5, agentKeepAlive: true });
    accounted(b);
    assert.equal(b.requestsSent, 5);
    assert.equal(b.inFlight, 5);
    assert.equal(b.totalRequests, 0);
  } finally {
    await fast.close();
    await silent.close();
  }
});

test('maxRequests 1 with concurrency 100: one request, one connection', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const result = await loadTest({ url: server.url, maxRequests: 1, concurrency: 100, agentKeepAlive: true });
    assert.equal(result.requestsSent, 1);
    assert.deepEqual(result.statusCodes, { 200: 1 });
    assert.equal(server.requests, 1);
    assert.equal(server.connections, 1);
    assert.equal(result.connections, 1);
    accounted(result);
  } finally {
    await server.close();
  }
});

// A server that closes a keep-alive connection `idleMs` after its last response; with
// `slowFirst`, the first response on each connection takes that long (a slow handshake).
function idleClosingServer(idleMs, slowFirstMs = 0) {
  return rawServer(({ socket, index }) => {
    clearTimeout(socket.idleTimer);
    const reply = () => {
      if (socket.destroyed) return;
      socket.write(ok());
      socket.idleTimer = setTimeout(() => socket.end(), idleMs);
    };
    if (slowFirstMs && index === 0) setTimeout(reply, slowFirstMs);
    else reply();
  });
}

test('open model: the server closes idle connections after 50 ms, requests come every 100 ms: no errors, nothing lost', async () => {
  const server = await idleClosingServer(50);
  try {
    const result = await loadTest({ url: server.url, requestsPerSecond: 10, maxSeconds: 1, concurrency: 2, agentKeepAlive: true, timeout: 2000 });
    accounted(result);
    assert.equal(result.totalErrors, 0, JSON.stringify(result.errorCodes));
    assert.equal(result.requestsSent + result.notSent, 10);
    assert.ok(result.requestsSent >= 9, `sent ${result.requestsSent}`);
    // The closes come 50 ms before the next request, unless the machine stood still that long:
    // then the request met the closing connection and went again on a new one (a retry, still
    // no error; the server may have read it on both). Seen with the suite and a bench at a load
    // average of 6, and under deno on node:net in CI's run.
    assert.ok(server.requests >= result.totalRequests && server.requests <= result.requestsSent + result.retries, `server ${server.requests}, sent ${result.requestsSent}, retries ${result.retries}`);
    // A connection each, but for two requests a stalled machine sent within 50 ms of each other
    // (the schedule catching up): the second may find the first's connection still open. Seen
    // once under deno on node:net in a clean-clone CI (9 connections for 10 requests).
    if (result.retries === 0) assert.ok(server.connections <= server.requests && server.connections >= 1, `${server.connections} connections for ${server.requests} requests`);
  } finally {
    await server.close();
  }
});

test('open model: idle connections closed just as the next request is due, first responses slow: never two requests on one connection', async () => {
  // The close of an idle connection often arrives after its next request is due but before the
  // 1 ms tick: the connection takes that request itself. A slow first response then keeps it
  // busy when the tick next looks for an idle connection.
  const runs = [];
  const servers = [];
  try {
    // Where the close lands next to the 10 ms schedule differs by runtime, so three runs close
    // a little before the next request is due and about when it is.
    for (const idleMs of [8, 9, 10]) {
      const i = servers.length;
      const server = await idleClosingServer(idleMs, 15);
      servers.push(server);
      runs.push(ended(loadTest({ url: server.url, requestsPerSecond: 100, maxSeconds: 1, concurrency: 1, agentKeepAlive: true }), 4000, `run ${i}`));
    }
    const results = await Promise.all(runs);
    results.forEach((result, i) => {
      accounted(result);
      assert.equal(result.totalErrors, 0, JSON.stringify(result.errorCodes));
      assert.ok(result.requestsSent >= 50, `sent ${result.requestsSent}`);
      // Each request read by the server was sent once, or once more as a documented retry.
      assert.ok(servers[i].requests <= result.requestsSent + result.retries, `server read ${servers[i].requests}, sent ${result.requestsSent} + ${result.retries} retries`);
      assert.ok(servers[i].requests >= result.totalRequests);
    });
  } finally {
    for (const server of servers) await server.close();
  }
});

test('HEAD with Transfer-Encoding: chunked, 304 and 204 with chunked: no body, connection reused', async () => {
  const server = await rawServer(({ socket, index }, req) => {
    if (req.method === 'HEAD') socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
    else if (index % 2 === 0) socket.write('HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n');
    else socket.write('HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n');
  });
  try {
    const head = await loadTest({ url: server.url, method: 'HEAD', maxRequests: 20, concurrency: 2, agentKeepAlive: true, timeout: 1000 });
    assert.deepEqual(head.statusCodes, { 200: 20 });
    assert.deepEqual(head.errorCodes, {});
    const get = await loadTest({ url: server.url, maxRequests: 20, concurrency: 1, agentKeepAlive: true, timeout: 1000 });
    assert.deepEqual(get.statusCodes, { 204: 10, 304: 10 });
    assert.deepEqual(get.errorCodes, {});
    assert.equal(server.requests, 40);
    assert.equal(server.connections, 3, 'no connection was dropped for a timeout or bad framing');
    accounted(head);
    accounted(get);
  } finally {
    await server.close();
  }
});

test('statusCallback under every kind of failure: one call per request ended, reasons as in errorCodes', async () => {
  const kinds = [
    (socket) => socket.write(ok()),
    (socket) => socket.write('HTTP/1.1 503 Busy\r\nContent-Length: 4\r\n\r\nbusy'),
    (socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n012'),
    (socket) => socket.write('HTTX/1.1 200 OK\r\n\r\n'),
    (socket) => reset(socket),
    (socket) => socket.end(),
  ];
  const server = await rawServer(({ socket, server: s }) => kinds[(s.requests - 1) % kinds.length](socket));
  const reasons = {};
  let calls = 0;
  let errors = 0;
  try {
    const result = await loadTest({
      url: server.url, maxRequests: 60, concurrency: 2, agentKeepAlive: true, timeout: 2000,
      statusCallback: (error, r) => {
        calls++;
        if (error) errors++;
        const key = r.statusCode === null ? error.code : String(r.statusCode);
        reasons[key] = (reasons[key] || 0) + 1;
      },
    });
    assert.equal(result.totalRequests, 60);
    accounted(result);
    assert.equal(calls, 60);
    assert.equal(errors, result.totalErrors);
    const expected = { ...result.statusCodes };
    for (const [k, v] of Object.entries(result.errorCodes)) if (!isStatusKey(k)) expected[k] = v;
    assert.deepEqual(reasons, expected);
    assert.equal(server.requests, 60 + result.retries);
  } finally {
    await server.close();
  }
});

test('contentInspector custom errors without a code add to the same status in errorCodes, not replace it', async () => {
  const server = await rawServer(({ socket }) => socket.write('HTTP/1.1 503 Busy\r\nContent-Length: 4\r\n\r\nbusy'));
  try {
    const result = await loadTest({
      url: server.url, maxRequests: 20, concurrency: 1, agentKeepAlive: true,
      contentInspector: (r) => {
        if (r.requestIndex % 4 === 0) r.customError = 'flagged';
      },
    });
    assert.equal(result.totalRequests, 20);
    assert.equal(result.totalErrors, 20);
    assert.equal(result.errorCodes[503], 20, JSON.stringify(result.errorCodes));
    assert.equal(server.requests, 20);
  } finally {
    await server.close();
  }
});

test('a contentInspector that throws does not wreck the counts: every response is still counted by status', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  const error = console.error;
  const printed = [];
  console.error = (line) => printed.push(line);
  try {
    const result = await ended(loadTest({
      url: server.url, maxRequests: 20, concurrency: 2, agentKeepAlive: true,
      contentInspector: (r) => {
        if (r.requestIndex % 5 === 0) throw new Error('inspector bug');
      },
    }), 3000, 'throwing contentInspector');
    assert.equal(result.totalRequests, 20);
    assert.deepEqual(result.statusCodes, { 200: 20 });
    assert.equal(server.requests, 20);
    assert.equal(server.connections, 2, 'no connection stalled or dropped');
    assert.equal(printed.filter((l) => /contentInspector threw: inspector bug/.test(l)).length, 1, 'reported once');
    accounted(result);
  } finally {
    console.error = error;
    await server.close();
  }
});

test('cores 2 against a server that resets at random: the children\'s totals add up', async () => {
  const random = seeded(7);
  let resets = 0;
  const server = await rawServer(({ socket }) => {
    if (random() < 0.25) {
      resets++;
      reset(socket);
    } else {
      socket.write(ok());
    }
  });
  try {
    const result = await loadTest({ url: server.url, maxRequests: 200, concurrency: 4, agentKeepAlive: true, cores: 2 });
    assert.equal(result.cores, 2);
    assert.deepEqual(result.childErrors, []);
    assert.equal(result.requestsSent, 200);
    assert.equal(result.totalRequests, 200);
    const { failures } = accounted(result);
    assert.equal(resets, failures + result.retries);
    assert.equal(server.requests, 200 + result.retries);
    assert.equal(result.statusCodes[200], 200 - failures);
    // And a run of 50 ms on two cores: each child stops at the shared deadline, the sum adds up.
    const before = server.requests;
    const short = await loadTest({ url: server.url, maxSeconds: 0.05, concurrency: 4, agentKeepAlive: true, cores: 2 });
    assert.deepEqual(short.childErrors, []);
    accounted(short);
    // A child may start after the 50 ms on a loaded machine, and send nothing: what was sent
    // and answered reached the server, and no more than was sent.
    assert.ok(server.requests - before >= short.requestsSent - short.inFlight);
    assert.ok(short.inFlight <= 4);
    assert.ok(server.requests - before <= short.requestsSent + short.retries);
  } finally {
    await server.close();
  }
});

test('open model against a silent server: sent + not sent is the whole schedule, every sent request in flight', async () => {
  const server = await rawServer(() => {});
  try {
    const result = await loadTest({ url: server.url, requestsPerSecond: 100, maxSeconds: 0.3, concurrency: 3, agentKeepAlive: true });
    accounted(result);
    assert.equal(result.requestsSent, 3);
    assert.equal(result.inFlight, 3);
    assert.equal(result.totalRequests, 0);
    assert.equal(result.requestsSent + result.notSent, 30, 'due before the deadline: 300 ms / 10 ms');
    assert.equal(server.requests, 3);
  } finally {
    await server.close();
  }
});

test('an abort while responses are half received: in flight, and the rest of the bytes count for nothing', async () => {
  // Requests 7 to 9 go out as 1 to 6 are answered (3 connections): the abort comes once the
  // server has begun all three answers, whatever the machine's speed.
  const controller = new AbortController();
  const halves = [];
  const server = await rawServer(({ socket, server: s }) => {
    if (s.requests <= 6) return socket.write(ok());
    socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel');
    halves.push(socket);
    if (halves.length === 3) setTimeout(() => controller.abort(), 20);
  });
  let calls = 0;
  try {
    const run = loadTest({
      url: server.url, maxRequests: 100, concurrency: 3, agentKeepAlive: true, signal: controller.signal,
      statusCallback: () => calls++,
    });
    const result = await ended(run, 10000, 'abort');
    assert.equal(result.totalRequests, 6);
    assert.equal(result.inFlight, 3);
    assert.equal(result.requestsSent, 9);
    assert.equal(server.requests, 9);
    // The rest of the answers, after the stop: they count for nothing.
    for (const socket of halves) if (!socket.destroyed) socket.write('lo\r\n0\r\n\r\n');
    await sleep(100);
    assert.equal(calls, 6);
    accounted(result);
  } finally {
    await server.close();
  }
});

test('a child whose go arrives after the shared deadline sends nothing and ends, rather than running without a limit', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    // What src/run/worker.js does on `go <startAt> <stopAt>`, with the deadline already past.
    const { run } = await prepare({ url: server.url, maxSeconds: 0.05, concurrency: 2, agentKeepAlive: true });
    run.config.startAt = Date.now() - 40;
    run.config.stopAt = Date.now() - 5;
    const stats = await ended(run.start(), 1000, 'late go');
    assert.equal(stats.sent, 0);
    assert.equal(stats.completed + stats.failed + stats.inFlightAtStop, 0);
    assert.equal(server.requests, 0);
  } finally {
    await server.close();
  }
});

test('a POST is not sent again when a kept-alive connection closes under it (RFC 9112 9.3.1): it fails', async () => {
  const server = await rawServer(({ socket, index }) => {
    socket.write(ok());
    if (index === 4) socket.end();
  });
  try {
    const result = await ended(loadTest({ url: server.url, method: 'POST', body: 'x', maxRequests: 120, concurrency: 2, agentKeepAlive: true }), 10000, 'post');
    accounted(result);
    assert.equal(result.retries, 0);
    assert.equal(result.totalRequests, 120);
    // Nothing is sent twice; a request written as the server closed may never reach it.
    assert.ok(server.requests <= result.requestsSent && server.requests >= result.requestsSent - result.totalErrors, `server read ${server.requests}`);
    assert.ok(result.totalErrors > 0, 'the requests caught by a close failed');
    const reasons = Object.keys(result.errorCodes);
    assert.ok(reasons.every((r) => ['closed before response', 'ECONNRESET', 'EPIPE'].includes(r)), reasons.join());
  } finally {
    await server.close();
  }
});

test('a request generator that throws fails that request with the reason and ends the run', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const result = await ended(loadTest({
      url: server.url, maxRequests: 100, concurrency: 1, agentKeepAlive: true,
      requestGenerator: (i) => {
        if (i === 7) throw new Error('no more ids');
        return { path: `/${i}` };
      },
    }), 5000, 'generator');
    accounted(result);
    assert.match(result.abortReason, /request generator threw: no more ids/);
    assert.equal(result.errorCodes['request generator threw: no more ids'], 1);
    assert.equal(result.statusCodes[200], 7);
    assert.equal(server.requests, 7);
  } finally {
    await server.close();
  }
});

test('responses a contentInspector marks as errors still count in statusCodes', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const result = await loadTest({
      url: server.url, maxRequests: 10, concurrency: 1, agentKeepAlive: true,
      contentInspector: (r) => { if (r.requestIndex % 2) r.customError = 'odd'; },
    });
    accounted(result);
    assert.deepEqual(result.statusCodes, { 200: 10 });
    assert.deepEqual(result.errorCodes, { 200: 5 });
    assert.equal(result.totalErrors, 5);
  } finally {
    await server.close();
  }
});
