// WebSocket (ws://, wss://): the handshake, the frame reader, and load runs where a request is a
// message sent and the message that comes back, every one of them accounted for.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadTest, startServer } from '../src/index.js';
import { FrameParser } from '../src/websocket/frame-parser.js';
import { writeForever, until } from './servers.js';
import { OP_BINARY, OP_CLOSE, OP_CONTINUATION, OP_PING, OP_PONG, OP_TEXT, acceptFor, checkHandshake, closePayload, encodeFrame, sha1 } from '../src/websocket/protocol.js';

const pem = (name) => readFileSync(new URL(`./tls/${name}.pem`, import.meta.url), 'utf8');
const text = (s) => new TextEncoder().encode(s);
const hex = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');

// Collects what a FrameParser reports.
function collector(parser) {
  const seen = { messages: [], controls: [], errors: [] };
  parser.handler = {
    onMessage: (opcode) => seen.messages.push({ opcode, length: parser.messageLength, text: new TextDecoder().decode(join(parser.chunks || [])) }),
    onControl: (opcode, payload) => seen.controls.push({ opcode, text: new TextDecoder().decode(payload) }),
    onFrameError: (reason) => seen.errors.push(reason),
  };
  return seen;
}

function join(chunks) {
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) all.set(c, at), (at += c.length);
  return all;
}

function parse(bytes, { masked = false, capture = true, splits = [] } = {}) {
  const parser = new FrameParser(null, { masked, capture });
  const seen = collector(parser);
  let at = 0;
  for (const to of [...splits, bytes.length]) {
    parser.execute(bytes, at, to);
    at = to;
  }
  return seen;
}

