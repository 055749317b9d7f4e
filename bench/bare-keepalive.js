// The keep-alive ceiling of a runtime: N connections, each writing one fixed GET and writing the
// next as soon as a response has come back, with no HTTP parsing: a response is counted by a
// byte scan for the end of its head ('\r\n\r\n') and a fixed body length (nginx's
// `return 200 "OK"` sends 2 bytes). No latency, no histogram, no timers per request.
//
//   node bench/bare-keepalive.js HOST:PORT CONNECTIONS SECONDS [native|node|wrap] [BODY_BYTES=2] [CA_FILE]
//                                             wrap = node's TCP handle (tcp_wrap) under net.Socket
//   bun  bench/bare-keepalive.js ...          native = Bun.connect, node = node:net
//   deno run -A bench/bare-keepalive.js ...   native = Deno.connect, node = node:net
//
// With CA_FILE the connections are TLS, trusting that CA (the https ceiling): node:tls, Bun.connect
// with tls, Deno.connectTls; node:tls also under 'node' on bun and deno.
//
// With LOOP=script in the environment each connection is driven as a k6 script's VU must be at
// the least (the floor of `loadtest run` on this runtime, issue 65): an iteration is a new
// generator that yields a promise of each response and is resumed by it; a response gets its
// four clock reads, an object with its timings, and k6's samples (seven http_req_* Trends and
// http_req_duration{expected_response:true}, http_reqs, http_req_failed; at an iteration's end
// iteration_duration, iterations, data_sent and data_received), each into a sink with a
// histogram of src/run/histogram.js's layout. Nothing else a script has: no tags, no cookies,
// no Response's text.
//
// LOOP=k6 is LOOP=script and what k6/http's API gives the script of every response whatever the
// script reads of it: the response's bytes kept (copied out of the read buffer the runtime reuses,
// into a slab responses share, as src/script/net/span-text.js does), an object of the request
// (res.request's), and a Response with k6's fields (status, url, timings, error, error_code, proto,
// remote_ip, remote_port, tls_version, tls_cipher_suite) and the text it keeps undecoded.
//
// Prints one JSON line: requests, seconds, api, connectMs (until every connection had its first
// response). Connections open at a bounded pace, as loadtest opens them.

const [where = '127.0.0.1:8089', nArg = '10', secondsArg = '5', apiArg = 'native', bodyArg = '2', caFile = ''] = args();
const [host, portText] = where.split(':');
const port = Number(portText);
const N = Number(nArg);
const SECONDS = Number(secondsArg);
const BODY = Number(bodyArg);
const OPEN_PER_MS = 32;
const OPEN_PER_TICK = 512;
const REQ = new TextEncoder().encode(`GET / HTTP/1.1\r\nHost: ${where}\r\n\r\n`);
const runtime = globalThis.Deno ? 'deno' : globalThis.Bun ? 'bun' : 'node';
const netApi = apiArg === 'wrap' ? 'tcp_wrap' : apiArg === 'node' || runtime === 'node' ? 'node:net' : runtime === 'bun' ? 'Bun.connect' : 'Deno.connect';
const CA = caFile ? await readText(caFile) : null;
const api = CA === null ? netApi : { 'node:net': 'node:tls', 'Bun.connect': 'Bun.connect tls', 'Deno.connect': 'Deno.connectTls' }[netApi];
if (api === undefined) throw new Error('no TLS on the TCP handle (wrap): native or node');

let requests = 0;
let opened = 0;
let stopping = false;
let warm = 0;
let connectMs = -1;
const t0 = performance.now();

function args() {
  if (globalThis.Deno) return globalThis.Deno.args;
  return globalThis.process.argv.slice(2);
}

async function readText(file) {
  if (globalThis.Deno) return globalThis.Deno.readTextFile(file);
  const fs = await import('node:fs');
  return fs.readFileSync(file, 'utf8');
}

