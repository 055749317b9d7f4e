// Pipelining (--pipeline N, API pipelining): up to N requests in flight per connection, the
// responses matched to them in order, and every request accounted for when a server cuts a
// pipeline short.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { loadTest } from '../src/index.js';
import { rawServer, ok, spawnScript, shownReport } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

// A server that answers each request with its path as the body, holding the answers of one
// connection until the next turn of the event loop and then writing them together: so several
// requests are in flight at once, and several responses share a packet. `pending` records the
// most requests it held unanswered on one connection.
function batchingServer({ pieces = 0, chunkedEvery = 0 } = {}) {
  const held = new Map();
  const unsent = new Map(); // with pieces: bytes of a socket not written yet, in order
  let server;
  // Packets that cut across responses: a response ends and the next begins inside one.
  const drip = (socket) => {
    const bytes = unsent.get(socket);
    if (socket.destroyed || bytes.length === 0) return unsent.delete(socket);
    socket.write(bytes.subarray(0, pieces));
    unsent.set(socket, bytes.subarray(pieces));
    setTimeout(() => drip(socket), 0);
  };
  const flush = (socket) => {
    const replies = held.get(socket);
    held.delete(socket);
    if (socket.destroyed) return;
    const text = replies.join('');
    if (!pieces) return socket.write(text);
    const waiting = unsent.get(socket);
    unsent.set(socket, waiting ? Buffer.concat([waiting, Buffer.from(text)]) : Buffer.from(text));
    if (!waiting) drip(socket);
  };
  const answer = (req, n) => {
    if (req.method === 'HEAD') return `HTTP/1.1 200 OK\r\nContent-Length: ${req.path.length}\r\n\r\n`;
    if (chunkedEvery && n % chunkedEvery === 0) {
      const half = req.path.length >> 1;
      const chunk = (s) => `${s.length.toString(16)}\r\n${s}\r\n`;
      return `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${chunk(req.path.slice(0, half))}${chunk(req.path.slice(half))}0\r\n\r\n`;
    }
    return ok(req.path);
  };
  return rawServer(({ socket, index }, req) => {
    let replies = held.get(socket);
    if (replies === undefined) {
      replies = [];
      held.set(socket, replies);
      setTimeout(() => flush(socket), 0);
    }
    replies.push(answer(req, index));
    if (replies.length > server.pending) server.pending = replies.length;
  }).then((s) => {
    server = s;
    s.pending = 0;
    return s;
  });
}

// Every request index from 0 to n - 1 reported once, each with its own path as its body.
function assertMatched(seen, n) {
  assert.equal(seen.length, n, 'statusCallback saw every request');
  const indexes = new Set(seen.map((s) => s.index));
  assert.equal(indexes.size, n, 'each request reported once');
  for (const s of seen) {
    assert.equal(s.path, `/r/${s.index}`);
    assert.equal(s.body, s.head ? '' : s.path, `request ${s.index} got its own response`);
  }
}

const record = (seen) => (error, r) => seen.push({ index: r.requestIndex, path: r.path, body: r.statusCode ? r.body : null, status: r.statusCode, head: r.method === 'HEAD', error: error && error.code });

test('--pipeline 8: every request counted by the server, up to 8 in flight, each response matched to its own request', async () => {
  const server = await batchingServer();
  const seen = [];
  try {
    const result = await loadTest({ url: server.url + 'r/IDX', index: 'IDX', maxRequests: 600, concurrency: 3, pipelining: 8, statusCallback: record(seen) });
    assert.equal(result.totalRequests, 600);
    assert.equal(result.totalErrors, 0);
    assert.equal(server.requests, 600, 'server count == completed');
    assert.equal(server.connections, 3);
    assert.ok(server.pending > 1 && server.pending <= 8, `requests held at once on a connection: ${server.pending}`);
    assert.equal(result.pipelining, 8);
    assert.equal(result.agent, 'keepalive', 'pipelining implies keep-alive');
    assertMatched(seen, 600);
  } finally {
    await server.close();
  }
});