test('SHA-1 matches node:crypto for every length across block boundaries, and the RFC 6455 accept example', () => {
  for (let n = 0; n < 200; n++) {
    const bytes = new Uint8Array(n).map((_, i) => (i * 31 + n) & 255);
    assert.equal(hex(sha1(bytes)), createHash('sha1').update(bytes).digest('hex'), `length ${n}`);
  }
  assert.equal(hex(sha1(text('abc'))), 'a9993e364706816aba3e25717850c26c9cd0d89d');
  assert.equal(acceptFor('dGhlIHNhbXBsZSBub25jZQ=='), 's3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
});

test('the handshake answer: 101 with the right accept passes; a wrong key, a refusal or a missing upgrade is the reason', () => {
  const key = 'dGhlIHNhbXBsZSBub25jZQ==';
  const head = (status, accept) => `HTTP/1.1 ${status} X\r\nUpgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\nSec-WebSocket-Accept: ${accept}`;
  assert.equal(checkHandshake(head(101, 's3pPLMBiTxaQ9kYGzzhZRbK+xOo='), key), null);
  assert.equal(checkHandshake(head(101, 'AAAAAAAAAAAAAAAAAAAAAAAAAAA='), key), 'websocket bad accept key');
  assert.equal(checkHandshake('HTTP/1.1 404 Not Found\r\ncontent-length: 0', key), 'websocket upgrade refused: 404');
  assert.equal(checkHandshake(`HTTP/1.1 101 X\r\nSec-WebSocket-Accept: ${acceptFor(key)}`, key), 'websocket upgrade: 101 without upgrade: websocket');
  assert.equal(checkHandshake('SSH-2.0-OpenSSH', key), 'websocket upgrade: malformed response');
});

test('frame lengths in 7, 16 and 64 bits parse, masked and not, at the edges of each form', () => {
  for (const n of [0, 1, 125, 126, 127, 65535, 65536, 70000]) {
    const payload = new Uint8Array(n).map((_, i) => 97 + (i % 26));
    for (const mask of [null, new Uint8Array([1, 2, 3, 250])]) {
      const frame = encodeFrame(OP_BINARY, payload, mask);
      assert.equal(frame[1] & 127, n < 126 ? n : n < 65536 ? 126 : 127);
      const seen = parse(frame, { masked: mask !== null });
      assert.deepEqual(seen.errors, []);
      assert.equal(seen.messages.length, 1);
      assert.equal(seen.messages[0].opcode, OP_BINARY);
      assert.equal(seen.messages[0].length, n);
      assert.equal(seen.messages[0].text, new TextDecoder().decode(payload));
    }
  }
  // A 64-bit length for a short payload (not the shortest form, but a valid length).
  const long = new Uint8Array([0x81, 127, 0, 0, 0, 0, 0, 0, 0, 2, 104, 105]);
  assert.equal(parse(long).messages[0].text, 'hi');
  // Without capture only the size is kept.
  const counted = parse(encodeFrame(OP_TEXT, new Uint8Array(300), null), { capture: false });
  assert.equal(counted.messages[0].length, 300);
});

// A reply in three fragments with a ping between the first two, then a pong and a close.
function fragmentedReply() {
  return join([
    encodeFrame(OP_TEXT, text('Hel'), null, false),
    encodeFrame(OP_PING, text('are you there'), null),
    encodeFrame(OP_CONTINUATION, text('lo, '), null, false),
    encodeFrame(OP_CONTINUATION, text('wörld'), null, true),
    encodeFrame(OP_PONG, text(''), null),
    encodeFrame(OP_CLOSE, closePayload(1000), null),
  ]);
}

test('a fragmented message with a ping between fragments is assembled, split at every byte boundary', () => {
  const bytes = fragmentedReply();
  const expected = {
    messages: [{ opcode: OP_TEXT, length: 12, text: 'Hello, wörld' }],
    controls: [{ opcode: OP_PING, text: 'are you there' }, { opcode: OP_PONG, text: '' }, { opcode: OP_CLOSE, text: '\u0003\u00e8'.replace('\u00e8', String.fromCharCode(0xe8)) }],
    errors: [],
  };
  const whole = parse(bytes);
  assert.equal(whole.messages[0].text, 'Hello, wörld');
  assert.deepEqual(whole.controls.map((c) => c.opcode), [OP_PING, OP_PONG, OP_CLOSE]);
  for (let k = 1; k < bytes.length; k++) assert.deepEqual(parse(bytes, { splits: [k] }), whole, `split at ${k}`);
  const everyByte = [...Array(bytes.length).keys()].slice(1);
  assert.deepEqual(parse(bytes, { splits: everyByte }), whole, 'one byte at a time');
  assert.equal(expected.messages[0].text, whole.messages[0].text);
});

test('protocol errors: masked server frames, reserved bits, bad opcodes, broken fragmentation, long control frames', () => {
  const cases = [
    [encodeFrame(OP_TEXT, text('x'), new Uint8Array(4)), 'masked frame from the server'],
    [new Uint8Array([0xc1, 1, 120]), 'reserved bits set'],
    [new Uint8Array([0x83, 0]), 'bad opcode 3'],
    [new Uint8Array([0x8b, 0]), 'bad opcode 11'],
    [new Uint8Array([0x09, 0]), 'fragmented control frame'],
    [new Uint8Array([0x80, 1, 120]), 'continuation frame without a message'],
    [join([encodeFrame(OP_TEXT, text('a'), null, false), encodeFrame(OP_TEXT, text('b'), null)]), 'new message inside a fragmented one'],
    [new Uint8Array([0x89, 126, 0, 200]), 'control frame longer than 125 bytes'],
    [new Uint8Array([0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 1]), 'length with its top bit set'],
  ];
  for (const [bytes, reason] of cases) assert.deepEqual(parse(bytes).errors, [reason]);
  assert.deepEqual(parse(encodeFrame(OP_TEXT, text('x'), null), { masked: true }).errors, ['unmasked frame from a client']);
});

/**
 * A raw WebSocket server on node:net with our frame code: `onMessage(ctx, payload)` for each
 * message (ctx = { socket, index on this connection, send(frame) }); `handshake(key)` may answer
 * the upgrade differently. Counts connections, messages and the pongs it got.
 */
function wsServer(onMessage, { handshake = null } = {}) {
  const state = { connections: 0, messages: 0, pongs: [], sockets: new Set() };
  const server = net.createServer((socket) => {
    state.connections++;
    state.sockets.add(socket);
    socket.on('close', () => state.sockets.delete(socket));
    socket.on('error', () => {});
    let head = '';
    let parser = null;
    let index = 0;
    socket.on('data', (chunk) => {
      if (parser) return parser.execute(chunk);
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const key = /sec-websocket-key: (.*)\r\n/i.exec(head)[1];
      if (handshake) return socket.write(handshake(key));
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${acceptFor(key)}\r\n\r\n`);
      parser = new FrameParser(
        {
          onMessage: () => {
            state.messages++;
            onMessage({ socket, index: index++, state }, join(parser.chunks));
          },
          onControl: (opcode, payload) => {
            if (opcode === OP_PONG) state.pongs.push(new TextDecoder().decode(payload));
            if (opcode === OP_CLOSE) socket.end();
          },
          onFrameError: (reason) => {
            state.protocolError = reason;
            socket.destroy();
          },
        },
        { masked: true, capture: true },
      );
      const rest = Buffer.from(head.slice(end + 4), 'latin1');
      if (rest.length) parser.execute(rest);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      state.url = `ws://127.0.0.1:${server.address().port}/`;
      state.close = () => new Promise((done) => {
        for (const s of state.sockets) s.destroy();
        server.close(() => done());
      });
      resolve(state);
    });
  });
}

test('echo against the test server over ws:// counts every message: the server echoed exactly what completed', async () => {
  const server = await startServer({ port: 0, host: '127.0.0.1', quiet: true });
  try {
    const result = await loadTest({ url: `ws://127.0.0.1:${server.port}/chat`, maxRequests: 1000, concurrency: 10 });
    assert.equal(result.totalRequests, 1000);
    assert.equal(result.totalErrors, 0, JSON.stringify(result.errorCodes));
    assert.equal(server.messages, 1000);
    assert.equal(server.requests, 0, 'a handshake is not an HTTP request served');
    assert.deepEqual(result.statusCodes, { 101: 1000 });
    assert.equal(result.connections, 10, 'one connection each, kept for every message');
    assert.equal(result.agent, 'websocket');
  } finally {
    await server.close();
  }
});

test('echo over wss:// with the test CA counts every message', async () => {
  const server = await startServer({ port: 0, host: '127.0.0.1', quiet: true, cert: pem('server'), key: pem('server-key') });
  try {
    const result = await loadTest({ url: `wss://127.0.0.1:${server.port}/`, ca: pem('ca'), maxRequests: 300, concurrency: 3, body: 'x'.repeat(1000) });
    assert.deepEqual(result.errorCodes, {});
    assert.equal(result.totalRequests, 300);
    assert.equal(server.messages, 300);
    assert.match(result.socket, /tls|Tls/);
    assert.ok(result.bytesReceived >= 300 * 1004, `received ${result.bytesReceived}`);
  } finally {
    await server.close();
  }
});

test('statusCallback sees each reply as body with status 101; bodies per message come from a body function', async () => {
  const server = await startServer({ port: 0, host: '127.0.0.1', quiet: true });
  const seen = [];
  try {
    const result = await loadTest({
      url: `ws://127.0.0.1:${server.port}/`, maxRequests: 20, concurrency: 2,
      body: (index) => ({ index }),
      statusCallback: (error, r) => seen.push([error, r.statusCode, JSON.parse(r.body).index, r.requestIndex, r.headers.upgrade]),
    });
    assert.equal(result.totalRequests, 20);
    assert.equal(seen.length, 20);
    for (const [error, status, echoed, index, upgrade] of seen) {
      assert.equal(error, null);
      assert.equal(status, 101);
      assert.equal(echoed, index, 'the reply to each message is its own');
      assert.equal(upgrade, 'websocket');
    }
  } finally {
    await server.close();
  }
});

test('--rps over WebSocket keeps the schedule: 200 messages a second for 1 s', async () => {
  const server = await startServer({ port: 0, host: '127.0.0.1', quiet: true });
  try {
    const result = await loadTest({ url: `ws://127.0.0.1:${server.port}/`, requestsPerSecond: 200, maxSeconds: 1, concurrency: 5 });
    // Every message the schedule made is sent or counted as not sent (its connections all busy
    // when due): how many go depends on how loaded the machine is, not on the schedule.
    assert.equal(result.requestsSent + result.notSent, 200);
    assert.ok(result.requestsSent > 0);
    assert.equal(result.totalErrors, 0);
    assert.equal(result.requestsSent, result.totalRequests + result.inFlight);
    // A message in flight at the stop may reach the server after the run, or never.
    const inRange = (n, low, high) => assert.ok(n >= low && n <= high, `server ${n}, expected ${low} to ${high}`);
    inRange(server.messages, result.totalRequests, result.requestsSent);
    const exact = await loadTest({ url: `ws://127.0.0.1:${server.port}/`, requestsPerSecond: 500, maxRequests: 150, concurrency: 5 });
    assert.equal(exact.totalRequests, 150);
    inRange(server.messages, result.totalRequests + 150, result.requestsSent + 150);
  } finally {
    await server.close();
  }
});

test('a refused upgrade fails each message with its status, and the connection is opened again for the next', async () => {
  const server = await wsServer(() => {}, { handshake: () => 'HTTP/1.1 404 Not Found\r\ncontent-length: 9\r\n\r\nnot found' });
  try {
    const result = await loadTest({ url: server.url, maxRequests: 6, concurrency: 2 });
    assert.deepEqual(result.errorsByReason, { 'websocket upgrade refused: 404': 6 });
    assert.equal(result.totalRequests, 6);
    assert.equal(result.totalErrors, 6);
    assert.equal(server.connections, 6);
    assert.deepEqual(result.statusCodes, {});
  } finally {
    await server.close();
  }
  const forged = await wsServer(() => {}, { handshake: () => `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${acceptFor('not the key')}\r\n\r\n` });
  try {
    const result = await loadTest({ url: forged.url, maxRequests: 3, concurrency: 1 });
    assert.deepEqual(result.errorsByReason, { 'websocket bad accept key': 3 });
    assert.equal(forged.messages, 0, 'no message goes to a server that failed the handshake');
  } finally {
    await forged.close();
  }
});

test('a fragmented reply with a ping inside, written in pieces: pong sent, message assembled, latency counted', async () => {
  const reply = fragmentedReply().subarray(0, -4); // without the close frame
  const server = await wsServer(({ socket }) => {
    let at = 0;
    const step = () => {
      if (socket.destroyed) return;
      socket.write(reply.subarray(at, at + 3));
      at += 3;
      if (at < reply.length) setTimeout(step, 1);
    };
    step();
  });
  const bodies = [];
  try {
    const result = await loadTest({ url: server.url, maxRequests: 10, concurrency: 2, maxSeconds: 5, statusCallback: (e, r) => bodies.push(r.body) });
    assert.equal(result.totalRequests, 10);
    assert.equal(result.totalErrors, 0);
    assert.deepEqual(bodies, Array(10).fill('Hello, wörld'));
    // Some ten 1 ms timers pass between the first piece and the last fragment: latency runs to
    // the whole message, not to its first bytes.
    assert.ok(result.minLatencyMs >= 5, `min latency ${result.minLatencyMs} ms`);
    // The last pongs left just before the run closed its connections; the server reads them soon.
    for (let wait = 0; server.pongs.length < 10 && wait < 100; wait++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(server.pongs, Array(10).fill('are you there'));
    assert.equal(server.protocolError, undefined, 'our frames are masked');
  } finally {
    await server.close();
  }
});

test('a server that closes mid-run: each close fails the message out with its code, the rest complete on new connections', async () => {
  // Every 5th message on a connection is answered with a close frame (1001, going away).
  const server = await wsServer(({ socket, index, state }) => {
    if (index % 5 === 4) {
      state.closes = (state.closes || 0) + 1;
      socket.write(encodeFrame(OP_CLOSE, closePayload(1001), null));
    } else {
      state.echoed = (state.echoed || 0) + 1;
      socket.write(encodeFrame(OP_TEXT, text('ok'), null));
    }
  });
  try {
    const result = await loadTest({ url: server.url, maxRequests: 100, concurrency: 3, maxSeconds: 5 });
    assert.equal(result.totalRequests, 100);
    assert.equal(result.inFlight, 0);
    assert.equal(result.totalErrors, server.closes);
    assert.deepEqual(result.errorsByReason, { 'websocket closed by server: 1001': server.closes });
    assert.equal(result.totalRequests - result.totalErrors, server.echoed);
    // Each connection may end the run with up to 4 messages since its last close.
    assert.ok(server.closes >= 18, `${server.closes} closes`);
    assert.equal(server.connections, result.connections);
  } finally {
    await server.close();
  }
});

test('a reply and a close frame in one write: the message completes, the next goes on a new connection', async () => {
  const server = await wsServer(({ socket, index }) => {
    const reply = encodeFrame(OP_TEXT, text('ok'), null);
    socket.write(index % 3 === 2 ? join([reply, encodeFrame(OP_CLOSE, closePayload(1000), null)]) : reply);
  });
  try {
    const result = await loadTest({ url: server.url, maxRequests: 60, concurrency: 2, maxSeconds: 5 });
    assert.equal(result.totalRequests, 60);
    assert.equal(result.totalErrors, 0);
    assert.equal(server.messages, 60, 'never two messages out on one connection');
    assert.equal(result.connections, 20);
  } finally {
    await server.close();
  }
});

test('a protocol error from the server is the reason, and -t stops a run with messages out as in flight', async () => {
  const bad = await wsServer(({ socket }) => socket.write(new Uint8Array([0xc1, 1, 120])));
  try {
    const result = await loadTest({ url: bad.url, maxRequests: 4, concurrency: 1 });
    assert.deepEqual(result.errorsByReason, { 'websocket protocol error: reserved bits set': 4 });
  } finally {
    await bad.close();
  }
  const silent = await wsServer(() => {});
  try {
    const result = await loadTest({ url: silent.url, maxSeconds: 0.3, concurrency: 3 });
    assert.equal(result.inFlight, 3);
    assert.equal(result.requestsSent, 3);
    assert.ok(await until(() => silent.messages === 3, 5000), `the message went out after the handshake: ${silent.messages}`);
    const timed = await loadTest({ url: silent.url, maxRequests: 2, concurrency: 1, timeout: 100 });
    assert.deepEqual(timed.errorsByReason, { timeout: 2 });
  } finally {
    await silent.close();
  }
});

test('maxBodySize bounds a message: a frame that would pass it fails at its length, split or fragmented', () => {
  const over = (bytes, splits = []) => {
    const parser = new FrameParser(null, { maxMessage: 100 });
    const seen = collector(parser);
    let at = 0;
    for (const to of [...splits, bytes.length]) parser.execute(bytes, at, to), (at = to);
    return { errors: seen.errors, messages: seen.messages.length, tooLarge: parser.messageTooLarge };
  };
  const big = encodeFrame(OP_BINARY, new Uint8Array(101), null);
  assert.deepEqual(over(big.subarray(0, 4)), { errors: ['message over 100 bytes'], messages: 0, tooLarge: true }, 'known from the header alone');
  assert.deepEqual(over(big, [1, 2, 3]), { errors: ['message over 100 bytes'], messages: 0, tooLarge: true });
  assert.deepEqual(over(encodeFrame(OP_BINARY, new Uint8Array(100), null)), { errors: [], messages: 1, tooLarge: false }, 'exactly the limit passes');
  const fragments = join([encodeFrame(OP_TEXT, new Uint8Array(60), null, false), encodeFrame(OP_CONTINUATION, new Uint8Array(60), null)]);
  assert.deepEqual(over(fragments), { errors: ['message over 100 bytes'], messages: 0, tooLarge: true }, 'fragments add up');
  const ping = encodeFrame(OP_PING, new Uint8Array(120), null); // over 100, but a control frame
  assert.deepEqual(over(ping).errors, [], 'control frames are not messages');
});

test('a server that answers with an endless message: each fails at maxBodySize with that reason', async () => {
  const endless = await wsServer(({ socket }) => {
    // A fragmented message that never ends: a frame without FIN, then continuations, as fast as read.
    socket.write(encodeFrame(OP_TEXT, new Uint8Array(16384), null, false));
    writeForever(socket, encodeFrame(OP_CONTINUATION, new Uint8Array(16384), null, false));
  });
  try {
    const result = await loadTest({ url: endless.url, maxRequests: 3, concurrency: 1, maxBodySize: 100000, timeout: 5000 });
    assert.deepEqual(result.errorsByReason, { 'websocket message over 100000 bytes': 3 });
    assert.equal(result.totalRequests + result.inFlight, result.requestsSent);
  } finally {
    await endless.close();
  }
});

test('--cores 2 over WebSocket: the children\'s messages add up', async () => {
  const server = await startServer({ port: 0, host: '127.0.0.1', quiet: true });
  try {
    const result = await loadTest({ url: `ws://127.0.0.1:${server.port}/`, maxRequests: 200, concurrency: 4, cores: 2 });
    assert.deepEqual(result.childErrors, []);
    assert.equal(result.totalRequests, 200);
    assert.equal(server.messages, 200);
  } finally {
    await server.close();
  }
});
