// A grpc.Client's connection (k6/net/grpc): the run-side of our HTTP/2 driver for one target,
// as client-h2.js is for a VU's https origin, in the driver's live mode (src/http2/live.js): a
// call's header blocks and DATA reach its Call as they come, and a stream's messages go out as
// the script writes them. Calls share the one connection as streams, as grpc-go's channel
// shares its transport; after the connection is lost, the next call opens another.

import { LiveHttp2Connection } from '../http2/live.js';
import { encodeRequestHeaders } from '../http2/hpack.js';
import { requestFrames, DEFAULT_MAX_FRAME, END_STREAM } from '../http2/frames.js';
import { errorName as socketErrorName } from '../socket.js';
import { callCode, UNKNOWN, INTERNAL, UNAVAILABLE } from '../grpc/status.js';
import { frameMessage } from '../grpc/frame.js';
import { DriverSide } from './driver-side.js';

// Streams out at once on the connection (never more than the server's
// SETTINGS_MAX_CONCURRENT_STREAMS); more wait their turn.
const STREAMS = 100;
// A unary call's message goes with its HEADERS when it fits the first windows (RFC 9113 6.9.2).
const INLINE = 65535;
// grpc-go's default limit of a received message (grpc.MaxCallRecvMsgSize).
export const MAX_RECEIVE = 4 * 1024 * 1024;

const CANCELED = 1;
const DEADLINE_EXCEEDED = 4;
const RESOURCE_EXHAUSTED = 8;
const decoder = new TextDecoder();

// What grpc-go makes of a stream reset by the server (its http2ErrConvTab).
const RESET_CODES = { CANCEL: CANCELED, REFUSED_STREAM: UNAVAILABLE, FLOW_CONTROL_ERROR: RESOURCE_EXHAUSTED, ENHANCE_YOUR_CALM: RESOURCE_EXHAUSTED, INADEQUATE_SECURITY: 7 };

export class GrpcChannel extends DriverSide {
  /** `target`: { address, port, authority, tls }; `adapter`: the socket adapter (TLS with ALPN h2). */
  constructor(network, target, adapter) {
    super();
    this.network = network;
    // Its own counters: the bytes it read (stats.bytes, the driver's) and wrote, for k6's
    // data_received and data_sent (bytes()).
    this.stats = { bytes: 0, unexpectedData: 0, retries: 0, connections: 0 };
    this.sent = 0;
    this.adapter = adapter;
    this.host = target.address;
    this.port = target.port;
    this.authority = target.authority;
    this.scheme = target.tls ? 'https' : 'http';
    this.streams = STREAMS;
    this.config = { maxBodySize: 0, grpc: { codeOf: callCode } };
    this.capture = true;
    this.live = true;
    this.fixed = null;
    this.fixedShape = null;
    this.open = false;
    this.intendedTime = 0;
    this.stopping = false;
    this.inFlight = 0;
    this.timeout = Infinity; // each call's deadline is its own timer
    this.queue = []; // calls not yet claimed by the connection
    this.calls = new Map(); // index → Call, from its start to its end
    this.nextIndex = 0;
    this.conn = null;
    this.waiter = null; // connect()'s
    this.closed = false;
  }

