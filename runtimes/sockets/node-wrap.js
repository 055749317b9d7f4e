// The socket interface (src/socket.js) on node's TCP handle itself (tcp_wrap), the object
// net.Socket wraps: `--socket wrap`, node only. Plain TCP to an IP address only; TLS, a Unix
// socket, a proxy's tunnel or a host name go through node:net (./node.js).
//
// Why: at 10 000 kept-alive connections node's net.Socket, with its two streams, is the floor.
// The bare loop on it (bench/bare-keepalive.js node) held 7 KiB of RSS a connection and served
// 0.6-0.7 of the same loop on the handle (bench/bare-keepalive.js wrap), which held 1 KiB
// (bench/README.md, "10 000 connections on node").
//
// A connection is one object and its handle; nothing is made per request. Every read lands in
// one buffer shared by all connections (the handle calls onread at once, before any other
// read), and a write that the kernel takes whole needs no request object of its own: one is
// shared until a write has to wait, and then that write keeps it (with its bytes) until done.
// It asks node for its internal bindings (process.binding, documented as deprecated: DEP0111).

import { isIP } from 'node:net';
import { getSystemErrorName } from 'node:util';
import * as nodeNet from './node.js';
// One read buffer for node:net's connections and the handle's alike (./node.js says why), the
// view of it handed on, and the core's bytes as a Buffer view.
import { SHARED_READ_BUFFER, viewOf, asBuffer } from './node.js';
import { hold, takeHeld } from './held-writes.js';

export const name = 'tcp_wrap';
export const tlsName = nodeNet.tlsName;
export const canSkipVerify = nodeNet.canSkipVerify;

let binding = null; // node's tcp_wrap and stream_wrap, read at the first connection
let writeReq = null; // the shared write request, while no write is waiting with it
const UV_EOF = -4095;

/** As ./node.js's connect; plain TCP to an IP address goes through the handle. */
export function connect(host, port, handlers, tls = null, path = null, tunnel = null) {
  if (tls || path || tunnel || !isIP(host)) return nodeNet.connect(host, port, handlers, tls, path, tunnel);
  return new WrapSocket(host, port, handlers);
}

/** Whether this node lends its TCP handle (a later node may not): the default's choice. */
export function usable() {
  try {
    if (binding === null) bind();
    return typeof binding.TCP === 'function' && binding.streamBaseState !== undefined;
  } catch {
    return false;
  }
}

function bind() {
  const { TCP, TCPConnectWrap, constants } = globalThis.process.binding('tcp_wrap');
  const { WriteWrap, ShutdownWrap, streamBaseState, kReadBytesOrError, kLastWriteWasAsync } = globalThis.process.binding('stream_wrap');
  binding = { TCP, TCPConnectWrap, SOCKET: constants.SOCKET, WriteWrap, ShutdownWrap, streamBaseState, kReadBytesOrError, kLastWriteWasAsync };
  writeReq = new WriteWrap();
}

class WrapSocket {
  constructor(host, port, handlers) {
    if (binding === null) bind();
    this.handlers = handlers;
    this.open = false; // connected
    this.closing = false; // the handle is being closed: nothing more happens on it
    this.dead = false; // no handler is called any more (destroy(), or close() was)
    this.queue = null; // writes made before the connection was up
    this.ending = false; // end() before the connection was up
    this.reading = false; // inside the handle's onread
    // What it writes while reading waits for the turn's end (./held-writes.js), unless the
    // handlers batch their writes themselves.
    this.holds = handlers.batchesWrites !== true;
    this.held = null; // what was written while reading
    const handle = new binding.TCP(binding.SOCKET);
    handle.owner = this;
    handle.onread = onRead;
    handle.useUserBuffer(SHARED_READ_BUFFER);
    this.handle = handle;
    const req = new binding.TCPConnectWrap();
    req.oncomplete = afterConnect;
    req.address = host;
    req.port = port;
    const err = isIP(host) === 6 ? handle.connect6(req, host, port) : handle.connect(req, host, port);
    // Never a handler from inside connect() (src/socket.js).
    if (err) globalThis.process.nextTick(failLater, this, err, 'connect');
  }

