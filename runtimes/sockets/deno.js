// The socket interface (src/socket.js) on Deno.connect / Deno.connectTls.
//
// Each connection runs one read loop into its own reused buffer (the chunk handed to data() is a
// view of it, valid until data() returns) and one write loop that finishes partial writes in
// order.

import { tunnelReader } from '../../src/http1/proxy.js';
import { ignoresCertificates } from '../processes/deno-restart.js';
import { tlsAlert } from './tls-alert.js';
import * as nodeNet from './node.js';
import { writeHolder, takeHeld } from './held-writes.js';
import { ridOf, read } from './deno-read.js';
import { rootCertificates } from 'node:tls';

export const name = 'Deno.connect';
export const tlsName = 'Deno.connectTls';

// Deno cannot skip certificate checks for one connection, only for the whole process
// (--unsafely-ignore-certificate-errors, which the CLI's restart adds for --insecure), and a
// process that skips them cannot check them on Deno.connectTls (node:tls on Deno still does).
export const canSkipVerify = ignoresCertificates();
export const canVerify = !canSkipVerify;

// Deno.connectTls takes TCP only, and Deno.startTls refuses a Unix connection.
export const tlsOverUnix = false;

// Deno.connectTls offers the versions rustls does (1.2 and 1.3), with no say over them (Deno
// 2.9's ConnectTlsOptions); node:tls on Deno takes minVersion and maxVersion.
export const canLimitVersions = false;

// A pending read holds its buffer, so each connection needs its own. It starts small and doubles
// whenever a read fills it: at 10 000 connections a 64 KiB buffer each was 400 MB (Deno zeroes
// it), and most responses of a load test fit in one small read anyway.
const READ_MIN = 1024;
const READ_MAX = 64 * 1024;

// Buffers of READ_MIN whose read loop has ended (its last read settled, so Deno holds them no
// more), for the next connection: at a new connection per request each one was a new
// ArrayBuffer, allocated, zeroed and freed again by the GC. The pool keeps no more than a
// burst of closes needs.
const readPool = [];
const POOL_MAX = 256;

// Nagle's algorithm holds a small write back only while bytes sent before it are unacknowledged,
// so a fresh connection's first write, if it fits one segment, leaves at once without
// TCP_NODELAY. It is set before any other write, not at the connect: at a new connection per
// request (one small write each) it was a setsockopt and an op a connection that Deno's bare
// loop does not make. TLS sets it once its handshake is done. Deno throws EBADF ("Bad file
// descriptor") when the peer has closed the connection since: that connection's error, not the
// process's. A Unix connection has no setNoDelay.
const SEGMENT = 1200; // below the MSS of any path (IPv6's minimum MTU is 1280)
const noDelay = (conn) => conn.setNoDelay && conn.setNoDelay(true);

// Deno's error classes by name → the node-style codes the core reports.
const CODES = {
  ConnectionRefused: 'ECONNREFUSED',
  ConnectionReset: 'ECONNRESET',
  ConnectionAborted: 'ECONNABORTED',
  BrokenPipe: 'EPIPE',
  NotConnected: 'ENOTCONN',
  TimedOut: 'ETIMEDOUT',
  AddrNotAvailable: 'EADDRNOTAVAIL',
  NotFound: 'ENOTFOUND',
  NetworkUnreachable: 'ENETUNREACH',
  HostUnreachable: 'EHOSTUNREACH',
};

function normalize(err) {
  const alert = tlsAlert(err);
  if (alert !== err) return alert;
  const e = err instanceof Error ? err : new Error(String(err));
  if (!e.code || typeof e.code !== 'string') e.code = CODES[e.name] || e.name || 'socket error';
  // Deno reports a failed certificate check as InvalidData with the reason in the message.
  if (e.name === 'InvalidData' && /certificate|UnknownIssuer|NotValidForName|Expired/i.test(e.message)) {
    const t = new Error(`certificate error: ${e.message}`);
    t.code = 'CERT_ERROR';
    return t;
  }
  return e;
}