// Per connection: s = how much of '\r\n\r\n' was matched, skip = body bytes still to come;
// next() sends the next request (scripted: resumes the VU, which sends it).
function newState() {
  // LOOP=k6: read, the read the responses came in, and length, each one's length in it.
  const c = { s: 0, skip: 0, first: true, write: null, start: null, next: null, vu: null, read: null, readLength: 0, length: 0 };
  c.start = SCRIPTED ? () => c.vu.begin() : () => c.write();
  c.next = SCRIPTED ? () => c.vu.responded() : () => c.write();
  if (SCRIPTED) c.vu = new VU(c);
  return c;
}

// LOOP=script's VU, sinks and histograms (see the head of this file).
const LOOP = env('LOOP');
const K6 = LOOP === 'k6';
const SCRIPTED = LOOP === 'script' || K6;
const LENGTH = 23552; // src/run/histogram.js's layout: 1024 sub-buckets a power of two
class Sink {
  constructor(trend) {
    this.count = 0;
    this.sum = 0;
    this.min = Infinity;
    this.max = -Infinity;
    this.counts = trend ? new Float64Array(LENGTH) : null;
  }
  add(value) {
    this.count++;
    this.sum += value;
    if (value < this.min) this.min = value;
    if (value > this.max) this.max = value;
    if (this.counts !== null) {
      let v = Math.round(value * 1000);
      if (!(v > 0)) v = 0;
      else if (v > 0xffffffff) v = 0xffffffff;
      const bucket = 31 - Math.clz32(v | 2047) - 10;
      this.counts[(bucket << 10) + (v >>> bucket)]++;
    }
  }
}
const sink = {};
for (const name of ['duration', 'expected', 'blocked', 'connecting', 'tls', 'sending', 'waiting', 'receiving', 'iteration']) sink[name] = new Sink(true);
for (const name of ['reqs', 'failed', 'iterations', 'sent', 'received']) sink[name] = new Sink(false);

class VU {
  constructor(c) {
    this.c = c;
    this.gen = null;
    this.t0 = 0; // the iteration's start
    this.start = 0; // the request's
    this.sentAt = 0;
    this.resolve = null;
    this.executor = (resolve) => (this.resolve = resolve);
    this.step = (res) => this.stepped(res);
  }
  // The first request goes out once the connection is open (the loop's write()).
  begin() {
    this.t0 = performance.now();
    this.gen = iteration(this);
    this.gen.next().value.then(this.step);
  }
  request() {
    this.start = performance.now();
    this.c.write();
    this.sentAt = performance.now();
    return new Promise(this.executor);
  }
  responded() {
    const end = performance.now();
    const timings = { duration: end - this.start, blocked: 0, connecting: 0, tls_handshaking: 0, sending: this.sentAt - this.start, waiting: end - this.sentAt, receiving: 0 };
    const res = K6 ? new K6Response(kept(this.c.read, this.c.length), new K6Request(), timings) : { status: 200, body: null, timings };
    sink.reqs.add(1);
    sink.duration.add(timings.duration);
    sink.expected.add(timings.duration);
    sink.blocked.add(timings.blocked);
    sink.connecting.add(timings.connecting);
    sink.tls.add(timings.tls_handshaking);
    sink.sending.add(timings.sending);
    sink.waiting.add(timings.waiting);
    sink.receiving.add(timings.receiving);
    sink.failed.add(0);
    this.resolve(res);
  }
  stepped(res) {
    const r = this.gen.next(res);
    if (!r.done) return void r.value.then(this.step);
    const now = performance.now();
    sink.sent.add(REQ.length);
    sink.received.add(0);
    sink.iteration.add(now - this.t0);
    sink.iterations.add(1);
    if (stopping) return;
    this.t0 = now;
    this.gen = iteration(this);
    this.gen.next().value.then(this.step);
  }
}

