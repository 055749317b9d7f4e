// HTTP/2 (--http2): h2c and h2 over every adapter this runtime has, against node:http2 servers
// (on each runtime) and raw frame servers written here for the edges of RFC 9113. Every test
// checks that each request ended once: completed, failed with a reason, or in flight at the stop.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import { runtime } from '../runtimes/index.js';
import { loadTest, startServer } from '../src/index.js';
import { spawnScript, shownReport } from './servers.js';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const pem = (name) => readFileSync(new URL(`./tls/${name}.pem`, import.meta.url), 'utf8');
const names = ['node', runtime.name === 'node' ? null : runtime.name].filter(Boolean);
const { constants } = http2;

function accounted(r) {
  assert.equal(r.totalRequests + r.inFlight, r.requestsSent, `completed + failed + in flight != sent: ${JSON.stringify({ total: r.totalRequests, inFlight: r.inFlight, sent: r.requestsSent })}`);
}

// A node:http2 server (h2c, or h2 with `tls`) that calls onStream(stream, headers, state) and
// counts streams, the most open at once, and sessions.
async function h2Server(onStream, { tls = false, settings = {} } = {}) {
  const state = { streams: 0, open: 0, maxOpen: 0, sessions: 0, bodies: [] };
  const options = { settings };
  const server = tls ? http2.createSecureServer({ ...options, key: pem('server-key'), cert: pem('server') }) : http2.createServer(options);
  const sessions = new Set();
  server.on('session', (session) => {
    state.sessions++;
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.on('error', () => {});
  });
  server.on('stream', (stream, headers) => {
    state.streams++;
    state.open++;
    if (state.open > state.maxOpen) state.maxOpen = state.open;
    stream.on('close', () => state.open--);
    stream.on('error', () => {});
    onStream(stream, headers, state);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = server.address().port;
  state.url = `${tls ? 'https' : 'http'}://127.0.0.1:${state.port}/`;
  state.close = () =>
    new Promise((resolve) => {
      for (const s of sessions) s.destroy();
      server.close(() => resolve());
    });
  return state;
}

const okStream = (stream) => {
  stream.respond({ ':status': 200, 'content-type': 'text/plain' });
  stream.end('OK');
};

test('h2c against the test server: every request is one stream, counted by the server; the report names the protocol', async () => {
  const server = await startServer({ port: 0, host: '127.0.0.1', quiet: true, http2: true });
  try {
    const result = await loadTest({ url: `http://127.0.0.1:${server.port}/`, http2: true, streams: 8, maxRequests: 800, concurrency: 2 });
    assert.equal(result.totalRequests, 800);
    assert.equal(result.totalErrors, 0);
    assert.equal(server.requests, 800);
    assert.equal(result.protocol, 'h2c');
    assert.equal(result.streams, 8);
    assert.match(shownReport(result), /Protocol: +HTTP\/2 \(h2c\), 8 streams per connection at most/);
    accounted(result);
  } finally {
    await server.close();
  }
});

for (const name of names) {
  test(`${name}: h2 by ALPN over TLS with the test CA, several streams at once`, async () => {
    // Answers come a moment later, so that a connection's streams are open together.
    const server = await h2Server((stream) => setTimeout(() => okStream(stream), 2), { tls: true });
    try {
      const result = await loadTest({ url: server.url, socket: name, ca: pem('ca'), http2: true, streams: 10, maxRequests: 400, concurrency: 2 });
      assert.equal(result.totalRequests, 400, JSON.stringify(result.errorCodes));
      assert.equal(result.totalErrors, 0);
      assert.equal(server.streams, 400);
      assert.equal(server.sessions, 2);
      assert.ok(server.maxOpen > 2, `streams overlapped: at most ${server.maxOpen} open`);
      assert.equal(result.protocol, 'h2');
    } finally {
      await server.close();
    }
  });
}

test('never more streams than SETTINGS_MAX_CONCURRENT_STREAMS, whatever --streams asks', async () => {
  const server = await h2Server((stream) => setTimeout(() => okStream(stream), 2), { settings: { maxConcurrentStreams: 3 } });
  try {
    const result = await loadTest({ url: server.url, http2: true, streams: 20, maxRequests: 200, concurrency: 1 });
    assert.equal(result.totalRequests, 200);
    assert.equal(result.totalErrors, 0);
    assert.ok(server.maxOpen <= 3, `at most 3 open, saw ${server.maxOpen}`);
    assert.equal(server.streams, 200);
  } finally {
    await server.close();
  }
});

// Raw frames: node:http2's stream.close(code) is not an RST_STREAM on every runtime's node:http2.
const rst = (stream, code) => frame(3, 0, stream, Buffer.from([0, 0, 0, code]));
const ok200 = (stream) => frame(1, 0x5, stream, Buffer.from([0x88])); // :status 200, END_STREAM

test('REFUSED_STREAM: the request is sent again, not counted as an error', async () => {
  let n = 0;
  const server = await rawH2((stream, socket) => socket.write(++n % 3 === 0 ? rst(stream, 7) : ok200(stream)));
  try {
    const result = await loadTest({ url: server.url, http2: true, streams: 4, maxRequests: 300, concurrency: 2 });
    assert.equal(result.totalRequests, 300);
    assert.equal(result.totalErrors, 0, JSON.stringify(result.errorCodes));
    assert.ok(result.retries > 0, 'refused streams were sent again');
    assert.equal(n, 300 + result.retries);
  } finally {
    await server.close();
  }
});

test('GOAWAY mid-run: streams above its last id go again on a new connection, nothing is lost', async () => {
  // Every connection is told to go away after 25 streams, as nginx does at keepalive_requests.
  const server = await h2Server((stream, headers, state) => {
    okStream(stream);
    const session = stream.session;
    session.served = (session.served || 0) + 1;
    if (session.served === 25) session.goaway(constants.NGHTTP2_NO_ERROR, stream.id);
  });
  try {
    const result = await loadTest({ url: server.url, http2: true, streams: 8, maxRequests: 500, concurrency: 2 });
    assert.equal(result.totalRequests, 500);
    assert.equal(result.totalErrors, 0, JSON.stringify(result.errorCodes));
    assert.ok(server.sessions >= 500 / 25, `a new connection after each GOAWAY: ${server.sessions}`);
    accounted(result);
  } finally {
    await server.close();
  }
});

test('RST_STREAM from the server fails that request with the error code name; the connection goes on', async () => {
  let n = 0;
  const server = await rawH2((stream, socket) => socket.write(++n % 5 === 0 ? rst(stream, 2) : ok200(stream)));
  try {
    const result = await loadTest({ url: server.url, http2: true, streams: 4, maxRequests: 100, concurrency: 1 });
    assert.equal(result.totalRequests, 100);
    assert.deepEqual(result.errorsByReason, { 'RST_STREAM INTERNAL_ERROR': 20 });
    assert.equal(result.connections, 1);
    accounted(result);
  } finally {
    await server.close();
  }
});

test('request bodies: small ones with their HEADERS, a large one as WINDOW_UPDATE opens a small window', async () => {
  const server = await h2Server(
    (stream) => {
      let n = 0;
      stream.on('data', (d) => (n += d.length));
      stream.on('end', () => {
        stream.respond({ ':status': 200 });
        stream.end(String(n));
      });
    },
    { settings: { initialWindowSize: 1000 } },
  );
  try {
    const bodies = [];
    const small = await loadTest({ url: server.url, http2: true, method: 'POST', body: 'x'.repeat(500), maxRequests: 20, concurrency: 1, streams: 4, statusCallback: (e, r) => bodies.push(r.body) });
    assert.equal(small.totalRequests, 20);
    assert.equal(small.totalErrors, 0);
    assert.deepEqual(new Set(bodies), new Set(['500']));
    bodies.length = 0;
    const large = await loadTest({ url: server.url, http2: true, method: 'POST', body: 'y'.repeat(200000), maxRequests: 6, concurrency: 1, streams: 3, statusCallback: (e, r) => bodies.push(r.body) });
    assert.equal(large.totalRequests, 6, JSON.stringify(large.errorCodes));
    assert.equal(large.totalErrors, 0);
    assert.deepEqual(bodies, Array(6).fill('200000'));
  } finally {
    await server.close();
  }
});

test('HEAD, 204, 304, an interim 103, trailers, and headers the statusCallback reads', async () => {
  const server = await h2Server((stream, headers) => {
    const path = headers[':path'];
    if (path === '/head') {
      stream.respond({ ':status': 200, 'content-length': '5' });
      stream.end();
    } else if (path === '/204') {
      stream.respond({ ':status': 204 }, { endStream: true });
    } else if (path === '/304') {
      stream.respond({ ':status': 304 }, { endStream: true });
    } else if (path === '/103') {
      stream.additionalHeaders({ ':status': 103, link: '</a.css>; rel=preload' });
      stream.respond({ ':status': 200, 'x-final': 'yes' });
      stream.end('final');
    } else {
      stream.respond({ ':status': 200 }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'x-checksum': 'abc' }));
      stream.end('with trailers');
    }
  });
  try {
    for (const [path, method, status, body] of [['head', 'HEAD', 200, ''], ['204', 'GET', 204, ''], ['304', 'GET', 304, ''], ['103', 'GET', 200, 'final'], ['trailers', 'GET', 200, 'with trailers']]) {
      const seen = [];
      const result = await loadTest({ url: server.url + path, method, http2: true, maxRequests: 6, concurrency: 1, streams: 2, statusCallback: (e, r) => seen.push(r) });
      assert.equal(result.totalRequests, 6, `${path}: ${JSON.stringify(result.errorCodes)}`);
      assert.deepEqual(result.statusCodes, { [status]: 6 }, path);
      assert.equal(seen[0].body, body, path);
      if (path === '103') assert.equal(seen[0].headers['x-final'], 'yes');
    }
  } finally {
    await server.close();
  }
});