  // While it reads, and after that until the turn's end, a write is held: the order stays.
  write(bytes) {
    if (this.closing) return;
    if (this.holds && (this.reading || this.held !== null)) hold(this, bytes);
    else this.writeNow(bytes);
  }

  // What was held, written (./held-writes.js calls it at the turn's end).
  flush() {
    const bytes = takeHeld(this);
    if (bytes !== null && !this.closing) this.writeNow(bytes);
  }

  writeNow(bytes) {
    if (!this.open) {
      if (this.queue === null) this.queue = [];
      this.queue.push(bytes);
      return;
    }
    const buffer = asBuffer(bytes);
    const req = writeReq;
    const err = this.handle.writeBuffer(req, buffer);
    // An error found at once is reported as node:net does, after this call has returned.
    if (err) return globalThis.process.nextTick(failLater, this, err, 'write');
    if (binding.streamBaseState[binding.kLastWriteWasAsync] !== 0) {
      // The kernel took part of it: the rest goes when it can; the request and the bytes are this
      // write's until it completes.
      req.handle = this.handle;
      req.buffer = buffer;
      req.oncomplete = afterWrite;
      writeReq = new binding.WriteWrap();
    }
  }

  end() {
    if (this.closing) return;
    this.flush();
    if (!this.open) {
      this.ending = true;
      return;
    }
    // After the writes queued before it (libuv's shutdown waits for them); reading goes on to
    // the server's close, as node:net's socket (allowHalfOpen false) does.
    const req = new binding.ShutdownWrap();
    req.oncomplete = afterShutdown;
    req.handle = this.handle;
    const err = this.handle.shutdown(req);
    if (err) globalThis.process.nextTick(failLater, this, err, 'shutdown');
  }

  // What was written before it still goes, as in ./node.js.
  destroy() {
    this.flush();
    this.dead = true;
    this.close();
  }

  // The handle closes; close() follows once it has, unless destroy() came first.
  close() {
    if (this.closing) return;
    this.closing = true;
    this.queue = null;
    this.handle.close(afterClose);
  }

  fail(status, syscall) {
    if (this.closing) return;
    const code = getSystemErrorName(status);
    const err = new Error(`${syscall} ${code}`);
    err.code = code;
    err.errno = status;
    err.syscall = syscall;
    this.close();
    if (!this.dead) this.handlers.error(err);
  }
}

function failLater(conn, status, syscall) {
  conn.fail(status, syscall);
}

// The handle's and the requests' callbacks, shared by every connection: node calls them with
// the handle (onread, close) or the request (oncomplete) as `this`.
function afterConnect(status, handle) {
  const conn = handle.owner;
  if (conn.closing) return;
  if (status < 0) return conn.fail(status, 'connect');
  handle.setNoDelay(true); // a request is one write that must leave at once
  conn.open = true;
  if (conn.handlers.connected && !conn.dead) conn.handlers.connected();
  if (conn.closing) return;
  const err = handle.readStart();
  if (err) return conn.fail(err, 'read');
  const queue = conn.queue;
  conn.queue = null;
  if (queue !== null) for (const bytes of queue) conn.write(bytes);
  if (conn.ending) conn.end();
}

function onRead() {
  const n = binding.streamBaseState[binding.kReadBytesOrError];
  const conn = this.owner;
  if (conn.closing) return;
  if (n > 0) {
    conn.reading = true;
    conn.handlers.data(viewOf(SHARED_READ_BUFFER, n));
    conn.reading = false;
  } else if (n === UV_EOF) conn.close(); // the server closed: no error
  else if (n < 0) conn.fail(n, 'read');
}

function afterWrite(status) {
  const conn = this.handle.owner;
  this.buffer = null;
  if (status < 0) conn.fail(status, 'write');
}

function afterShutdown(status) {
  // A shutdown that fails (the server already gone) is told by the read that follows.
  this.handle = null;
  return status;
}

function afterClose() {
  const conn = this.owner;
  if (conn.dead) return;
  conn.dead = true;
  conn.handlers.close();
}
