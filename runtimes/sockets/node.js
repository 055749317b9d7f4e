// The socket interface (src/socket.js) on node:net, and node:tls for https. Bun and Deno run it
// too, through their node compatibility layers (`--socket node`).

import net from 'node:net';
import tlsModule from 'node:tls';
import { certificateError } from './cert-error.js';
import { tlsAlert } from './tls-alert.js';
import { opensslCiphers } from './cipher-names.js';
import { tlsSession } from './tls-session.js';
import { tunnelReader } from '../../src/http1/proxy.js';
import { hold, takeHeld } from './held-writes.js';

export const name = 'node:net';
export const tlsName = 'node:tls';
export const canSkipVerify = true;

// One read buffer for every connection, TLS too: with `onread`, node reads a socket into it and
// calls the callback at once, before it reads any other socket, and the core is done with a
// chunk when data() returns (src/socket.js). A buffer per connection cost 64 KiB of address
// space and ~4-8 KiB of RSS each at 10 000 connections. 128 KiB, not 64: reading 1 MiB bodies
// from nginx over loopback (node 20, Linux), 64 KiB reads served 3.5k req/s where 16, 128 and
// 256 KiB served 5.1k (3 interleaved rounds), and 128 KiB took the least CPU (138-142 µs a
// request; 16 KiB 156); small responses alike at every size.
export const SHARED_READ_BUFFER = Buffer.allocUnsafe(128 * 1024);

// The view handed on for a read of n bytes: made again only when n changes. A server's
// responses to the same request are mostly the same length, so most reads allocate nothing;
// the view is as valid as before (until data() returns: the next read overwrites its bytes).
let lastView = SHARED_READ_BUFFER.subarray(0, 0);
export function viewOf(buf, n) {
  if (lastView.length !== n || lastView.buffer !== buf.buffer) lastView = buf.subarray(0, n);
  return lastView;
}