test('responses cut across 5-byte packets, chunked and not, parse in order', async () => {
  const server = await batchingServer({ pieces: 5, chunkedEvery: 3 });
  const seen = [];
  try {
    const result = await loadTest({ url: server.url + 'r/IDX', index: 'IDX', maxRequests: 120, concurrency: 2, pipelining: 6, statusCallback: record(seen) });
    assert.equal(result.totalRequests, 120);
    assert.equal(result.totalErrors, 0);
    assert.equal(result.unexpectedData, 0);
    assert.equal(server.requests, 120);
    assert.ok(server.pending > 1, `pipelined: ${server.pending}`);
    assertMatched(seen, 120);
  } finally {
    await server.close();
  }
});

test('HEAD and GET interleaved in one pipeline: the parser knows which responses have no body', async () => {
  const server = await batchingServer();
  const seen = [];
  try {
    const result = await loadTest({
      url: server.url, maxRequests: 200, concurrency: 2, pipelining: 8, statusCallback: record(seen),
      requestGenerator: (index) => ({ method: index % 3 === 0 ? 'HEAD' : 'GET', path: `/r/${index}` }),
    });
    assert.equal(result.totalRequests, 200);
    assert.equal(result.totalErrors, 0);
    assert.equal(result.unexpectedData, 0);
    assert.equal(server.requests, 200);
    assert.equal(seen.filter((s) => s.head).length, 67);
    assertMatched(seen, 200);
  } finally {
    await server.close();
  }
});

// Answers the first `k` requests of each connection (in one write), then closes it cleanly;
// the requests behind them on that connection get nothing.
function closingServer(k) {
  return rawServer(({ socket, index, server }) => {
    if (index >= k) return;
    server.answered = (server.answered || 0) + 1;
    if (index === k - 1) socket.end(ok(`/r/${server.answered}`));
    else socket.write(ok(`/r/${server.answered}`));
  });
}

test('a server closing after 3 responses mid-pipeline: GETs behind are retried once, and every request ends exactly once', async () => {
  const server = await closingServer(3);
  const seen = [];
  try {
    const result = await loadTest({ url: server.url + 'r/IDX', index: 'IDX', maxRequests: 40, concurrency: 1, pipelining: 8, statusCallback: (e, r) => seen.push({ index: r.requestIndex, error: e && e.code }) });
    const failed = result.errorsByReason['closed before response'] || 0;
    assert.equal(result.statusCodes[200], server.answered, 'completed == responses the server wrote');
    assert.equal(result.totalRequests, 40, 'completed + failed');
    assert.equal(result.inFlight, 0);
    assert.equal(result.statusCodes[200] + failed, 40);
    assert.deepEqual(Object.keys(result.errorsByReason).filter((k) => k !== 'closed before response'), []);
    assert.ok(result.retries >= 5, `the 5 unanswered behind the first 3 were sent again: ${result.retries}`);
    // A request sent again and cut short again fails: none is sent a third time.
    assert.ok(server.requests <= 40 + result.retries, `server read ${server.requests}`);
    assert.equal(new Set(seen.map((s) => s.index)).size, 40, 'each request reported once');
    assert.equal(seen.filter((s) => s.error === 'closed before response').length, failed);
  } finally {
    await server.close();
  }
});

test('a server closing mid-pipeline: POSTs behind are not retried; each fails as closed before response', async () => {
  const server = await closingServer(3);
  try {
    const result = await loadTest({ url: server.url, method: 'POST', body: 'x', maxRequests: 40, concurrency: 1, pipelining: 8 });
    assert.equal(result.retries, 0);
    assert.equal(result.statusCodes[200], server.answered);
    assert.equal(result.statusCodes[200] + result.errorsByReason['closed before response'], 40);
    assert.ok(result.errorsByReason['closed before response'] >= 5, JSON.stringify(result.errorsByReason));
    // Those written as the server closed may never be read; none is read twice.
    assert.ok(server.requests >= server.answered && server.requests <= 40, `server read ${server.requests} POSTs`);
  } finally {
    await server.close();
  }
});

test('Connection: close in a response: the requests after it on that connection are sent again elsewhere', async () => {
  // The second response of each connection says close; the server then answers nothing more on it.
  const server = await rawServer(({ socket, index }, req) => {
    if (index === 0) socket.write(ok(req.path));
    else if (index === 1) socket.end(ok(req.path, 'Connection: close\r\n'));
  });
  const seen = [];
  try {
    const result = await loadTest({ url: server.url + 'r/IDX', index: 'IDX', maxRequests: 30, concurrency: 2, pipelining: 4, statusCallback: record(seen) });
    const completed = result.statusCodes[200];
    assert.equal(completed + (result.errorsByReason['closed before response'] || 0), 30);
    assert.ok(completed >= 15, `answered ${completed}`);
    assert.ok(result.retries > 0);
    assert.equal(result.unexpectedData, 0);
    for (const s of seen) if (s.status === 200) assert.equal(s.body, s.path, `request ${s.index} got its own response`);
  } finally {
    await server.close();
  }
});