class DenoSocket {
  constructor(h) {
    this.handlers = h;
    this.queue = [];
    // One function a direction, made once, for both outcomes of its promise: a read or write
    // settles with a count (null at a read's end) or fails with an error object. Two fewer
    // closures a connection than a pair each.
    this.onWritten = (n) => (typeof n === 'number' ? this.written(n) : this.writeFailed(n));
    this.onRead = (n) => (typeof n === 'number' || n === null ? this.got(n) : this.readFailed(n));
    this.onReadOp = (n) => this.got(n === 0 ? null : n); // deno-read.js's: 0 at the end
    this.onConnect = (conn) => this.up(conn);
    this.onConnectFailed = (err) => this.connectFailed(err);
    this.gen = 0; // counts the connections this object has been (see spares)
    // What it writes from data() waits for the reads of the same turn (hold), unless the
    // handlers batch their writes themselves. Over TLS, held, https keep-alive measured 0.99 ×
    // writing at once: TLS writes go at once (start() says which it is).
    this.holds = h.batchesWrites !== true;
    this.inData = false; // inside handlers.data()
    this.held = null; // what was written from data(), until the turn's other reads are done
    this.buf = null; // the read buffer, from readPool while the connection is open
    this.view = null; // the chunk last handed on: a view of viewOf
    this.viewOf = null;
    this.clear();
  }

  // Made again for its handlers' next connection (spares).
  renew() {
    this.gen++;
    if (this.queue.length !== 0) this.queue.length = 0;
    this.clear();
  }

  // The state of a connection not yet made: a new object's, or a spare's made again.
  clear() {
    this.conn = null;
    this.rid = -1; // the connection's, where reads go by Deno's op (./deno-read.js)
    // A write held for the last connection is not this one's (its flush then finds nothing).
    this.held = null;
    this.inData = false;
    this.connecting = false; // Deno.connect's promise is pending
    this.reading = false; // a read is pending on buf
    this.writing = false;
    this.dead = false;
    this.failed = false;
    this.isClosed = false;
    this.ending = false;
    this.unix = false;
    this.tls = false;
    this.tunnel = false;
    this.early = null;
    this.tcpUp = false;
    this.retry = null; // (handlers) => the same connection through node:tls
    this.fallback = null; // that connection, once made
    this.nagle = false; // TCP_NODELAY not set yet (see noDelay)
    this.wrote = false;
  }

  // Whether this object may be made again for its handlers' next connection: it is closed, no
  // promise of Deno's will call it back, and it never was TLS or a tunnel.
  get spare() {
    return (this.dead || this.isClosed) && !this.connecting && !this.reading && !this.writing && !this.tls && !this.tunnel && this.fallback === null;
  }

  // Through a proxy: CONNECT, its answer, then TLS over the tunnel for https and wss.
  async openTunnel(host, port, tunnel, tlsOptions) {
    const conn = await globalThis.Deno.connect({ hostname: host, port, transport: 'tcp' });
    try {
      let bytes = tunnel.request;
      while (bytes.length > 0) bytes = bytes.subarray(await conn.write(bytes));
      const reader = tunnelReader();
      const buf = new Uint8Array(4096);
      let answer = null;
      while (answer === null) {
        const n = await conn.read(buf);
        if (n === null) {
          const err = new Error('the proxy closed the connection before answering CONNECT');
          err.code = 'proxy closed';
          throw err;
        }
        answer = reader.push(buf.subarray(0, n));
      }
      if (answer.error) throw answer.error;
      // The connect phase ends with the proxy's answer (the CONNECT included).
      if (!this.dead && this.handlers.connected) this.handlers.connected();
      if (!tlsOptions) {
        this.early = answer.rest.slice();
        return conn;
      }
      return await globalThis.Deno.startTls(conn, tlsOptions);
    } catch (err) {
      try {
        conn.close();
      } catch {
        // already closed
      }
      throw err;
    }
  }

  // `tls`: the connection is TLS, whose handshake ends before the first read or write. `tunnel`:
  // connected() was called with the proxy's answer.
  start(promise, tls = false, tunnel = false) {
    this.tls = tls;
    this.tunnel = tunnel;
    this.connecting = true;
    promise.then(this.onConnect, this.onConnectFailed);
  }