// LOOP=k6's: what k6/http makes of every response (see the head of this file). Bun.connect hands
// each read over in a buffer of its own, which is kept as it is (as ours keeps it: `freshReads`).
const SLAB = 64 * 1024;
let slab = new Uint8Array(SLAB);
let used = 0;
function kept(read, n) {
  if (FRESH) return { buf: read, from: 0, to: n, head: null, body: null };
  if (used + n > SLAB) {
    slab = new Uint8Array(SLAB);
    used = 0;
  }
  const at = used;
  slab.set(read.subarray(0, n), at);
  used += n;
  return { buf: slab, from: at, to: at + n, head: null, body: null };
}
class K6Request {
  constructor() {
    this.method = 'GET';
    this.url = URL;
    this.headers = null;
    this.body = null;
    this.cookies = null;
  }
}
class K6Response {
  constructor(text, request, timings) {
    this.text = text;
    this.request = request;
    this.headers = null;
    this.status = 200;
    this.url = URL;
    this.timings = timings;
    this.error = '';
    this.error_code = 0;
    this.proto = 'HTTP/1.1';
    this.remote_ip = host;
    this.remote_port = port;
    this.tls_version = '';
    this.tls_cipher_suite = '';
  }
}
const URL = `http://${where}/`;
const FRESH = netApi === 'Bun.connect';

// The script's default function: one request an iteration.
function* iteration(vu) {
  const res = yield vu.request();
  return res.status;
}

function env(name) {
  return globalThis.Deno ? globalThis.Deno.env.get(name) : globalThis.process.env[name];
}

// Responses completed in buf[0..n).
function scan(c, buf, n) {
  if (K6) {
    c.read = buf;
    c.readLength = n;
  }
  let s = c.s;
  let skip = c.skip;
  let done = 0;
  for (let i = 0; i < n; i++) {
    if (skip > 0) {
      const take = Math.min(skip, n - i);
      skip -= take;
      i += take - 1;
      if (skip === 0) done++;
      continue;
    }
    const b = buf[i];
    if (b === 13) s = s === 2 ? 3 : 1;
    else if (b === 10) {
      if (s === 1) s = 2;
      else if (s === 3) {
        s = 0;
        if (BODY === 0) done++;
        else skip = BODY;
      } else s = 0;
    } else s = 0;
  }
  c.s = s;
  c.skip = skip;
  return done;
}

function responses(c, done) {
  if (done === 0) return;
  requests += done;
  if (opened < N) openSome();
  // Each response of the read is taken as an equal part of it, from its start (a whole byte
  // count: the slab's offsets stay whole).
  if (K6) c.length = Math.floor(c.readLength / done);
  if (c.first) {
    c.first = false;
    if (++warm === N) connectMs = performance.now() - t0;
  }
  if (!stopping) for (let k = 0; k < done; k++) c.next();
}

async function nodeNet() {
  const net = await import(CA === null ? 'node:net' : 'node:tls');
  // One read buffer for every connection: `onread` runs its callback before reading another socket.
  const shared = Buffer.allocUnsafe(64 * 1024);
  const sockets = [];
  const open = (c) => {
    const socket = net.connect({
      host,
      port,
      noDelay: true,
      ...(CA === null ? {} : { ca: CA }),
      onread: { buffer: shared, callback: (n, buf) => responses(c, scan(c, buf, n)) },
    });
    socket.on('data', (chunk) => responses(c, scan(c, chunk, chunk.length)));
    socket.on('error', () => {});
    c.write = () => socket.write(REQ);
    c.start();
    sockets.push(socket);
  };
  return { open, close: () => sockets.forEach((s) => s.destroy()) };
}