test('--rps with --pipeline: a schedule one connection could not keep one at a time is kept, counts exact', async () => {
  // 20 ms a response, in order: one request at a time would do 50 per second.
  const server = await rawServer(({ socket }) => setTimeout(() => !socket.destroyed && socket.write(ok()), 20));
  try {
    const result = await loadTest({ url: server.url, requestsPerSecond: 200, maxSeconds: 1, concurrency: 1, pipelining: 16 });
    assert.equal(result.requestsSent + result.notSent, 200);
    assert.ok(result.requestsSent >= 190, `sent ${result.requestsSent}`);
    assert.equal(result.requestsSent, result.totalRequests + result.inFlight);
    assert.equal(result.totalErrors, 0);
    assert.equal(server.connections, 1);
    assert.ok(result.inFlight <= 16);
    assert.ok(server.requests >= result.totalRequests && server.requests <= result.requestsSent, `server read ${server.requests}`);
  } finally {
    await server.close();
  }
});

test('-d with a server that answers only the first of a pipeline: the rest time out, each from its own send', async () => {
  const server = await rawServer(({ socket, index }) => index === 0 && socket.write(ok()));
  try {
    const started = performance.now();
    const result = await loadTest({ url: server.url, maxRequests: 8, concurrency: 1, pipelining: 8, timeout: 300 });
    const elapsed = performance.now() - started;
    const timeouts = result.errorsByReason.timeout || 0;
    const completed = result.statusCodes[200] || 0;
    // A request still within its time when the one ahead timed out is sent again, and is the
    // first on its new connection: answered.
    assert.equal(completed + timeouts, 8);
    assert.ok(completed >= 1 && timeouts >= 1, `completed ${completed}, timeouts ${timeouts}`);
    assert.equal(result.statusCodes[200], server.connections, 'one answer per connection');
    assert.ok(elapsed >= 280 && elapsed < 5000, `${elapsed} ms`);
  } finally {
    await server.close();
  }
});

test('--cores 2 passes pipelining to the children', async () => {
  const server = await batchingServer();
  try {
    const result = await loadTest({ url: server.url, maxRequests: 200, concurrency: 2, pipelining: 4, cores: 2 });
    assert.equal(result.cores, 2);
    assert.equal(result.totalRequests, 200);
    assert.equal(server.requests, 200);
    assert.ok(server.pending > 1 && server.pending <= 4, `held at once: ${server.pending}`);
    assert.equal(result.pipelining, 4);
  } finally {
    await server.close();
  }
});

test('CLI: --pipeline 4 shows in the report; ws:// and --pipeline 0 are one-line usage errors', async () => {
  const server = await batchingServer();
  try {
    const run = await spawnScript(CLI, ['-n', '50', '-c', '2', '--pipeline', '4', '--quiet', server.url]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Pipelining:\s+4 /);
    assert.match(run.stdout, /Agent:\s+keepalive/);
    assert.match(run.stdout, /Completed requests:\s+50/);
    assert.equal(server.requests, 50);
  } finally {
    await server.close();
  }
  const ws = await spawnScript(CLI, ['-n', '5', '--pipeline', '2', 'ws://127.0.0.1:9/']);
  assert.equal(ws.code, 2);
  assert.match(ws.stderr, /^loadtest: pipelining does not apply to ws:\/\/ URLs[^\n]*\n$/);
  const zero = await spawnScript(CLI, ['-n', '5', '--pipeline', '0', 'http://127.0.0.1:9/']);
  assert.equal(zero.code, 2);
  assert.match(zero.stderr, /^loadtest: --pipeline must be at least 1[^\n]*\n$/);
});

test('without --pipeline the report has no Pipelining line and the result says 1', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const result = await loadTest({ url: server.url, maxRequests: 10, concurrency: 2, agentKeepAlive: true });
    assert.equal(result.pipelining, 1);
    assert.doesNotMatch(shownReport(result), /Pipelining/);
  } finally {
    await server.close();
  }
});