test('a timeout cancels that stream only (RST_STREAM CANCEL); the connection serves the rest', async () => {
  const server = await h2Server((stream, headers, state) => {
    if (state.streams % 4 === 0) return; // never answered
    okStream(stream);
  });
  try {
    // A timeout far above a loaded machine's pauses: an answer sent at once never meets it.
    const result = await loadTest({ url: server.url, http2: true, streams: 4, maxRequests: 12, concurrency: 1, timeout: 1000 });
    assert.equal(result.totalRequests, 12);
    assert.deepEqual(result.errorsByReason, { timeout: 3 });
    assert.equal(server.sessions, 1);
    accounted(result);
  } finally {
    await server.close();
  }
});

// A raw server: answers the client's preface with `greeting` frames, then each HEADERS frame
// the client sends with respond(streamId, socket), and any other with onFrame(frame, socket);
// records every frame it got.
async function rawH2(respond, greeting = settings([]), onFrame = () => {}) {
  const state = { frames: [] };
  const sockets = new Set();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buf = Buffer.alloc(0);
    let preface = false;
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      if (!preface) {
        if (buf.length < 24) return;
        buf = buf.subarray(24);
        preface = true;
        socket.write(greeting);
      }
      while (buf.length >= 9) {
        const length = buf.readUIntBE(0, 3);
        if (buf.length < 9 + length) return;
        const type = buf[3];
        const flags = buf[4];
        const stream = buf.readUInt32BE(5) & 0x7fffffff;
        const payload = buf.subarray(9, 9 + length);
        buf = buf.subarray(9 + length);
        state.frames.push({ type, flags, stream, payload: Buffer.from(payload) });
        if (type === 4 && !(flags & 1)) socket.write(frame(4, 1, 0, Buffer.alloc(0)));
        if (type === 1) respond(stream, socket, state);
        else onFrame(state.frames[state.frames.length - 1], socket);
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${server.address().port}/`;
  state.close = () =>
    new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return state;
}

function frame(type, flags, stream, payload) {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(stream, 5);
  return Buffer.concat([head, payload]);
}

function settings(pairs) {
  const p = Buffer.alloc(6 * pairs.length);
  pairs.forEach(([id, v], i) => {
    p.writeUInt16BE(id, i * 6);
    p.writeUInt32BE(v, i * 6 + 2);
  });
  return frame(4, 0, 0, p);
}

test('padding, CONTINUATION and a dynamic-table size update are read as RFC 9113 and 7541 say', async () => {
  // :status 200 indexed after a size update to 0 then back to 100, then x-a: b with indexing
  // (it enters the dynamic table), split over HEADERS (padded) and CONTINUATION; a padded DATA.
  const block = Buffer.from([0x20, 0x3f, 0x45, 0x88, 0x40, 3, 0x78, 0x2d, 0x61, 1, 0x62]);
  const server = await rawH2((stream, socket) => {
    const first = Buffer.concat([Buffer.from([4]), block.subarray(0, 5), Buffer.alloc(4)]);
    socket.write(frame(1, 0x8, stream, first)); // PADDED, no END_HEADERS
    socket.write(frame(9, 0x4, stream, block.subarray(5))); // CONTINUATION, END_HEADERS
    socket.write(frame(0, 0x8 | 0x1, stream, Buffer.concat([Buffer.from([3]), Buffer.from('hello'), Buffer.alloc(3)])));
  });
  try {
    const bodies = [];
    const result = await loadTest({ url: server.url, http2: true, maxRequests: 5, concurrency: 1, statusCallback: (e, r) => bodies.push([r.body, r.headers['x-a']]) });
    assert.equal(result.totalRequests, 5, JSON.stringify(result.errorCodes));
    assert.deepEqual(result.statusCodes, { 200: 5 });
    assert.deepEqual(bodies, Array(5).fill(['hello', 'b']));
  } finally {
    await server.close();
  }
});

test('the server PINGs: each is answered with the same 8 bytes and ACK', async () => {
  // Each request is answered once its PING has come back.
  const waiting = [];
  const server = await rawH2(
    (stream, socket) => {
      waiting.push(stream);
      socket.write(frame(6, 0, 0, Buffer.from('pingpong')));
    },
    settings([]),
    (f, socket) => {
      if (f.type === 6 && f.flags & 1) socket.write(frame(1, 0x5, waiting.shift(), Buffer.from([0x88])));
    },
  );
  try {
    const result = await loadTest({ url: server.url, http2: true, maxRequests: 3, concurrency: 1 });
    assert.equal(result.totalRequests, 3);
    const acks = server.frames.filter((f) => f.type === 6);
    assert.equal(acks.length, 3);
    for (const a of acks) {
      assert.equal(a.flags & 1, 1);
      assert.equal(a.payload.toString(), 'pingpong');
    }
  } finally {
    await server.close();
  }
});

test('a malformed frame is a connection error: our GOAWAY PROTOCOL_ERROR, each request failed with the reason', async () => {
  const server = await rawH2((stream, socket) => socket.write(frame(0, 0, 0, Buffer.from('x')))); // DATA on stream 0
  try {
    const result = await loadTest({ url: server.url, http2: true, maxRequests: 4, concurrency: 1 });
    assert.equal(result.totalRequests, 4);
    assert.deepEqual(result.errorsByReason, { 'http2 protocol error: DATA on stream 0': 4 });
    const goaways = server.frames.filter((f) => f.type === 7);
    assert.ok(goaways.length >= 1);
    assert.equal(goaways[0].payload.readUInt32BE(4), 1, 'PROTOCOL_ERROR');
    accounted(result);
  } finally {
    await server.close();
  }
});

test('a body over --max-body fails its stream (CANCEL) and the connection goes on', async () => {
  const server = await h2Server((stream) => {
    stream.respond({ ':status': 200 });
    stream.end('z'.repeat(5000));
  });
  try {
    const result = await loadTest({ url: server.url, http2: true, maxRequests: 6, concurrency: 1, streams: 2, maxBodySize: 1000 });
    assert.equal(result.totalRequests, 6);
    assert.deepEqual(result.errorsByReason, { 'response body over 1000 bytes': 6 });
    assert.equal(server.sessions, 1);
  } finally {
    await server.close();
  }
});

test('cli: --http2 --streams 4 prints the protocol; --streams alone and an HTTP/1.1 server are one line each', async () => {
  const server = await startServer({ port: 0, host: '127.0.0.1', quiet: true, http2: true });
  const h1 = await startServer({ port: 0, host: '127.0.0.1', quiet: true, impl: 'node' });
  try {
    const r = await spawnScript(CLI, ['--http2', '--streams', '4', '-n', '200', '-c', '2', `http://127.0.0.1:${server.port}/`]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Protocol: +HTTP\/2 \(h2c\), 4 streams per connection at most/);
    assert.match(r.stdout, /Completed requests: +200\n/);
    assert.equal(server.requests, 200);
    const alone = await spawnScript(CLI, ['--streams', '4', '-n', '2', `http://127.0.0.1:${server.port}/`]);
    assert.equal(alone.code, 2);
    assert.equal(alone.stderr.trim(), 'loadtest: --streams applies to --http2 and --grpc only');
    const old = await spawnScript(CLI, ['--http2', '-n', '2', `http://127.0.0.1:${h1.port}/`]);
    assert.equal(old.code, 1);
    assert.equal(old.stderr.trim().split('\n').length, 1, old.stderr);
    assert.match(old.stderr, /^loadtest: 127\.0\.0\.1:\d+ does not speak HTTP\/2/);
  } finally {
    await server.close();
    await h1.close();
  }
});