  up(conn) {
    this.connecting = false;
    if (this.dead) {
      conn.close();
      return;
    }
    this.tcpUp = true;
    if (!this.tunnel && this.handlers.connected) {
      const gen = this.gen;
      this.handlers.connected();
      // Dropped there (and maybe made again for the next connection): this one is not wanted.
      if (this.dead || this.gen !== gen) {
        conn.close();
        return;
      }
    }
    // Deno 2.9's connectTls resolves once TCP is up; the handshake runs on the first read or
    // write unless asked for. Asked for here, so that the TLS phase ends before any byte.
    if (this.tls) conn.handshake().then((info) => this.opened(conn, true, (info && info.alpnProtocol) || null), (err) => this.failOpen(conn, err));
    else this.opened(conn, false);
  }

  connectFailed(err) {
    this.connecting = false;
    if (this.retry !== null && caAsLeaf(err) && !this.dead) return this.throughNode();
    this.fail(err);
    this.closed();
  }

  failOpen(conn, err) {
    try {
      conn.close();
    } catch {
      // already closed
    }
    if (this.dead) return;
    if (this.retry !== null && caAsLeaf(err)) return this.throughNode();
    this.fail(err);
    this.closed();
  }

  opened(conn, tls, alpn = null) {
    if (this.dead) return this.failOpen(conn, null);
    // Deno.connectTls tells the ALPN protocol only, not the version or the cipher.
    if (tls && this.handlers.secured) this.handlers.secured(alpn, null);
    if (this.dead) return this.failOpen(conn, null);
    // TLS has written its handshake: its records go at once from here on.
    if (tls) {
      try {
        noDelay(conn);
      } catch (err) {
        return this.failOpen(conn, err);
      }
    } else this.nagle = true;
    this.conn = conn;
    this.rid = ridOf(conn);
    // Bytes that came with a proxy's answer, before the target's own.
    if (this.early !== null && this.early.length > 0) this.handlers.data(this.early);
    this.early = null;
    if (this.dead) return;
    // The request first, then the read: Deno tries a write at once, and a read started first
    // is only parked (its readiness registered) before the request has even left.
    if (this.queue.length > 0) this.writeNext();
    else if (this.ending) this.shutdown();
    this.buf = readPool.length > 0 ? readPool.pop() : new Uint8Array(READ_MIN);
    this.readNext();
  }

  // One read at a time into this connection's buffer. Callbacks made once per connection, as
  // for writes: an async loop's generator and its promise a read were garbage that the bare
  // loop does not make, and part of it was promoted (Deno, a connection per request).
  readNext() {
    const conn = this.conn;
    if (conn === null) return this.release();
    this.reading = true;
    if (this.rid >= 0) read(this.rid, this.buf).then(this.onReadOp, this.onRead);
    else conn.read(this.buf).then(this.onRead, this.onRead);
  }

  got(n) {
    this.reading = false;
    if (this.dead) return this.release();
    if (n === null) {
      this.release();
      this.closeConn();
      return this.closed();
    }
    const buf = this.buf;
    // The view handed on, made again only when the read's length or the buffer changes
    // (responses to the same request mostly have the same length, and a connection made again
    // mostly gets its last buffer back from the pool): most reads then allocate nothing here.
    if (this.viewOf !== buf || this.view.length !== n) {
      this.view = buf.subarray(0, n);
      this.viewOf = buf;
    }
    const gen = this.gen;
    this.inData = true;
    this.handlers.data(this.view);
    this.inData = false;
    // Dropped in data(), and maybe made again for the handlers' next connection already, which
    // takes a buffer once it is up: this one's read loop has ended.
    if (this.dead || this.gen !== gen) return this.release();
    if (n === buf.length && n < READ_MAX) this.buf = new Uint8Array(n * 2);
    this.readNext();
  }

  readFailed(err) {
    this.reading = false;
    this.release();
    if (this.dead) return;
    this.fail(err);
    this.closeConn();
    this.closed();
  }

  // No read is pending on the buffer now, and data() has returned: the next connection may have
  // it. (The view of it stays: handed on only while it is of this.buf.)
  release() {
    const buf = this.buf;
    this.buf = null;
    if (buf !== null && buf.length === READ_MIN && readPool.length < POOL_MAX) readPool.push(buf);
  }

