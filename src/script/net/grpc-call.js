// One gRPC call of k6/net/grpc (unary or a stream) on a GrpcChannel (grpc-channel.js): what it
// sends, and what it receives as it comes — its messages unframed as they arrive, its metadata
// as grpc-go gives it, and the status it ends with, in grpc-go's codes and words for what the
// HTTP/2 driver reports (a reset stream, a lost connection, an HTTP status that is not 200).

import { errorName as socketErrorName } from '../../socket.js';
import { callCode, UNKNOWN, INTERNAL, UNAVAILABLE } from '../../grpc/status.js';

// grpc-go's default limit of a received message (grpc.MaxCallRecvMsgSize).
export const MAX_RECEIVE = 4 * 1024 * 1024;

const CANCELED = 1;
const RESOURCE_EXHAUSTED = 8;
const decoder = new TextDecoder();

// A plain Uint8Array over `length` bytes of `b` from `at`: a node Buffer's subarray() and slice()
// make Buffers by their species, at several times the cost.
const view = (b, at, length) => new Uint8Array(b.buffer, b.byteOffset + at, length);

// What grpc-go makes of a stream reset by the server (its http2ErrConvTab).
const RESET_CODES = { CANCEL: CANCELED, REFUSED_STREAM: UNAVAILABLE, FLOW_CONTROL_ERROR: RESOURCE_EXHAUSTED, ENHANCE_YOUR_CALM: RESOURCE_EXHAUSTED, INADEQUATE_SECURITY: 7 };

/** A connection that could not be made, as grpc-go says it (`err`: the socket's error). */
export function dialError(err, { host, port }) {
  const name = err ? socketErrorName(err) : 'EOF';
  const addr = `${host}:${port}`;
  if (name === 'ECONNREFUSED') return `connection error: desc = "transport: error while dialing: dial tcp ${addr}: connect: connection refused"`;
  if (name === 'CERT_ERROR') return `connection error: desc = "transport: authentication handshake failed: tls: failed to verify certificate: ${err && err.message ? err.message.replace(/^certificate error: /, '') : 'x509'}"`;
  return `connection error: desc = "transport: error while dialing: dial tcp ${addr}: ${name}"`;
}

/**
 * One call (unary or a stream) on a channel: what it sends, and what it receives as it comes —
 * `onMessage(bytes)` for each message (a view of what the connection read, for that callback
 * only: copy what is kept), `onEnd(code, message, headers, trailers)` once.
 * Headers and trailers are the metadata grpc-go gives (its reserved fields left out). `debug`:
 * --http-debug's hooks (k6/grpc/grpc-debug.js), or null.
 */
export class Call {
  constructor({ path, headers, message, maxReceive, onMessage, onEnd, debug = null }) {
    this.debug = debug;
    this.path = path;
    this.headers = headers; // [[name, value]] for HPACK
    this.message = message; // framed, or null for a stream
    this.out = message === null ? { chunks: [], at: 0, ended: false, sent: false } : null; // a stream's messages to send
    this.maxReceive = maxReceive || MAX_RECEIVE;
    this.onMessage = onMessage;
    this.onEnd = onEnd;
    this.index = -1;
    this.channel = null;
    this.shape = null;
    this.cancelled = null;
    this.deadline = 0; // when it ends with DEADLINE_EXCEEDED (performance.now()), 0: none
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
    // Index loops, not for-of with [name, value]: each was an iterator's results to collect.
    for (let i = 0; i < list.length; i++) {
      const pair = list[i];
      const name = pair[0];
      const value = pair[1];
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
    // The messages whole in this chunk go out as views of it, not copied: only a message's
    // part that waits for the next chunk is (the chunk is the adapter's, its bytes its own
    // once this returns).
    let bytes = buf;
    let at = from;
    let end = to;
    if (this.pending !== null) {
      bytes = new Uint8Array(this.pending.length + to - from);
      bytes.set(this.pending);
      bytes.set(view(buf, from, to - from), this.pending.length);
      at = 0;
      end = bytes.length;
      this.pending = null;
    }
    while (end - at >= 5) {
      const n = ((bytes[at + 1] << 24) >>> 0) + (bytes[at + 2] << 16) + (bytes[at + 3] << 8) + bytes[at + 4];
      if (bytes[at] !== 0) return this.fail(INTERNAL, 'grpc: compressed flag set with identity or empty encoding');
      if (n > this.maxReceive) return this.fail(RESOURCE_EXHAUSTED, `grpc: received message larger than max (${n} vs. ${this.maxReceive})`);
      if (end - at - 5 < n) break;
      const message = view(bytes, at + 5, n);
      if (this.debug !== null) this.debug.inPayload(message);
      this.onMessage(message);
      at += 5 + n;
    }
    if (at < end) this.pending = view(bytes, at, end - at).slice();
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
