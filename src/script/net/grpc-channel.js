// A grpc.Client's connection (k6/net/grpc): the run-side of our HTTP/2 driver for one target,
// as client-h2.js is for a VU's https origin, in the driver's live mode (src/http2/live.js): a
// call's header blocks and DATA reach its Call as they come, and a stream's messages go out as
// the script writes them. Calls share the one connection as streams, as grpc-go's channel
// shares its transport; after the connection is lost, the next call opens another.

import { LiveHttp2Connection } from '../../http2/live.js';
import { encodeRequestHeaders } from '../../http2/hpack-encode.js';
import { requestFrames, concat, DEFAULT_MAX_FRAME, END_STREAM } from '../../http2/frames.js';
import { callCode } from '../../grpc/status.js';
import { DriverSide } from './driver-side.js';
import { dialError } from './grpc-call.js';
import { Slots } from './slots.js';

// Streams out at once on the connection (never more than the server's
// SETTINGS_MAX_CONCURRENT_STREAMS); more wait their turn.
const STREAMS = 100;
// A unary call's message goes with its HEADERS when it fits the first windows (RFC 9113 6.9.2).
const INLINE = 65535;
const CANCELED = 1;
const EMPTY = new Uint8Array(0);

export class GrpcChannel extends DriverSide {
  /** `target`: { address, port, authority, tls }; `adapter`: the socket adapter (TLS with ALPN h2). */
  constructor(network, target, adapter) {
    super();
    this.network = network;
    // Its own counters: the bytes it read (stats.bytes, the driver's) and wrote, for k6's
    // data_received and data_sent (countBytes() in k6/grpc/grpc.js reads and zeroes them).
    this.stats = { bytes: 0, unexpectedData: 0, retries: 0, connections: 0 };
    this.sent = 0;
    this.adapter = adapter;
    this.host = target.address;
    this.port = target.port;
    this.authority = target.authority;
    this.scheme = target.tls ? 'https' : 'http';
    this.streams = STREAMS;
    this.config = { maxBodySize: 0, grpc: { codeOf: callCode } };
    this.live = true;
    this.timeout = Infinity; // each call's deadline is its own timer
    this.queue = []; // calls not yet claimed by the connection
    this.calls = new Slots(); // index → Call, from its start to its end
    this.conn = null;
    this.waiter = null; // connect()'s
    this.closed = false;
    this.blocks = new Map(); // a call's header fields → their HPACK block
    this.deadlines = 0; // calls out with a deadline, checked by the VUs' one sweep (Network.watch)
    this.wire = null; // the connection's socket as the driver writes to it (connect())
    // The last header list, its path and block (headerBlock()); the last unary call's block,
    // message and shape (start()).
    this.blockHeaders = null;
    this.blockPath = '';
    this.lastHeaderBlock = null;
    this.lastBlock = null;
    this.lastBody = null;
    this.lastShape = null;
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
    const block = this.headerBlock(call.path, call.headers);
    if (call.message !== null) {
      // The same block and message as the last unary call (the same bytes: k6/grpc/grpc.js keeps
      // them), the same frames: the driver copies them and writes its stream id in the copy.
      const body = call.message;
      if (block !== this.lastBlock || body !== this.lastBody) {
        const bytes = { head: requestFrames(block, body, DEFAULT_MAX_FRAME, 0), full: body.length <= INLINE ? requestFrames(block, body, DEFAULT_MAX_FRAME, INLINE) : null, body };
        this.lastShape = { bytes, method: 'POST', path: call.path, out: undefined };
        this.lastBlock = block;
        this.lastBody = body;
      }
      call.shape = this.lastShape;
    } else {
      const head = requestFrames(block, null, DEFAULT_MAX_FRAME, 0);
      head.bytes[4] &= ~END_STREAM; // the stream's body follows
      call.shape = { bytes: { head, full: head, body: null }, method: 'POST', path: call.path, out: call.out };
    }
    call.channel = this;
    call.index = this.calls.add(call);
    this.queue.push(call.index);
    if (call.debug !== null) {
      call.debug.outHeader();
      if (call.message !== null) call.debug.outPayload(call.message);
    }
    if (this.conn === null) this.conn = new LiveHttp2Connection(this, 0);
    this.conn.next();
  }

