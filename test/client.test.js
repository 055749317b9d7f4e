// End to end: loadTest() against raw servers that behave like real ones. Every test checks that
// each request sent is accounted for, and compares with what the server read.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadTest, prepare } from '../src/index.js';
import { makeResult } from '../src/run/result.js';
import { rawServer, writeInPieces, ok, shownReport } from './servers.js';

// sent == completed + failed + in flight, and the report's totals agree with the counters.
function assertAccounted(result) {
  const completed = Object.values(result.statusCodes).reduce((a, b) => a + b, 0) +
    Object.entries(result.errorCodes).filter(([k]) => k.includes(':')).reduce((a, [, v]) => a + v, 0);
  const failed = result.totalRequests - completed;
  assert.equal(result.requestsSent, completed + failed + result.inFlight, 'every request sent is accounted for');
}

test('keep-alive: the server reads exactly maxRequests requests and all are reported', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const result = await loadTest({ url: server.url, maxRequests: 503, concurrency: 7, agentKeepAlive: true });
    assert.equal(result.totalRequests, 503);
    assert.equal(result.totalErrors, 0);
    assert.equal(server.requests, 503);
    assert.equal(result.statusCodes[200], 503);
    assert.ok(server.connections <= 7, `at most 7 connections, got ${server.connections}`);
    assertAccounted(result);
  } finally {
    await server.close();
  }
});

test('without keep-alive: one connection per request, connection: close sent', async () => {
  let closeHeaders = 0;
  const server = await rawServer(({ socket }, req) => {
    if (req.headers.connection === 'close') closeHeaders++;
    socket.end(ok());
  });
  try {
    const result = await loadTest({ url: server.url, maxRequests: 60, concurrency: 4 });
    assert.equal(result.totalRequests, 60);
    assert.equal(result.totalErrors, 0);
    assert.equal(server.requests, 60);
    assert.equal(server.connections, 60);
    assert.equal(closeHeaders, 60);
  } finally {
    await server.close();
  }
});

test('many connections open at a bounded pace, and the result says how long opening took', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const { config, adapter, run } = await prepare({ url: server.url, maxRequests: 600, concurrency: 300, agentKeepAlive: true });
    // 32 a millisecond from when the run began opening (src/run/opening.js): the k-th connect
    // comes no sooner than k / 32 ms after it. Counted from before start(), a little earlier, the
    // bound only loosens; a slow machine opens fewer by then, never more.
    let connects = 0;
    let over = null;
    const t0 = performance.now();
    run.adapter = {
      name: adapter.name,
      connect: (...args) => {
        connects++;
        const allowed = Math.ceil((performance.now() - t0 + 1) * 32);
        if (connects > allowed && over === null) over = `connect ${connects} at ${(performance.now() - t0).toFixed(2)} ms`;
        return adapter.connect(...args);
      },
    };
    const stats = await run.start();
    assert.equal(over, null, over);
    assert.equal(connects, 300);
    assert.equal(server.connections, 300);
    assert.equal(stats.completed, 600);
    const result = makeResult(config, stats);
    assert.ok(result.connectMs >= 1 && result.connectMs <= result.totalTimeSeconds * 1000 + 1, `connectMs ${result.connectMs}`);
    assert.match(shownReport(result), new RegExp(`Connections opened: +300 in ${result.connectMs} ms`));
  } finally {
    await server.close();
  }
});

test('maxRequests below concurrency opens no more connections than requests', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const result = await loadTest({ url: server.url, maxRequests: 3, concurrency: 50, agentKeepAlive: true });
    assert.equal(result.totalRequests, 3);
    assert.equal(server.requests, 3);
    assert.equal(server.connections, 3);
  } finally {
    await server.close();
  }
});

test('chunked bodies with extensions and trailers, split into 3-byte packets, all complete', async () => {
  const body = '4;ext=1\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nExpires: never\r\n\r\n';
  const server = await rawServer(({ socket }) =>
    writeInPieces(socket, `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${body}`, 3));
  const bodies = [];
  try {
    const result = await loadTest({
      url: server.url, maxRequests: 20, concurrency: 2, agentKeepAlive: true,
      statusCallback: (error, r) => bodies.push(r.body),
    });
    assert.equal(result.totalRequests, 20);
    assert.equal(result.totalErrors, 0);
    assert.equal(server.requests, 20);
    assert.equal(server.connections, 2, 'chunked framing lets the connections be reused');
    assert.deepEqual(new Set(bodies), new Set(['Wikipedia in\r\n\r\nchunks.']));
  } finally {
    await server.close();
  }
});