test('--cores 2 over h2c: the children split the requests, the server counts each once', async () => {
  const server = await startServer({ port: 0, host: '127.0.0.1', quiet: true, http2: true });
  try {
    const result = await loadTest({ url: `http://127.0.0.1:${server.port}/`, http2: true, streams: 4, maxRequests: 600, concurrency: 4, cores: 2 });
    assert.equal(result.totalRequests, 600);
    assert.equal(result.totalErrors, 0);
    assert.equal(server.requests, 600);
    assert.equal(result.protocol, 'h2c');
  } finally {
    await server.close();
  }
});

test('SETTINGS_MAX_CONCURRENT_STREAMS lowered mid-run: no more streams than the new limit from then on', async () => {
  let lowered = false;
  let openAfter = 0;
  let maxAfter = 0;
  const server = await h2Server((stream, headers, state) => {
    if (lowered) {
      openAfter++;
      if (openAfter > maxAfter) maxAfter = openAfter;
      stream.on('close', () => openAfter--);
    }
    setTimeout(() => okStream(stream), 2);
    if (state.streams === 100 && !lowered) {
      // From the acknowledgment of this SETTINGS on, the client may open at most 2.
      stream.session.settings({ maxConcurrentStreams: 2 }, () => {
        lowered = true;
      });
    }
  });
  try {
    const result = await loadTest({ url: server.url, http2: true, streams: 16, maxRequests: 400, concurrency: 1 });
    assert.equal(result.totalRequests, 400);
    assert.equal(result.totalErrors, 0, JSON.stringify(result.errorCodes));
    assert.ok(server.maxOpen > 2, `before: more than 2 at once (${server.maxOpen})`);
    assert.ok(lowered && maxAfter <= 2, `after: at most 2 at once, saw ${maxAfter}`);
  } finally {
    await server.close();
  }
});

