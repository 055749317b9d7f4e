// The HTTP/2 ceiling of a runtime: N connections, each with M streams in flight, a GET's HEADERS
// frame (HPACK: static-table indexes and literals, built once) sent again for each stream that
// ends, and no HTTP/2 beyond what keeps a connection going: a frame reader that counts streams
// ended (END_STREAM on HEADERS or DATA), ACKs SETTINGS, answers PING, and opens the connection's
// window as loadtest does (src/http2/connection.js). No HPACK decoding, no latency, no timers per
// request. On node:tls (node), a turn's writes go as one at its end, as loadtest's do.
//
//   node bench/bare-h2.js HOST:PORT CONNECTIONS SECONDS [native|node] [STREAMS=10] [CA_FILE]
//   bun  bench/bare-h2.js ...                native = Bun.connect, node = node:net / node:tls
//   deno run -A bench/bare-h2.js ...         native = Deno.connect, node = node:net / node:tls
//
// With CA_FILE: h2 over TLS by ALPN, trusting that CA (node:tls, Bun.connect with tls,
// Deno.connectTls); without it, h2c by prior knowledge.
//
// Prints one JSON line, as bench/bare-keepalive.js does: requests (streams ended), seconds, api,
// connectMs (until every connection had its first stream ended); and what was not a response:
// streams reset (each replaced by a new one), GOAWAYs (that connection then stops).

const [where = '127.0.0.1:8091', nArg = '10', secondsArg = '5', apiArg = 'native', streamsArg = '10', caFile = ''] = args();
const [host, portText] = where.split(':');
const port = Number(portText);
const N = Number(nArg);
const SECONDS = Number(secondsArg);
const M = Number(streamsArg);
const OPEN_PER_MS = 32;
const OPEN_PER_TICK = 512;
const runtime = globalThis.Deno ? 'deno' : globalThis.Bun ? 'bun' : 'node';
const CA = caFile ? await readText(caFile) : null;
const netApi = apiArg === 'node' || runtime === 'node' ? 'node:net' : runtime === 'bun' ? 'Bun.connect' : 'Deno.connect';
const api = CA === null ? netApi : { 'node:net': 'node:tls', 'Bun.connect': 'Bun.connect tls', 'Deno.connect': 'Deno.connectTls' }[netApi];

const DATA = 0;
const HEADERS = 1;
const RST_STREAM = 3;
const SETTINGS = 4;
const PING = 6;
const GOAWAY = 7;
const END_STREAM = 1;
const ACK = 1;
const END_HEADERS = 4;
// The windows loadtest asks for: 16 MiB a stream, 2^30 − 1 the connection, topped up at half.
const STREAM_WINDOW = 16 * 1024 * 1024;
const CONNECTION_WINDOW = 2 ** 30 - 1;

function frame(type, flags, stream, payload) {
  const out = new Uint8Array(9 + payload.length);
  out.set([payload.length >>> 16, (payload.length >>> 8) & 255, payload.length & 255, type, flags], 0);
  setStream(out, 5, stream);
  out.set(payload, 9);
  return out;
}

function setStream(buf, at, stream) {
  buf[at] = (stream >>> 24) & 127;
  buf[at + 1] = (stream >>> 16) & 255;
  buf[at + 2] = (stream >>> 8) & 255;
  buf[at + 3] = stream & 255;
}