// The core's bytes as a Buffer: node:net makes a Buffer view of each Uint8Array it is given to
// write, an object per request; the view made for the last bytes is kept instead, and the run's
// one fixed request needs one view for the whole run. It is a view (no copy), as node's.
let lastBytes = null;
let lastBuffer = null;
export function asBuffer(bytes) {
  if (bytes !== lastBytes) {
    lastBytes = bytes;
    lastBuffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  return lastBuffer;
}

/**
 * tls: null for plain TCP, or { servername, rejectUnauthorized, ca, cert, key, alpn, minVersion,
 * maxVersion, ciphers } (versions as node:tls names them, ciphers by IANA's names). path: a Unix
 * domain socket to connect to instead of host and port. tunnel: { request } to send to the
 * proxy at host:port first (CONNECT), then speak to the target through it.
 */
export function connect(host, port, handlers, tls = null, path = null, tunnel = null) {
  if (tunnel) return throughTunnel(host, port, handlers, tls, tunnel);
  const conn = new NodeSocket(handlers, tls !== null);
  // Reads go into the shared buffer (`onread`) instead of a new Buffer per read: +12-18 % req/s
  // on node 20 against nginx (bench/README.md). node:tls takes it too and decrypts into it. The
  // chunk handed on is a view of it, valid until data() returns, as the socket interface says.
  // The callback is the one closure a connection has: Bun's node:net calls it without the
  // socket as `this`.
  const onread = { buffer: SHARED_READ_BUFFER, callback: (n, buf) => conn.read(n, buf) };
  // noDelay: a request is one write that must leave at once, not wait for Nagle's timer.
  const where = path ? { path } : { host, port };
  const socket = tls
    ? tlsModule.connect({ ...where, noDelay: true, onread, ...tlsOptions(tls) })
    : net.connect({ ...where, noDelay: true, onread });
  if (tls && !path) socket.setNoDelay(true);
  conn.socket = socket;
  socket[OWNER] = conn;
  // The request phases (src/socket.js): TCP up, then (TLS) the handshake done. A TLSSocket of
  // tls.connect() emits 'connect' for its TCP connection before 'secureConnect' (node 20).
  if (handlers.connected) socket.on('connect', onConnect);
  if (tls && handlers.secured) socket.on('secureConnect', onSecureConnect);
  // No setEncoding: chunks arrive as Buffers, which are Uint8Arrays, passed on without a copy.
  // (A node:net without `onread` support emits them here instead; never both.)
  socket.on('data', onData);
  socket.on('error', onError);
  socket.on('close', onClose);
  return conn;
}

// A connection's state and the socket interface's methods, on one object with its methods on the
// class: at 10 000 connections the closures and contexts each connection had (eight closures,
// the returned object, the listeners) were ~0.5 KB of its ~2 KB of live JS (bench/README.md).
class NodeSocket {
  constructor(handlers, tls) {
    this.handlers = handlers;
    this.tls = tls;
    this.socket = null;
    this.dead = false;
    this.intoBuffer = false; // reads come through onread (and never as 'data')
    this.reading = false;
    // What it writes while reading waits for the turn's end (./held-writes.js): over TLS always
    // (node:tls hands on one record a read), plain unless the handlers batch their writes.
    this.holds = tls || handlers.batchesWrites !== true;
    this.held = null; // what was written while reading
  }

  read(n, buf) {
    this.intoBuffer = true;
    if (this.dead) return;
    this.reading = true;
    this.handlers.data(viewOf(buf, n));
    this.reading = false;
  }

  // While it reads, and after that until the turn's end, a write is held: the order stays.
  write(bytes) {
    if (this.dead) return;
    if (this.holds && (this.reading || this.held !== null)) hold(this, bytes);
    else this.socket.write(asBuffer(bytes));
  }

  // What was held, written (./held-writes.js calls it at the turn's end).
  flush() {
    const bytes = takeHeld(this);
    if (bytes !== null && !this.dead) this.socket.write(asBuffer(bytes));
  }

  end() {
    if (this.dead) return;
    this.flush();
    this.socket.end();
  }

  // What was written before it still goes (a pong, written while reading the message that
  // ended the run), as it did when every write went at once.
  destroy() {
    this.flush();
    this.dead = true;
    this.socket.destroy();
  }
}

// The socket's NodeSocket, for the listeners below: shared by every socket, since an emitter
// calls its listeners with the socket as `this` (node, Bun and Deno alike).
const OWNER = Symbol('loadtest connection');

function onConnect() {
  const conn = this[OWNER];
  if (!conn.dead) conn.handlers.connected();
}

function onSecureConnect() {
  const conn = this[OWNER];
  if (!conn.dead) conn.handlers.secured(this.alpnProtocol || null, sessionOf(this));
}

function onData(chunk) {
  const conn = this[OWNER];
  if (!conn.dead && !conn.intoBuffer) conn.handlers.data(chunk);
}

function onError(err) {
  const conn = this[OWNER];
  if (!conn.dead) conn.handlers.error(conn.tls ? tlsError(err) : err);
}

function onClose() {
  const conn = this[OWNER];
  if (conn.dead) return;
  conn.dead = true;
  conn.handlers.close();
}

// The proxy's answer is read before anything else: a 2xx opens the tunnel (then TLS over it for
// https and wss), anything else is the connection's error. Writes wait until the tunnel is up.
function throughTunnel(host, port, handlers, tls, tunnel) {
  let dead = false;
  let failed = false;
  let closed = false;
  let socket = null; // what the core's bytes go through once the tunnel is up
  let queue = [];
  let ending = false;
  const fail = (err) => {
    if (dead || failed) return;
    failed = true;
    handlers.error(err);
  };
  const close = () => {
    if (closed) return;
    closed = true;
    if (!dead) handlers.close();
  };
  const raw = net.connect({ host, port, noDelay: true });
  raw.write(tunnel.request);
  const reader = tunnelReader();
  const opened = (chunk) => {
    const answer = reader.push(chunk);
    if (answer === null) return;
    raw.off('data', opened);
    if (answer.error) {
      fail(answer.error);
      raw.destroy();
      return;
    }
    // The connect phase ends with the proxy's answer (the CONNECT included), then TLS begins.
    if (handlers.connected && !dead) handlers.connected();
    if (tls) {
      socket = tlsModule.connect({ socket: raw, ...tlsOptions(tls) });
      socket.on('error', (err) => fail(tlsError(err)));
      socket.on('close', close);
      if (handlers.secured) socket.once('secureConnect', () => dead || handlers.secured(socket.alpnProtocol || null, sessionOf(socket)));
    } else {
      socket = raw;
    }
    socket.on('data', (data) => {
      if (!dead) handlers.data(data);
    });
    if (answer.rest.length > 0 && !dead) handlers.data(answer.rest);
    for (const bytes of queue) socket.write(bytes);
    queue = null;
    if (ending) socket.end();
  };
  raw.on('data', opened);
  raw.on('error', fail);
  raw.on('close', () => {
    if (socket === null && !failed) {
      const err = new Error('the proxy closed the connection before answering CONNECT');
      err.code = 'proxy closed';
      fail(err);
    }
    close();
  });
  return {
    write(bytes) {
      if (dead) return;
      if (socket === null) queue.push(bytes);
      else socket.write(bytes);
    },
    end() {
      if (dead) return;
      if (socket === null) ending = true;
      else socket.end();
    },
    destroy() {
      dead = true;
      if (socket !== null) socket.destroy();
      raw.destroy();
    },
  };
}

function tlsOptions(tls) {
  const o = { rejectUnauthorized: tls.rejectUnauthorized };
  if (tls.servername) o.servername = tls.servername;
  if (tls.ca) o.ca = tls.ca;
  if (tls.cert) o.cert = tls.cert;
  if (tls.key) o.key = tls.key;
  if (tls.alpn) o.ALPNProtocols = tls.alpn;
  if (tls.minVersion) o.minVersion = tls.minVersion;
  if (tls.maxVersion) o.maxVersion = tls.maxVersion;
  if (tls.ciphers) o.ciphers = opensslCiphers(tls.ciphers);
  return o;
}

// An alert first: OpenSSL's code for one may name a certificate (TLSV13_ALERT_CERTIFICATE_REQUIRED).
const tlsError = (err) => {
  const alert = tlsAlert(err);
  return alert !== err ? alert : certificateError(err);
};

// A TLSSocket's session; none where node:tls does not tell it (Deno's may not).
const sessionOf = (socket) => tlsSession(typeof socket.getProtocol === 'function' ? socket.getProtocol() : null, typeof socket.getCipher === 'function' ? socket.getCipher() : null);