  // The same connection again through node:tls on Deno, whose verifier takes a certificate that
  // is its own CA (see caAsLeaf); what was queued goes there, and its connect is not timed twice.
  throughNode() {
    const h = this.handlers;
    const handlers = { connected: this.tcpUp ? () => {} : () => h.connected && h.connected(), secured: h.secured && ((p, s) => h.secured(p, s)), data: (c) => h.data(c), error: (e) => h.error(e), close: () => h.close() };
    this.fallback = this.retry(handlers);
    for (const bytes of this.queue) this.fallback.write(bytes);
    this.queue = [];
    if (this.ending) this.fallback.end();
  }

  write(bytes) {
    if (this.fallback !== null) return this.fallback.write(bytes);
    if (this.dead || this.isClosed) return;
    // From data(), and after that until the turn's other reads are done, a write is held: the
    // order stays.
    if (this.holds && !this.tls && (this.inData || this.held !== null)) return hold(this, bytes);
    this.queue.push(bytes);
    if (this.conn !== null && !this.writing) this.writeNext();
  }

  // What was held, written (./held-writes.js calls it once the turn's reads are done).
  flush() {
    const bytes = takeHeld(this);
    if (bytes === null || this.dead || this.isClosed) return;
    this.queue.push(bytes);
    if (this.conn !== null && !this.writing) this.writeNext();
  }

  // One write at a time, in order, partial writes finished. Callbacks made once per connection
  // rather than an async function per request (its generator and promises are garbage that, at
  // 10 000 connections, survives into the old generation).
  writeNext() {
    this.writing = true;
    const bytes = this.queue[0];
    if (this.nagle && (this.wrote || bytes.length > SEGMENT)) {
      this.nagle = false;
      try {
        noDelay(this.conn);
      } catch (err) {
        // Not from within the caller's write(): its error and close come after it returns.
        queueMicrotask(() => this.writeFailed(err));
        return;
      }
    }
    this.wrote = true;
    this.conn.write(bytes).then(this.onWritten, this.onWritten);
  }

  written(n) {
    if (this.dead) {
      this.writing = false;
      return;
    }
    const bytes = this.queue[0];
    if (n < bytes.length) this.queue[0] = bytes.subarray(n);
    else this.queue.shift();
    if (this.queue.length > 0 && this.conn !== null) return this.writeNext();
    this.writing = false;
    if (this.ending && this.conn !== null) this.shutdown();
  }

  writeFailed(err) {
    this.writing = false;
    if (this.dead || this.isClosed) return;
    this.fail(err);
    this.closeConn();
    this.closed();
  }

  shutdown() {
    this.conn.closeWrite().catch(() => {});
  }

  end() {
    if (this.fallback !== null) return this.fallback.end();
    if (this.dead) return;
    this.flush();
    this.ending = true;
    if (this.conn !== null && !this.writing && this.queue.length === 0) this.shutdown();
  }

  destroy() {
    if (this.fallback !== null) return this.fallback.destroy();
    if (this.dead) return;
    // What was written before it still goes, as on node's adapters (a WebSocket's last pong).
    this.flush();
    this.dead = true;
    this.closeConn();
  }

  closeConn() {
    const conn = this.conn;
    this.conn = null;
    if (conn !== null) {
      try {
        conn.close();
      } catch {
        // already closed
      }
    }
  }

  fail(err) {
    if (this.dead || this.failed) return;
    this.failed = true;
    const e = normalize(err);
    // NotFound on a Unix socket is a missing file, not a host name.
    if (this.unix && e.code === 'ENOTFOUND') e.code = 'ENOENT';
    this.handlers.error(e);
  }

  closed() {
    if (this.isClosed) return;
    this.isClosed = true;
    if (!this.dead) this.handlers.close();
  }
}

// A request written from a read's data() goes once the other reads Deno settled in the same
// turn have run: their callbacks are microtasks queued together, and one queued by the first
// runs after them. The writes of a turn then go together, and a server that answered them all
// and slept is woken by the first, not by each (node's adapters hold theirs to setImmediate).
const hold = writeHolder(queueMicrotask);