const u32 = (v) => [(v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
const windowUpdate = (increment) => frame(8, 0, 0, u32(increment));

// A literal without indexing (RFC 7541 6.2.2) naming a static entry (its index a 4-bit prefix
// integer, 5.1: under 15 + 128 here), the value as is (under 127 bytes).
function literal(index, value) {
  const bytes = new TextEncoder().encode(value);
  return [...(index < 15 ? [index] : [15, index - 15]), bytes.length, ...bytes];
}

// :method GET (2), :scheme http(s) (6, 7), :path / (4), :authority, user-agent (58) and accept
// (19) as loadtest sends them: a block of the same size as its.
const BLOCK = [0x82, CA === null ? 0x86 : 0x87, 0x84, ...literal(1, where), ...literal(58, 'loadtest-bare'), ...literal(19, '*/*')];
const REQUEST = frame(HEADERS, END_HEADERS | END_STREAM, 1, BLOCK);
const R = REQUEST.length;
const PREFACE = new TextEncoder().encode('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
// SETTINGS_ENABLE_PUSH 0, SETTINGS_INITIAL_WINDOW_SIZE.
const OPENING = [...PREFACE, ...frame(SETTINGS, 0, 0, [0, 2, ...u32(0), 0, 4, ...u32(STREAM_WINDOW)]), ...windowUpdate(CONNECTION_WINDOW - 65535)];
const SETTINGS_ACK = frame(SETTINGS, ACK, 0, []);

let requests = 0;
let resets = 0;
let goaways = 0;
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

// Per connection: the frame header being read (head, have), the payload bytes still to come
// (left), the frame's type and flags, a PING's payload, the next stream id, the control frames
// owed (SETTINGS ACK, PING ACK, WINDOW_UPDATE) which go with the next write, DATA bytes not yet
// given back.
function newState() {
  return { head: new Uint8Array(9), have: 0, left: 0, type: 0, flags: 0, ping: new Uint8Array(8), next: 1, owed: [], unacked: 0, ended: 0, holding: false, gone: false, first: true, write: null };
}

// Streams ended in buf[0..n): a frame counts once its last byte is in.
function scan(c, buf, n) {
  let done = 0;
  let i = 0;
  while (i < n) {
    if (c.left > 0) {
      const take = Math.min(c.left, n - i);
      if (c.type === PING) c.ping.set(buf.subarray(i, i + take), 8 - c.left);
      c.left -= take;
      i += take;
      if (c.left === 0) done += frameDone(c);
      continue;
    }
    if (c.have === 0 && n - i >= 9) {
      c.head.set(buf.subarray(i, i + 9));
      i += 9;
    } else {
      const take = Math.min(9 - c.have, n - i);
      c.head.set(buf.subarray(i, i + take), c.have);
      c.have += take;
      i += take;
      if (c.have < 9) break;
      c.have = 0;
    }
    const h = c.head;
    c.left = (h[0] << 16) | (h[1] << 8) | h[2];
    c.type = h[3];
    c.flags = h[4];
    if (c.left === 0) done += frameDone(c);
  }
  return done;
}

// 1 when the frame just read ended a stream (or reset it: a new one takes its place).
function frameDone(c) {
  const type = c.type;
  const length = (c.head[0] << 16) | (c.head[1] << 8) | c.head[2];
  if (type === DATA) {
    c.unacked += length;
    if (c.unacked >= CONNECTION_WINDOW / 2) {
      c.owed.push(windowUpdate(c.unacked));
      c.unacked = 0;
    }
  }
  if ((type === HEADERS || type === DATA) && (c.flags & END_STREAM) !== 0) {
    requests++;
    return 1;
  }
  if (type === SETTINGS && (c.flags & ACK) === 0) c.owed.push(SETTINGS_ACK);
  else if (type === PING && (c.flags & ACK) === 0) c.owed.push(frame(PING, ACK, 0, c.ping));
  else if (type === RST_STREAM) {
    resets++;
    return 1;
  } else if (type === GOAWAY) {
    goaways++;
    c.gone = true;
  }
  return 0;
}

// Writes are cut from a slab (never written again; a new one when full), as node's Buffer pool
// does: on node, a Buffer over a Uint8Array of 64 bytes or less first moves it out of the JS heap.
let slab = new Uint8Array(64 * 1024);
let slabAt = 0;
function cut(size) {
  if (slabAt + size > slab.length) {
    slab = new Uint8Array(Math.max(64 * 1024, size));
    slabAt = 0;
  }
  slabAt += size;
  return slab.subarray(slabAt - size, slabAt);
}

// One write for what a read let go: the control frames owed, then a HEADERS frame for each
// stream ended, each with the next stream id.
function batch(c, ended) {
  const owed = c.owed;
  if (c.gone || stopping) ended = 0;
  let size = ended * R;
  for (let k = 0; k < owed.length; k++) size += owed[k].length;
  if (size === 0) return null;
  const out = cut(size);
  let at = 0;
  for (let k = 0; k < owed.length; k++) {
    out.set(owed[k], at);
    at += owed[k].length;
  }
  owed.length = 0;
  for (let k = 0; k < ended; k++, at += R) {
    out.set(REQUEST, at);
    setStream(out, at + 5, c.next);
    c.next += 2;
  }
  return out;
}

function opening(c) {
  const out = new Uint8Array(OPENING.length + M * R);
  out.set(OPENING);
  for (let k = 0, at = OPENING.length; k < M; k++, at += R) {
    out.set(REQUEST, at);
    setStream(out, at + 5, c.next);
    c.next += 2;
  }
  return out;
}

function chunk(c, buf, n) {
  const done = scan(c, buf, n);
  if (done > 0) {
    if (opened < N) openSome();
    if (c.first) {
      c.first = false;
      if (++warm === N) connectMs = performance.now() - t0;
    }
  }
  if (!HOLD) {
    const out = batch(c, done);
    if (out !== null) c.write(out);
  } else {
    c.ended += done;
    if (c.ended > 0 || c.owed.length > 0) hold(c);
  }
}

// node:tls hands on each TLS record by itself: a write a record was one SSL_write each. Its
// writes wait for the end of the loop's poll phase and go as one, as loadtest's node adapter
// does (runtimes/sockets/node.js).
const HOLD = api === 'node:tls' && runtime === 'node';
const holding = [];
function hold(c) {
  if (c.holding) return;
  c.holding = true;
  if (holding.push(c) === 1) setImmediate(writeHeld);
}
function writeHeld() {
  for (const c of holding) {
    c.holding = false;
    const out = batch(c, c.ended);
    c.ended = 0;
    if (out !== null) c.write(out);
  }
  holding.length = 0;
}

function notH2(alpn) {
  console.error(`no h2 by ALPN (the server chose ${alpn || 'nothing'})`);
  exit(1);
}

async function nodeNet() {
  const net = await import(CA === null ? 'node:net' : 'node:tls');
  // One read buffer for every connection, as the node adapter has (runtimes/sockets/node.js).
  const shared = Buffer.allocUnsafe(128 * 1024);
  const sockets = [];
  const open = (c) => {
    const tls = CA === null ? {} : { ca: CA, ALPNProtocols: ['h2'] };
    const socket = net.connect({ host, port, noDelay: true, ...tls, onread: { buffer: shared, callback: (n, buf) => chunk(c, buf, n) } });
    if (CA !== null) socket.on('secureConnect', () => socket.alpnProtocol === 'h2' || notH2(socket.alpnProtocol));
    socket.on('data', (data) => chunk(c, data, data.length));
    socket.on('error', () => {});
    c.write = (bytes) => socket.write(bytes);
    c.write(opening(c));
    sockets.push(socket);
  };
  return { open, close: () => sockets.forEach((s) => s.destroy()) };
}

// Bun's write() takes what the kernel takes; the rest waits for drain().
function bunConnect() {
  const sockets = [];
  const handlers = {
    open(socket) {
      socket.setNoDelay(true);
      const c = socket.data;
      c.pending = null;
      c.write = (bytes) => {
        if (c.pending !== null) c.pending = concat(c.pending, bytes);
        else {
          const n = socket.write(bytes);
          if (n < bytes.length) c.pending = bytes.subarray(Math.max(0, n));
        }
      };
      c.write(opening(c));
    },
    handshake(socket, success) {
      if (!success || socket.alpnProtocol !== 'h2') notH2(socket.alpnProtocol);
    },
    drain(socket) {
      const c = socket.data;
      if (c.pending === null) return;
      const bytes = c.pending;
      c.pending = null;
      c.write(bytes);
    },
    data(socket, data) {
      chunk(socket.data, data, data.length);
    },
    error() {},
  };
  // Bun 1.4.5 takes ALPN as its wire form (runtimes/sockets/bun.js).
  const tls = CA === null ? {} : { tls: { ca: CA, ALPNProtocols: new Uint8Array([2, 104, 50]).buffer } };
  const open = (c) => {
    globalThis.Bun.connect({ hostname: host, port, socket: handlers, data: c, ...tls }).then((s) => sockets.push(s), () => {});
  };
  return { open, close: () => sockets.forEach((s) => s.terminate()) };
}

// One write at a time, partial writes finished; what comes meanwhile waits, joined.
function denoConnect() {
  const conns = [];
  const Deno = globalThis.Deno;
  const open = async (c) => {
    const conn = CA === null ? await Deno.connect({ hostname: host, port }) : await Deno.connectTls({ hostname: host, port, caCerts: [CA], alpnProtocols: ['h2'] });
    if (CA !== null) {
      const info = await conn.handshake();
      if (info.alpnProtocol !== 'h2') notH2(info.alpnProtocol);
    } else conn.setNoDelay(true); // a TlsConn has none (Deno 2.9)
    conns.push(conn);
    let writing = false;
    let pending = null;
    const written = (bytes, n) => {
      const rest = n < bytes.length ? (pending === null ? bytes.subarray(n) : concat(bytes.subarray(n), pending)) : pending;
      pending = null;
      if (rest === null) writing = false;
      else send(rest);
    };
    const send = (bytes) => {
      writing = true;
      conn.write(bytes).then((n) => written(bytes, n), () => {});
    };
    c.write = (bytes) => {
      if (writing) pending = pending === null ? bytes : concat(pending, bytes);
      else send(bytes);
    };
    c.write(opening(c));
    const buf = new Uint8Array(16 * 1024);
    try {
      for (;;) {
        const n = await conn.read(buf);
        if (n === null || stopping) break;
        chunk(c, buf, n);
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

function concat(a, b) {
  const all = new Uint8Array(a.length + b.length);
  all.set(a, 0);
  all.set(b, a.length);
  return all;
}

function exit(code) {
  if (globalThis.Deno) globalThis.Deno.exit(code);
  else globalThis.process.exit(code);
}

const client = netApi === 'node:net' ? await nodeNet() : netApi === 'Bun.connect' ? bunConnect() : denoConnect();
// Paced by the clock, at most OPEN_PER_TICK at once, as bench/bare-keepalive.js.
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
  console.log(JSON.stringify({ tool: 'bare-h2', api, connections: N, streams: M, requests, seconds, connectMs: Math.round(connectMs), warm, resets, goaways }));
  client.close();
  // The runtime may keep closing sockets for a while; the figure is out.
  setTimeout(() => exit(0), 50);
}, SECONDS * 1000);