  /** Opens the connection: resolves once the server's SETTINGS came, rejects with Go's words. */
  dial(timeoutMs) {
    this.conn = new LiveHttp2Connection(this, 0);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        this.close();
        reject(new Error('context deadline exceeded'));
      }, timeoutMs);
      this.waiter = (err) => {
        clearTimeout(timer);
        this.waiter = null;
        if (err) reject(err);
        else resolve(true);
      };
      this.conn.open(performance.now());
    });
  }

  /**
   * Starts `call` (a Call): its HEADERS, and its message when it has one (a unary call's);
   * a stream's messages follow by write().
   */
  start(call) {
    if (this.closed) return call.end(CANCELED, 'grpc: the client connection is closing');
    const block = encodeRequestHeaders({ method: 'POST', scheme: this.scheme, authority: this.authority, path: call.path, headers: call.headers, sizeUpdate: true });
    let bytes;
    if (call.message !== null) {
      const body = call.message;
      bytes = { head: requestFrames(block, body, DEFAULT_MAX_FRAME, 0), full: body.length <= INLINE ? requestFrames(block, body, DEFAULT_MAX_FRAME, INLINE) : null, body };
    } else {
      const head = requestFrames(block, null, DEFAULT_MAX_FRAME, 0);
      head.bytes[4] &= ~END_STREAM; // the stream's body follows
      bytes = { head, full: head, body: null };
    }
    call.index = this.nextIndex++;
    call.channel = this;
    call.shape = { bytes, method: 'POST', path: call.path, out: call.message === null ? call.out : undefined };
    this.calls.set(call.index, call);
    this.queue.push(call.index);
    if (call.debug !== null) {
      call.debug.outHeader();
      if (call.message !== null) call.debug.outPayload(call.message);
    }
    if (this.conn === null) this.conn = new LiveHttp2Connection(this, 0);
    this.conn.next();
  }

  /** A stream's message (framed), or its end (null). */
  write(call, framed) {
    if (framed === null) call.out.ended = true;
    else {
      call.out.chunks.push(framed);
      if (call.debug !== null) call.debug.outPayload(framed);
    }
    if (this.conn !== null && this.calls.has(call.index)) this.conn.writeOut(call.index);
  }

  /** Ends `call` now with `code` and `message` (its deadline, the script's cancel). */
  cancel(call, code, message) {
    call.cancelled = { code, message };
    const queued = this.queue.indexOf(call.index);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.calls.delete(call.index);
      return call.end(code, message);
    }
    if (this.conn === null || !this.conn.cancel(call.index, 'cancelled')) return;
    this.conn.proceed();
  }

  // The driver's questions (src/driver.js)
  claim() {
    const index = this.queue.shift();
    return index === undefined ? -2 : index;
  }

  shapeOf(index) {
    return this.calls.get(index).shape;
  }

  connect(conn) {
    conn.number = ++this.network.stats.connections;
    const socket = this.adapter.connect(this.host, this.port, conn);
    return {
      write: (bytes) => {
        this.sent += bytes.length;
        socket.write(bytes);
      },
      end: () => socket.end(),
      destroy: () => socket.destroy(),
    };
  }

  /** The bytes written and read since the last time it was asked: { sent, received }. */
  bytes() {
    const out = { sent: this.sent, received: this.stats.bytes };
    this.sent = 0;
    this.stats.bytes = 0;
    return out;
  }

  connected() {}

  secured() {}

  headersOf(index, list, endStream, length) {
    const call = this.calls.get(index);
    if (call !== undefined) call.onHeaders(list, endStream, length);
  }

  dataOf(index, buf, from, to) {
    const call = this.calls.get(index);
    if (call !== undefined && to > from) call.data(buf, from, to);
  }

  responded(conn, code) {
    const call = this.take(conn);
    if (call !== null) call.finish(code);
  }

  failed(conn, reason) {
    const call = this.take(conn);
    if (call === null) return;
    if (call.cancelled) return call.end(call.cancelled.code, call.cancelled.message);
    call.failed(reason);
  }

  take(conn) {
    const call = this.calls.get(conn.index);
    if (call === undefined) return null;
    this.calls.delete(conn.index);
    this.inFlight--;
    return call;
  }

  proceed(conn) {
    if (this.waiter !== null) {
      if (conn.socket !== null && conn.settled) this.waiter(null);
      else if (conn.socket === null) this.waiter(new Error(dialError(conn.socketError, this)));
    }
    // (Calls the server did not process, after GOAWAY or REFUSED_STREAM, wait in conn.retries.)
    if ((this.queue.length > 0 || conn.retries.length > 0) && !this.closed) conn.next();
  }

  check() {}

  close() {
    this.closed = true;
    const calls = [...this.calls.values()];
    this.calls.clear();
    this.queue = [];
    if (this.conn !== null && this.conn.socket !== null) this.conn.drop();
    for (const call of calls) call.end(CANCELED, 'grpc: the client connection is closing');
  }
}

function dialError(err, channel) {
  const name = err ? socketErrorName(err) : 'EOF';
  const addr = `${channel.host}:${channel.port}`;
  if (name === 'ECONNREFUSED') return `connection error: desc = "transport: error while dialing: dial tcp ${addr}: connect: connection refused"`;
  if (name === 'CERT_ERROR') return `connection error: desc = "transport: authentication handshake failed: tls: failed to verify certificate: ${err && err.message ? err.message.replace(/^certificate error: /, '') : 'x509'}"`;
  return `connection error: desc = "transport: error while dialing: dial tcp ${addr}: ${name}"`;
}

/**
 * One call (unary or a stream) on a channel: what it sends, and what it receives as it comes —
 * `onMessage(bytes)` for each message, `onEnd(code, message, headers, trailers)` once.
 * Headers and trailers are the metadata grpc-go gives (its reserved fields left out). `debug`:
 * --http-debug's hooks (k6/grpc-debug.js), or null.
 */
export class Call {
  constructor({ path, headers, message, maxReceive, onMessage, onEnd, debug = null }) {
    this.debug = debug;
    this.path = path;
    this.headers = headers; // [[name, value]] for HPACK
    this.message = message; // framed, or null for a stream
    this.out = { chunks: [], at: 0, ended: false, sent: false };
    this.maxReceive = maxReceive || MAX_RECEIVE;
    this.onMessage = onMessage;
    this.onEnd = onEnd;
    this.index = -1;
    this.channel = null;
    this.shape = null;
    this.cancelled = null;
    this.httpStatus = 0;
    this.contentType = '';
    this.metaHeaders = {};
    this.trailers = {};
    this.grpcMessage = '';
    this.pending = null; // bytes of a message not yet whole
    this.error = null; // a receive error ends the call (its code and message)
    this.done = false;
  }