test('bodies that end when the server closes are complete at the close, not before', async () => {
  const server = await rawServer(({ socket }) =>
    writeInPieces(socket, 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n' + 'x'.repeat(3000), 700, () => socket.end()));
  const lengths = [];
  try {
    const result = await loadTest({
      url: server.url, maxRequests: 12, concurrency: 3, agentKeepAlive: true,
      statusCallback: (error, r) => lengths.push(r.body.length),
    });
    assert.equal(result.totalRequests, 12);
    assert.equal(result.totalErrors, 0);
    assert.equal(server.requests, 12);
    assert.deepEqual(lengths, Array(12).fill(3000));
  } finally {
    await server.close();
  }
});

test('1xx interim responses are skipped: one 200 per request', async () => {
  const server = await rawServer(({ socket }) =>
    writeInPieces(socket, 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n' + ok(), 5));
  try {
    const result = await loadTest({ url: server.url, maxRequests: 30, concurrency: 3, agentKeepAlive: true });
    assert.equal(result.totalRequests, 30);
    assert.deepEqual(result.statusCodes, { 200: 30 });
    assert.equal(server.requests, 30);
  } finally {
    await server.close();
  }
});

test('204, 304 and HEAD replies have no body whatever their content-length says', async () => {
  const server = await rawServer(({ socket, index }, req) => {
    if (req.method === 'HEAD') socket.write('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n');
    else if (index % 2 === 0) socket.write('HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n');
    else socket.write('HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n');
  });
  try {
    const get = await loadTest({ url: server.url, maxRequests: 40, concurrency: 2, agentKeepAlive: true, timeout: 2000 });
    assert.deepEqual(get.statusCodes, { 204: 20, 304: 20 });
    assert.equal(get.totalErrors, 0);
    const head = await loadTest({ url: server.url, method: 'HEAD', maxRequests: 20, concurrency: 2, agentKeepAlive: true, timeout: 2000 });
    assert.deepEqual(head.statusCodes, { 200: 20 });
    assert.equal(head.totalErrors, 0);
    assert.equal(server.requests, 60);
    assert.equal(server.connections, 4, 'no connection was dropped for a timeout');
  } finally {
    await server.close();
  }
});

test('a server that closes keep-alive connections after 5 responses, without warning: nothing lost', async () => {
  const server = await rawServer(({ socket, index }) => {
    socket.write(ok());
    if (index === 4) socket.end();
  });
  try {
    const result = await loadTest({ url: server.url, maxRequests: 200, concurrency: 4, agentKeepAlive: true });
    assert.equal(result.totalRequests, 200);
    assert.equal(result.totalErrors, 0, JSON.stringify(result.errorCodes));
    // A request sent as the server closed was read by it but never answered, or never reached it
    // (node's adapters hold a write made while reading to the turn's end, and the close may come
    // first): either way it is retried, and the server read each request once or twice.
    assert.ok(server.requests >= 200 && server.requests <= 200 + result.retries, `${server.requests} requests read, ${result.retries} retries`);
    assert.ok(server.connections >= 40, `reconnected: ${server.connections} connections`);
  } finally {
    await server.close();
  }
});

test('connection: close from the server is obeyed: the next request goes on a new connection', async () => {
  const server = await rawServer(({ socket, index }) => {
    socket.write(ok('OK', index === 2 ? 'Connection: close\r\n' : ''));
    if (index === 2) socket.end();
  });
  try {
    const result = await loadTest({ url: server.url, maxRequests: 30, concurrency: 1, agentKeepAlive: true });
    assert.equal(result.totalRequests, 30);
    assert.equal(result.totalErrors, 0);
    assert.equal(result.retries, 0, 'no request was written to the closing connection');
    assert.equal(server.requests, 30);
    assert.equal(server.connections, 10);
  } finally {
    await server.close();
  }
});

test('a server that resets every connection: each request fails with a reason', async () => {
  const server = await rawServer(({ socket }) => {
    if (socket.resetAndDestroy) socket.resetAndDestroy();
    else socket.destroy();
  });
  try {
    const result = await loadTest({ url: server.url, maxRequests: 25, concurrency: 5, agentKeepAlive: true });
    assert.equal(result.totalRequests, 25);
    assert.equal(result.totalErrors, 25);
    const reasons = Object.keys(result.errorCodes);
    assert.ok(reasons.every((r) => r === 'ECONNRESET' || r === 'closed before response'), reasons.join());
    assert.equal(server.requests, 25);
    assertAccounted(result);
  } finally {
    await server.close();
  }
});

test('malformed responses are errors with a reason, and the run goes on', async () => {
  const server = await rawServer(({ socket, server: s }) => {
    if (s.requests % 5 === 1) socket.write('HTTX/1.1 200 OK\r\n\r\n');
    else socket.write(ok());
  });
  try {
    const result = await loadTest({ url: server.url, maxRequests: 20, concurrency: 1, agentKeepAlive: true });
    assert.equal(result.totalRequests, 20);
    assert.deepEqual(result.errorCodes, { 'malformed response: malformed status line': 4 });
    assert.equal(result.statusCodes[200], 16);
    assert.equal(server.requests, 20);
    assert.equal(server.connections, 5, 'a connection that sent garbage is not reused');
  } finally {
    await server.close();
  }
});

test('a response head over 64 KiB is an error', async () => {
  const big = 'X-Big: ' + 'a'.repeat(70 * 1024) + '\r\n';
  const server = await rawServer(({ socket }) => socket.write(ok('OK', big)));
  try {
    const result = await loadTest({ url: server.url, maxRequests: 4, concurrency: 1, agentKeepAlive: true });
    assert.equal(result.totalRequests, 4);
    assert.deepEqual(result.errorCodes, { 'malformed response: response head over 64 KiB': 4 });
  } finally {
    await server.close();
  }
});

test('timeout: a server that never answers gives timeout errors, and the run ends', async () => {
  const server = await rawServer(() => {});
  try {
    const result = await loadTest({ url: server.url, maxRequests: 6, concurrency: 3, agentKeepAlive: true, timeout: 100 });
    assert.equal(result.totalRequests, 6);
    assert.deepEqual(result.errorCodes, { timeout: 6 });
    assert.equal(server.requests, 6);
  } finally {
    await server.close();
  }
});

test('maxSeconds with a slow server: requests still out are reported in flight', async () => {
  const server = await rawServer(({ socket }) => setTimeout(() => !socket.destroyed && socket.write(ok()), 150));
  try {
    const result = await loadTest({ url: server.url, maxSeconds: 0.5, concurrency: 4, agentKeepAlive: true });
    assert.ok(result.totalTimeSeconds < 5, `stopped in time: ${result.totalTimeSeconds}`);
    assert.equal(result.inFlight, 4);
    assert.equal(result.totalErrors, 0);
    assert.equal(result.requestsSent, result.totalRequests + result.inFlight);
    // One written just before the stop may be cut with its connection before the server reads it.
    assert.ok(server.requests >= result.totalRequests && server.requests <= result.requestsSent, `server ${server.requests}, sent ${result.requestsSent}`);
    assert.ok(result.minLatencyMs >= 140, `latency includes the delay: ${result.minLatencyMs}`);
  } finally {
    await server.close();
  }
});

test('connection refused is counted, not thrown', async () => {
  const server = await rawServer(() => {});
  const url = server.url;
  await server.close();
  const result = await loadTest({ url, maxRequests: 10, concurrency: 2 });
  assert.equal(result.totalRequests, 10);
  assert.deepEqual(result.errorCodes, { ECONNREFUSED: 10 });
});

test('requestsPerSecond keeps a steady rate', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const result = await loadTest({ url: server.url, requestsPerSecond: 100, maxSeconds: 1, concurrency: 5, agentKeepAlive: true });
    // The schedule: 100 due in the second, each sent or said not sent, and never more than due
    // reach the server. How many were sent in time is the machine's (a loaded one sent 84).
    assert.equal(result.requestsSent + result.notSent, 100, 'due before the deadline: 1000 ms / 10 ms');
    assert.ok(server.requests <= 100, `sent ${server.requests} in 1 s at 100 rps`);
    // A request written just as the run stopped is in flight, and may not have reached the server.
    assert.ok(server.requests >= result.requestsSent - result.inFlight && server.requests <= result.requestsSent);
  } finally {
    await server.close();
  }
});

test('HTTP error statuses count as errors by code, as in loadtest 8', async () => {
  const server = await rawServer(({ socket, index }) =>
    socket.write(index % 2 ? ok() : 'HTTP/1.1 503 Busy\r\nContent-Length: 4\r\n\r\nbusy'));
  try {
    const result = await loadTest({ url: server.url, maxRequests: 20, concurrency: 1, agentKeepAlive: true });
    assert.equal(result.totalRequests, 20);
    assert.equal(result.totalErrors, 10);
    assert.deepEqual(result.errorCodes, { 503: 10 });
  } finally {
    await server.close();
  }
});

test('request bytes: method, body, content-length, headers and cookies reach the server', async () => {
  let seen = null;
  const server = await rawServer(({ socket }, req) => {
    seen = req;
    socket.write(ok());
  });
  try {
    await loadTest({
      url: server.url + 'path?q=1', method: 'post', body: { hello: 'wörld' }, contentType: 'application/json',
      headers: { 'X-Test': 'yes' }, cookies: ['a=1', 'b=2'], maxRequests: 1, concurrency: 1,
    });
    assert.equal(seen.method, 'POST');
    assert.equal(seen.path, '/path?q=1');
    assert.equal(seen.body, '{"hello":"wörld"}');
    assert.equal(Number(seen.headers['content-length']), Buffer.byteLength('{"hello":"wörld"}'));
    assert.equal(seen.headers['content-type'], 'application/json');
    assert.equal(seen.headers['x-test'], 'yes');
    assert.equal(seen.headers.cookie, 'a=1; b=2');
    assert.equal(seen.headers.host, `127.0.0.1:${server.port}`);
    assert.match(seen.headers['user-agent'], /^loadtest\/\d/);
  } finally {
    await server.close();
  }
});