test('over h2c as over HTTP/1.1: --rps, a sequence with per-entry results, thresholds, the JSON document', async () => {
  const server = await startServer({ port: 0, host: '127.0.0.1', quiet: true, http2: true });
  try {
    const url = `http://127.0.0.1:${server.port}/`;
    const open = await loadTest({ url, http2: true, streams: 4, concurrency: 2, requestsPerSecond: 200, maxSeconds: 1 });
    // A request that found every stream busy until the stop is reported as not sent, never lost
    // (a loaded machine: 196 sent, 4 not).
    assert.equal(open.requestsSent + open.notSent, 200);
    assert.equal(open.totalRequests + open.inFlight, open.requestsSent);
    assert.equal(open.totalErrors, 0);
    const seq = await loadTest({ url, http2: true, streams: 2, concurrency: 1, maxRequests: 30, requests: [{ path: '/a' }, { path: '/b', method: 'POST', body: { x: 1 } }], thresholds: ['p99<2s', 'errors<1%'] });
    assert.equal(seq.totalRequests, 30);
    assert.deepEqual(seq.entries.map((e) => e.requests), [15, 15]);
    assert.ok(seq.thresholds.every((t) => t.passed), JSON.stringify(seq.thresholds));
    const json = JSON.parse(JSON.stringify(seq));
    assert.equal(json.protocol, 'h2c');
    // A request in flight at the stop may or may not have reached the server by then.
    assert.ok(server.requests >= open.requestsSent - open.inFlight + 30 && server.requests <= open.requestsSent + 30, `${server.requests} served, ${open.inFlight} in flight`);
  } finally {
    await server.close();
  }
});