// node's TCP handle without net.Socket and its streams (process.binding, node only): one read
// buffer for all, a write that completes at once needs no request object of its own.
function tcpWrap() {
  const { TCP, TCPConnectWrap, constants } = process.binding('tcp_wrap');
  const { WriteWrap, streamBaseState, kReadBytesOrError, kLastWriteWasAsync } = process.binding('stream_wrap');
  const shared = Buffer.allocUnsafe(64 * 1024);
  const req = Buffer.from(REQ.buffer, REQ.byteOffset, REQ.byteLength);
  const handles = [];
  let wreq = new WriteWrap();
  function onread() {
    const n = streamBaseState[kReadBytesOrError];
    if (n > 0) responses(this.c, scan(this.c, shared, n));
  }
  const open = (c) => {
    const handle = new TCP(constants.SOCKET);
    handle.c = c;
    handle.onread = onread;
    handle.useUserBuffer(shared);
    const creq = new TCPConnectWrap();
    creq.oncomplete = (status) => {
      if (status !== 0) return;
      handle.setNoDelay(true);
      handle.readStart();
      c.start();
    };
    c.write = () => {
      const err = handle.writeBuffer(wreq, req);
      if (err === 0 && streamBaseState[kLastWriteWasAsync]) {
        wreq.oncomplete = () => {};
        wreq = new WriteWrap();
      }
    };
    handle.connect(creq, host, port);
    handles.push(handle);
  };
  return { open, close: () => handles.forEach((h) => h.close()) };
}

function bunConnect() {
  const sockets = [];
  const handlers = {
    open(socket) {
      socket.setNoDelay(true);
      const c = socket.data;
      c.write = () => socket.write(REQ);
      c.start();
    },
    data(socket, chunk) {
      const c = socket.data;
      responses(c, scan(c, chunk, chunk.length));
    },
    error() {},
  };
  const open = (c) => {
    const tls = CA === null ? {} : { tls: { ca: CA } };
    globalThis.Bun.connect({ hostname: host, port, socket: handlers, data: c, ...tls }).then((s) => sockets.push(s), () => {});
  };
  return { open, close: () => sockets.forEach((s) => s.terminate()) };
}

function denoConnect() {
  const conns = [];
  const open = async (c) => {
    const Deno = globalThis.Deno;
    const conn = CA === null ? await Deno.connect({ hostname: host, port }) : await Deno.connectTls({ hostname: host, port, caCerts: [CA] });
    if (conn.setNoDelay) conn.setNoDelay(true); // a TlsConn has none (Deno 2.9)
    conns.push(conn);
    c.write = () => conn.write(REQ).catch(() => {});
    c.start();
    const buf = new Uint8Array(1024); // as runtimes/sockets/deno.js starts (nginx's response is ~160 B)
    try {
      for (;;) {
        const n = await conn.read(buf);
        if (n === null || stopping) break;
        responses(c, scan(c, buf, n));
      }
    } catch {
      // closed at the stop
    }
  };
  return {
    open: (c) => open(c).catch(() => {}),
    close: () =>
      conns.forEach((conn) => {
        try {
          conn.close();
        } catch {
          // already closed
        }
      }),
  };
}

const client = netApi === 'tcp_wrap' ? tcpWrap() : netApi === 'node:net' ? await nodeNet() : netApi === 'Bun.connect' ? bunConnect() : denoConnect();
// Paced by the clock, at most OPEN_PER_TICK at once, from responses as well as a timer: the same
// rule as src/run/run.js (which says why).
function openSome() {
  const due = Math.ceil((performance.now() - t0 + 1) * OPEN_PER_MS);
  const until = Math.min(N, due, opened + OPEN_PER_TICK);
  while (opened < until) {
    client.open(newState());
    opened++;
  }
  if (opened === N) clearInterval(opener);
}
const opener = setInterval(openSome, 1);
openSome();
setTimeout(() => {
  stopping = true;
  const seconds = (performance.now() - t0) / 1000;
  console.log(JSON.stringify({ tool: "bare-keepalive", api, loop: LOOP || "plain", connections: N, requests, seconds, connectMs: Math.round(connectMs), warm }));
  client.close();
  // The runtime may keep closing sockets for a while; the figure is out.
  setTimeout(() => (globalThis.Deno ? globalThis.Deno.exit(0) : globalThis.process.exit(0)), 50);
}, SECONDS * 1000);