  onHeaders(list, endStream, length) {
    const md = {};
    const trailers = this.httpStatus !== 0 || endStream;
    for (const [name, value] of list) {
      if (name === ':status') {
        this.httpStatus = Number(value);
        continue;
      }
      if (name === 'content-type') this.contentType = value;
      if (name === 'grpc-message') this.grpcMessage = decodeGrpcMessage(value);
      if (name[0] === ':' || RESERVED.has(name)) continue;
      (md[name] || (md[name] = [])).push(name.endsWith('-bin') ? binary(value) : value);
    }
    if (trailers) this.trailers = md;
    else this.metaHeaders = md;
    if (this.debug !== null) this.debug[trailers ? 'inTrailer' : 'inHeader'](md, length);
  }

  data(buf, from, to) {
    if (this.error !== null) return;
    // A copy: the chunk is the adapter's (and a node Buffer's slice() would be a view).
    let bytes = Uint8Array.prototype.slice.call(buf, from, to);
    if (this.pending !== null) {
      const all = new Uint8Array(this.pending.length + bytes.length);
      all.set(this.pending);
      all.set(bytes, this.pending.length);
      bytes = all;
      this.pending = null;
    }
    let at = 0;
    while (bytes.length - at >= 5) {
      const n = ((bytes[at + 1] << 24) >>> 0) + (bytes[at + 2] << 16) + (bytes[at + 3] << 8) + bytes[at + 4];
      if (bytes[at] !== 0) return this.fail(INTERNAL, 'grpc: compressed flag set with identity or empty encoding');
      if (n > this.maxReceive) return this.fail(RESOURCE_EXHAUSTED, `grpc: received message larger than max (${n} vs. ${this.maxReceive})`);
      if (bytes.length - at - 5 < n) break;
      if (this.debug !== null) this.debug.inPayload(bytes.subarray(at + 5, at + 5 + n));
      this.onMessage(bytes.subarray(at + 5, at + 5 + n));
      at += 5 + n;
    }
    if (at < bytes.length) this.pending = bytes.slice(at);
  }

  // A message the client cannot take: the call ends with that status, the stream cancelled
  // (once the driver is done with the frame that brought it).
  fail(code, message) {
    this.error = { code, message };
    queueMicrotask(() => this.channel.cancel(this, code, message));
  }

  finish(code) {
    if (this.error !== null) return this.end(this.error.code, this.error.message);
    if (this.httpStatus !== 200) {
      const known = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout' };
      return this.end(callCode(-1, this.httpStatus), `unexpected HTTP status code received from server: ${this.httpStatus} (${known[this.httpStatus] || ''})`);
    }
    if (!/^application\/grpc/.test(this.contentType)) return this.end(UNKNOWN, `transport: received unexpected content-type "${this.contentType}"`);
    if (this.pending !== null) return this.end(INTERNAL, 'server closed the stream without sending trailers');
    this.end(code, code === 0 ? '' : this.grpcMessage);
  }

  failed(reason) {
    if (this.error !== null) return this.end(this.error.code, this.error.message);
    if (reason.startsWith('RST_STREAM ')) {
      const name = reason.slice(11);
      return this.end(RESET_CODES[name] ?? INTERNAL, `stream terminated by RST_STREAM with error code: ${name}`);
    }
    if (reason === 'closed before response') return this.end(UNAVAILABLE, 'error reading from server: EOF');
    if (reason === 'GOAWAY') return this.end(UNAVAILABLE, 'the connection is draining');
    if (reason === 'ECONNRESET') return this.end(UNAVAILABLE, 'error reading from server: read: connection reset by peer');
    if (reason === 'ECONNREFUSED' || reason === 'CERT_ERROR') return this.end(UNAVAILABLE, dialError({ code: reason }, this.channel));
    this.end(reason.startsWith('http2 protocol error') ? INTERNAL : UNAVAILABLE, reason);
  }

  end(code, message) {
    if (this.done) return;
    this.done = true;
    this.onEnd(code, message, this.metaHeaders, this.trailers);
  }
}

// grpc-go keeps these out of the metadata it gives (isReservedHeader), content-type aside.
const RESERVED = new Set(['user-agent', 'grpc-message-type', 'grpc-encoding', 'grpc-message', 'grpc-status', 'grpc-timeout', 'te']);

// A -bin value is base64 on the wire (unpadded or padded), the bytes as a Go string to the script.
function binary(value) {
  try {
    return decoder.decode(Uint8Array.from(atob(value.replace(/=+$/, '').padEnd(Math.ceil(value.length / 4) * 4, '=')), (c) => c.charCodeAt(0)));
  } catch {
    return value;
  }
}

// grpc-message is percent-encoded (PROTOCOL-HTTP2.md).
function decodeGrpcMessage(value) {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