/**
 * tls: null for plain TCP, or { servername, rejectUnauthorized, ca, cert, key }. path: a Unix
 * domain socket to connect to instead of host and port (plain only: see tlsOverUnix). tunnel:
 * { host, request } to send to the proxy at host:port first (CONNECT), then speak to the
 * target (tunnel.host) through it.
 */
export function connect(host, port, h, tls = null, path = null, tunnel = null) {
  if (tls && !tunnel && leafCAs.has(originKey(host, port, tls))) return nodeNet.connect(host, port, h, nodeTls(tls));
  const w = socketFor(h);
  const Deno = globalThis.Deno;
  let options = null;
  if (tls) {
    options = { hostname: tls.servername || (tunnel ? tunnel.host : host), port };
    if (tls.ca) options.caCerts = [String(tls.ca)];
    if (tls.alpn) options.alpnProtocols = tls.alpn;
    if (tls.cert && tls.key) {
      options.cert = String(tls.cert);
      options.key = String(tls.key);
    }
  }
  if (tunnel) {
    w.start(w.openTunnel(host, port, tunnel, options && { hostname: options.hostname, caCerts: options.caCerts }), Boolean(options), true);
  } else if (tls) {
    if (tls.rejectUnauthorized !== false) {
      w.retry = (handlers) => {
        leafCAs.add(originKey(host, port, tls));
        return nodeNet.connect(host, port, handlers, nodeTls(tls));
      };
    }
    w.start(Deno.connectTls(options), true);
  } else if (path) {
    w.unix = true;
    w.start(Deno.connect({ transport: 'unix', path }));
  } else {
    w.start(Deno.connect(tcpOptions(host, port)));
  }
  return w;
}

// A run's connection (src/http1/connection.js) is the handlers object of each socket it opens,
// one a request at a connection per request: its last socket object, closed and with nothing
// of Deno's pending on it, is made again rather than a new one: an object, four closures and an
// array a connection fewer, and the view of its read buffer kept when the pool gives the same
// buffer back. After destroy() or close() the core holds no socket object, so none is used by
// two connections.
const spares = new WeakMap();

function socketFor(h) {
  const last = spares.get(h);
  if (last !== undefined && last.spare) {
    last.renew();
    return last;
  }
  const w = new DenoSocket(h);
  spares.set(h, w);
  return w;
}

// Deno.connect copies what it reads of its options: one object serves every connection to a host.
let lastTcp = { hostname: '', port: 0, transport: 'tcp' };
function tcpOptions(host, port) {
  if (lastTcp.hostname !== host || lastTcp.port !== port) lastTcp = { hostname: host, port, transport: 'tcp' };
  return lastTcp;
}

// rustls (webpki) refuses a server certificate that is itself a CA (basicConstraints CA:TRUE,
// as `openssl req -x509` makes one) even when it is the very certificate trusted:
// "invalid peer certificate: Other(OtherError(CaUsedAsEndEntity))" (Deno 2.9.5), where
// OpenSSL, Go (k6) and node:tls on Deno accept it as trusted. Such a connection is made again
// through node:tls on Deno, which checks the certificate its way (chain and name: a wrong name
// or another CA still fails), and so is every later one to that origin.
const caAsLeaf = (err) => Boolean(err) && /CaUsedAsEndEntity/.test(String(err.message));
const leafCAs = new Set();
const originKey = (host, port, tls) => `${tls.servername || host}|${port}|${tls.ca || ''}|${tls.cert || ''}`;

// node:tls on Deno trusts its own roots and `ca`, not DENO_CERT: the file's certificates go in
// `ca` beside the roots, as Deno.connectTls trusts them.
function nodeTls(tls) {
  const extra = denoCert();
  if (extra === null) return tls;
  return { ...tls, ca: [...rootCertificates, extra, ...(tls.ca ? [String(tls.ca)] : [])] };
}

let denoCertText;
function denoCert() {
  if (denoCertText !== undefined) return denoCertText;
  denoCertText = null;
  try {
    const file = globalThis.Deno.env.get('DENO_CERT');
    if (file) denoCertText = globalThis.Deno.readTextFileSync(file);
  } catch {
    // not allowed, or no such file: Deno.connectTls said so already
  }
  return denoCertText;
}
