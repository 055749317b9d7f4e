// A VU's HTTP/1.1 requests made in one turn go out together once the turn's reads are handled
// (src/script/net/client.js, Network.later with the runtime's afterReads): none is written before,
// each reads the clock as it is written, a closed client's is not written at all; with a
// microtask for afterReads (Deno) the requests made by the continuations of reads resolved
// together go out together; without afterReads each goes out at once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Network, OriginClient } from '../src/script/net/client.js';

const encoder = new TextEncoder();
const RESPONSE = encoder.encode('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');

// A socket adapter whose sockets are answered when the test says; writes are recorded.
function memoryAdapter() {
  const writes = [];
  const sockets = [];
  const adapter = {
    name: 'memory',
    connect(_host, _port, handlers) {
      const socket = { handlers, write: (bytes) => writes.push({ socket, text: new TextDecoder().decode(bytes), at: performance.now() }), end() {}, destroy() {} };
      sockets.push(socket);
      queueMicrotask(() => handlers.connected && handlers.connected());
      return socket;
    },
  };
  return { adapter, writes, sockets };
}

// A client's result keeps its text undecoded until asked (SpanText), for k6/http's Response.
const bodyOf = (r) => (typeof r.body === 'string' ? r.body : r.body.decode().body);

const request = (path) => ({ bytes: encoder.encode(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`), isHead: false, method: 'GET', path, timeout: 60000, binary: false, discard: false });
const ORIGIN = { address: '127.0.0.1', port: 80, hostname: '127.0.0.1', tls: false };

test("a turn's requests are written together when the runtime's afterReads runs, each timed from its write", async () => {
  const { adapter, writes, sockets } = memoryAdapter();
  const due = [];
  const network = new Network(() => adapter, (fn) => due.push(fn));
  const a = new OriginClient(network, ORIGIN);
  const b = new OriginClient(network, { ...ORIGIN, port: 81 });
  const sent = [a.send(request('/one')), a.send(request('/two')), b.send(request('/three'))];
  assert.equal(writes.length, 0, 'nothing written in the turn that made the requests');
  assert.equal(due.length, 1, 'one flush asked for the three');
  const before = performance.now();
  due.shift()();
  assert.deepEqual(
    writes.map((w) => w.text.split(' ')[1]),
    ['/one', '/two', '/three'],
  );
  for (const s of sockets) s.handlers.data(RESPONSE);
  const results = await Promise.all(sent);
  assert.deepEqual(
    results.map((r) => [r.status, bodyOf(r), r.request.path]),
    [
      [200, 'ok', '/one'],
      [200, 'ok', '/two'],
      [200, 'ok', '/three'],
    ],
  );
  // Each request's start is its own write's moment, after the flush began, not the call's.
  for (const r of results) assert.ok(r.start >= before, `${r.start} >= ${before}`);
  // The next turn's requests ask for a flush of their own.
  a.send(request('/four'));
  assert.equal(due.length, 1);
  a.close();
  due.shift()();
  assert.equal(writes.length, 3, "a closed client's request is not written");
  network.close();
});

test('with queueMicrotask for afterReads, the requests made after reads resolved together go out together', async () => {
  const { adapter, writes, sockets } = memoryAdapter();
  let made = 0;
  const madeAtWrite = [];
  const counting = { ...adapter, connect: (host, port, handlers) => {
    const socket = adapter.connect(host, port, handlers);
    const write = socket.write;
    socket.write = (bytes) => {
      madeAtWrite.push(made);
      write(bytes);
    };
    return socket;
  } };
  const network = new Network(() => counting, queueMicrotask);
  const clients = [80, 81, 82].map((port) => new OriginClient(network, { ...ORIGIN, port }));
  // Each connection open, its first request answered: a VU's next requests go out on it.
  const first = clients.map((client) => client.send(request('/first')));
  await new Promise((resolve) => setTimeout(resolve, 0));
  for (const s of sockets) s.handlers.data(RESPONSE);
  await Promise.all(first);
  writes.length = 0;
  madeAtWrite.length = 0;
  // Deno resolves a turn's reads, then runs their continuations: a VU's request comes some
  // microtasks after its read (its script's await, its iteration's end), as many for each VU.
  const resolvers = [];
  const sent = clients.map((client, i) => {
    let p = new Promise((resolve) => resolvers.push(resolve));
    for (let hop = 0; hop < 3; hop++) p = p.then(() => null);
    return p.then(() => {
      made++;
      return client.send(request(`/${i}`));
    });
  });
  for (const resolve of resolvers) resolve();
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(writes.map((w) => w.text.split(' ')[1]), ['/0', '/1', '/2']);
  assert.deepEqual(madeAtWrite, [3, 3, 3], 'each written once all three were made');
  for (const s of sockets) s.handlers.data(RESPONSE);
  assert.deepEqual((await Promise.all(sent)).map((r) => [r.status, r.request.path]), [[200, '/0'], [200, '/1'], [200, '/2']]);
  network.close();
});

test('without afterReads each request is written as it is made', async () => {
  const { adapter, writes, sockets } = memoryAdapter();
  const network = new Network(() => adapter);
  const client = new OriginClient(network, ORIGIN);
  const sent = client.send(request('/now'));
  assert.equal(writes.length, 1);
  sockets[0].handlers.data(RESPONSE);
  const r = await sent;
  assert.equal(r.status, 200);
  assert.equal(bodyOf(r), 'ok');
  network.close();
});

test('a refused connect fails its request at once: no backoff holds the answer (the closed model\'s, 10 ms and more)', async () => {
  const adapter = {
    name: 'refusing',
    connect(_host, _port, handlers) {
      const socket = { write() {}, end() {}, destroy() {} };
      queueMicrotask(() => {
        const err = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        handlers.error(err);
        handlers.close();
      });
      return socket;
    },
  };
  const network = new Network(() => adapter);
  const client = new OriginClient(network, ORIGIN);
  for (let i = 0; i < 3; i++) {
    // Answered in microtasks after the refusal: before any timer, the one below included.
    const late = new Promise((resolve) => setTimeout(() => resolve('a timer first'), 0));
    const r = await Promise.race([client.send(request(`/${i}`)), late]);
    assert.notEqual(r, 'a timer first', `request ${i}`);
    assert.equal(r.status, 0);
    assert.equal(r.error, 'ECONNREFUSED');
  }
  client.close();
  network.close();
});