  // The HPACK block of a call's HEADERS: the same for every call of a method with the same
  // metadata and timeout, so encoded once (our encoder uses no dynamic table: the bytes are
  // right on any connection).
  headerBlock(path, headers) {
    // k6/grpc/grpc.js gives the same list again for calls without metadata.
    if (headers === this.blockHeaders && path === this.blockPath) return this.lastHeaderBlock;
    let key = path;
    for (const [k, v] of headers) key += `\n${k}\n${v}`;
    let block = this.blocks.get(key);
    if (block === undefined) {
      block = encodeRequestHeaders({ method: 'POST', scheme: this.scheme, authority: this.authority, path, headers, sizeUpdate: true });
      if (this.blocks.size >= 256) this.blocks.clear();
      this.blocks.set(key, block);
    }
    this.blockHeaders = headers;
    this.blockPath = path;
    this.lastHeaderBlock = block;
    return block;
  }

  /** A stream's message (framed), or its end (null). */
  write(call, framed) {
    if (framed === null) call.out.ended = true;
    else {
      call.out.chunks.push(framed);
      if (call.debug !== null) call.debug.outPayload(framed);
    }
    if (this.conn !== null && this.calls.holds(call, call.index)) this.conn.writeOut(call.index);
  }

  /**
   * `call` (started) ends with DEADLINE_EXCEEDED `ms` from now, if it has not ended by then: as
   * for HTTP requests, the sweep every VU shares finds it (within its 50 ms), not a timer a call
   * (on Deno each timer is an op: a timer a call cost a third of the calls a second).
   * `from`: when the call started (performance.now()), if the caller has read the clock.
   */
  expire(call, ms, from = performance.now()) {
    if (call.done || call.deadline > 0) return;
    call.deadline = from + ms;
    this.deadlines++;
    this.network.watch(this);
  }

  // The sweep's question (src/script/net/client.js Network). The calls out are few (a VU's): the
  // sweep looks at each, rather than each call going in and out of a set of its own.
  timedOut(now) {
    if (this.wire !== null) this.wire.flush();
    if (this.deadlines > 0) {
      for (const call of this.calls.values()) {
        if (call.deadline > 0 && now >= call.deadline) this.cancel(call, 4, 'context deadline exceeded');
      }
    }
    if (this.deadlines === 0) this.network.unwatch(this);
  }

  /** Ends `call` now with `code` and `message` (its deadline, the script's cancel). */
  cancel(call, code, message) {
    call.cancelled = { code, message };
    if (!this.calls.holds(call, call.index)) return; // ended already: its index may be another's now
    const queued = this.queue.indexOf(call.index);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.calls.delete(call.index);
      if (call.deadline > 0) this.deadlines--;
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
    // Frames held for the next write (a PING's ACK: src/http2/live.js).
    let held = null;
    const wire = {
      write: (bytes) => {
        if (held !== null) {
          bytes = concat([held, bytes]);
          held = null;
        }
        this.sent += bytes.length;
        socket.write(bytes);
      },
      hold: (bytes) => {
        held = held === null ? bytes : concat([held, bytes]);
        this.network.watch(this);
      },
      take: () => {
        const bytes = held === null ? EMPTY : held;
        held = null;
        return bytes;
      },
      flush: () => {
        if (held !== null) wire.write(EMPTY);
      },
      end: () => {
        wire.flush();
        socket.end();
      },
      destroy: () => {
        held = null;
        socket.destroy();
      },
    };
    this.wire = wire;
    return wire;
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
    // Nothing keeps an ended call for the sweep: one kept there for up to 50 ms (its reply,
    // its closures) outlived the young generation (node: 99% of what a scavenge kept was
    // promoted, when the calls with a deadline were a set the sweep emptied).
    if (call.deadline > 0) this.deadlines--;
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
    const calls = this.calls.values();
    this.calls.clear();
    this.deadlines = 0;
    this.queue = [];
    if (this.conn !== null && this.conn.socket !== null) this.conn.drop();
    for (const call of calls) call.end(CANCELED, 'grpc: the client connection is closing');
  }
}
