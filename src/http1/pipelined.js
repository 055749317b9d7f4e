// One connection of a run with up to `pipelining` HTTP/1.1 requests in flight (--pipeline N): a
// connection driver (src/driver.js) whose inFlight is a count. Runs with one request per
// connection keep src/http1/connection.js and its fast path.
//
// Responses come back in the order the requests went out (RFC 9112 9.3.2), so the requests in
// flight are a FIFO ring of plain arrays: index, bytes (to send again), HEAD or not (the parser
// must know there is no body), idempotent, retried, latency start and send time. Latency and the
// timeout count per request from its own send (or its time in the open model's schedule).
//
// When the connection ends under a pipeline (the server closes, a response says
// `Connection: close`, a malformed response, a timeout) the response being read follows the
// rules for one request; each request behind it got no byte of an answer and is sent once more
// on a new connection if its method is idempotent (RFC 9112 9.3.1, as for one request), else it
// fails with the reason the connection ended. Every request thus ends once: completed, failed,
// or in flight at the stop.

import { ResponseParser } from './parser.js';
import { errorName } from '../socket.js';
import { Driver, isIdempotent, isConnectFailure } from '../driver.js';

// The run's request (when every request is the same) written `depth` times over, by request.
const copies = new WeakMap();
function repeated(bytes, depth) {
  let all = copies.get(bytes);
  if (all === undefined || all.length < bytes.length * depth) {
    all = new Uint8Array(bytes.length * depth);
    for (let k = 0; k < depth; k++) all.set(bytes, k * bytes.length);
    copies.set(bytes, all);
  }
  return all;
}

export class PipelinedConnection extends Driver {
  constructor(run, id) {
    super(run, id);
    const depth = run.pipelining;
    this.depth = depth;
    this.parser = ResponseParser.of(this, run.capture);
    // The ring of requests in flight: `count` of them from slot `head`.
    this.head = 0;
    this.count = 0;
    this.indexes = new Float64Array(depth);
    this.requestBytes = new Array(depth).fill(null);
    this.heads = new Uint8Array(depth); // 1: a HEAD request, whose response has no body
    this.idempotents = new Uint8Array(depth);
    this.retrieds = new Uint8Array(depth);
    this.starts = new Float64Array(depth); // latency counts from here
    this.sents = new Float64Array(depth); // the timeout counts from here
    this.methods = new Array(depth).fill('');
    this.paths = new Array(depth).fill('');
    this.entries = new Int32Array(depth); // in a request sequence: each request's entry
    this.inFlight = 0; // == count, but Run.stop() zeroes it when it counts them in flight at stop
    // The request being reported (src/run/callbacks.js and Run.buildFailed read these).
    this.index = -1;
    this.method = '';
    this.path = '';
    this.startTime = 0;
    this.responsesOnSocket = 0;
    this.parseError = null;
    this.answered = false; // a response completed during this data()
    this.closing = false; // a response said Connection: close: nothing more will come
    // What a read lets go is one write already (next() fills the pipeline): src/socket.js.
    this.batchesWrites = true;
  }

  open(now) {
    const run = this.run;
    this.responsesOnSocket = 0;
    this.socketError = null;
    this.closing = false;
    this.firstByteAt = 0;
    this.parser.restart();
    this.socket = run.connect(this, now);
  }

  // Fills the pipeline: claims requests and sends them until N are in flight or none is due.
  next() {
    const run = this.run;
    const fixed = run.fixed;
    let batch = 0; // requests of the run's one shape claimed here, written at the end in one go
    while (this.count < this.depth) {
      const index = run.claim(this);
      if (index < 0) {
        if (index === -1 && this.count === 0) this.drop(); // no more work for this connection
        break;
      }
      let slot = this.head + this.count;
      if (slot >= this.depth) slot -= this.depth;
      let bytes = fixed;
      if (fixed !== null) {
        this.heads[slot] = run.fixedIsHead ? 1 : 0;
        this.idempotents[slot] = run.fixedIdempotent ? 1 : 0;
      } else {
        const shape = run.shapeOf(index, this);
        if (shape === null) return;
        bytes = shape.bytes;
        this.heads[slot] = shape.isHead ? 1 : 0;
        this.idempotents[slot] = isIdempotent(shape.method) ? 1 : 0;
        this.methods[slot] = shape.method;
        this.paths[slot] = shape.path;
        if (shape.entry !== undefined) this.entries[slot] = shape.entry;
      }
      this.indexes[slot] = index;
      this.requestBytes[slot] = bytes;
      this.retrieds[slot] = 0;
      const now = performance.now(); // one clock read for both moments (see connection.js next())
      this.starts[slot] = run.open ? run.intendedTime : now;
      if (this.socket === null) this.open(now);
      // The parser reads the oldest request's response; it is told about a request only when
      // that one becomes the oldest (here, or in onResponse).
      if (this.count === 0) this.parser.expect(this.heads[slot] === 1);
      this.count++;
      this.inFlight++;
      run.inFlight++;
      this.sents[slot] = now;
      if (fixed !== null) batch++;
      else this.socket.write(bytes);
    }
    // One write (one system call) for the requests that refill the pipeline rather than one
    // each: a view of N copies of the request made once per run.
    if (batch === 1) this.socket.write(fixed);
    else if (batch > 1) this.socket.write(repeated(fixed, this.depth).subarray(0, batch * fixed.length));
  }

  // handlers for the socket
  data(chunk) {
    const run = this.run;
    run.stats.bytes += chunk.length;
    // The oldest response's first byte: in the chunk that ended the response before it, if its
    // bytes began there (onResponse read that chunk's time), else in this one.
    if (this.firstByteAt === 0 && this.count > 0 && this.parser.bytesSeen > 0 && this.timed) this.firstByteAt = this.chunkAt;
    this.timed = false;
    if (this.firstByteAt === 0 && this.count > 0) this.firstByteAt = this.clock();
    // One chunk may end one response and hold the next ones: onResponse points the parser at
    // the next request in flight, so that execute() reads on through them.
    const used = this.parser.execute(chunk, 0, chunk.length);
    if (run.stopping) {
      // Stopped from a callback while this chunk was read: the rest was counted at the stop.
      this.proceed();
      return;
    }
    if (this.parseError !== null) {
      const reason = this.parseError;
      this.parseError = null;
      this.drop();
      this.settle(reason, reason, null);
      this.proceed();
    } else if (this.closing) {
      // Bytes after a response that closes the connection are not an answer to anything.
      if (used < chunk.length) run.stats.unexpectedData++;
      this.drop();
      this.settle(undefined, 'closed before response', null);
      this.proceed();
    } else if (used < chunk.length) {
      // Data with nothing in flight: the framing of this connection cannot be trusted any more.
      run.stats.unexpectedData++;
      this.drop();
      this.proceed();
    } else if (this.answered) {
      this.answered = false;
      this.proceed();
    }
  }

  close() {
    const run = this.run;
    run.socketClosed(this);
    if (this.count === 0) {
      // An idle kept-alive connection closed by the server: open a new one when needed.
      this.proceed();
      return;
    }
    const err = this.socketError;
    const benign = err === null || err.code === 'ECONNRESET' || err.code === 'EPIPE';
    const rest = err === null ? 'closed before response' : errorName(err);
    // A body delimited by the close is complete only when the close is clean (RFC 9112 8).
    if (err === null && this.parser.finish() && this.count === 0) {
      this.proceed();
      return;
    }
    if (this.closing) {
      // The close ended a close-delimited body (onResponse ran); the rest were never answered.
      this.settle(undefined, rest, null);
      this.proceed();
      return;
    }
    const h = this.head;
    const nothing = this.parser.bytesSeen === 0;
    let first;
    if (nothing && this.responsesOnSocket > 0 && this.retrieds[h] === 0 && benign && this.idempotents[h] === 1) {
      // The server closed a kept-alive connection as the request went out: it most likely never
      // saw it (the rule for one request, in connection.js).
      first = null;
    } else {
      first = err !== null ? rest : nothing ? 'closed before response' : 'incomplete response';
    }
    const connectFailure = isConnectFailure(err, rest, this.responsesOnSocket);
    // A target that cannot be reached is not tried again for the requests behind.
    this.settle(first, rest, benign && !connectFailure ? null : rest);
    if (connectFailure) run.connectFailed(rest);
    this.proceed();
  }

  // parser callbacks
  onResponse() {
    const run = this.run;
    if (run.stopping) return; // counted in flight at the stop
    const h = this.head;
    const end = this.clock();
    // A response that began in this chunk after the one before ended has no first byte yet.
    const first = this.firstByteAt === 0 ? end : this.firstByteAt;
    this.firstByteAt = 0;
    this.responseBytes = this.parser.bytesSeen;
    const status = this.parser.statusCode;
    this.responsesOnSocket++;
    this.answered = true;
    this.index = this.indexes[h];
    if (run.fixed === null) {
      this.method = this.methods[h];
      this.path = this.paths[h];
      this.requestBytes[h] = null;
    }
    this.head = h + 1 === this.depth ? 0 : h + 1;
    this.count--;
    this.inFlight--;
    run.responded(this, status, this.starts[h], this.sents[h], first, end, this.entries[h]);
    if (this.parser.shouldClose) {
      // The server will not answer the requests after this one on this connection.
      this.closing = true;
    } else if (this.count > 0) {
      this.parser.expect(this.heads[this.head] === 1);
    }
  }

  onParseError(reason) {
    this.parseError = 'malformed response: ' + reason;
  }

  /**
   * The socket is gone with `count` requests on it. The oldest one: `first` null sends it
   * again, a string fails it with that reason, undefined treats it as the others. The others
   * got no byte of an answer: each is sent again once if idempotent (unless `noRetry` gives the
   * reason they all fail with), else it fails with `reason`, or 'timeout' if its own time ran out.
   */
  settle(first, reason, noRetry) {
    const run = this.run;
    const depth = this.depth;
    const timeout = run.timeout;
    const now = performance.now();
    const n = this.count;
    let r = this.head;
    let w = this.head;
    let kept = 0;
    for (let k = 0; k < n; k++) {
      let failure;
      if (k === 0 && first !== undefined) failure = first;
      else if (timeout && now - this.sents[r] >= timeout) failure = 'timeout';
      else if (noRetry !== null) failure = noRetry;
      else failure = this.idempotents[r] === 1 && this.retrieds[r] === 0 ? null : reason;
      if (failure === null) {
        if (w !== r) this.move(r, w);
        this.retrieds[w] = 1;
        kept++;
        w = w + 1 === depth ? 0 : w + 1;
      } else {
        this.fail(r, failure);
      }
      r = r + 1 === depth ? 0 : r + 1;
    }
    this.count = kept;
    if (kept === 0 || run.stopping) return;
    // Sent again in their order, on a new connection; latency still counts from the first send.
    run.stats.retries += kept;
    this.open(now);
    this.parser.expect(this.heads[this.head] === 1);
    for (let k = 0, s = this.head; k < kept; k++, s = s + 1 === depth ? 0 : s + 1) {
      this.sents[s] = now;
      this.socket.write(this.requestBytes[s]);
    }
  }

  move(from, to) {
    this.indexes[to] = this.indexes[from];
    this.requestBytes[to] = this.requestBytes[from];
    this.heads[to] = this.heads[from];
    this.idempotents[to] = this.idempotents[from];
    this.starts[to] = this.starts[from];
    this.sents[to] = this.sents[from];
    this.methods[to] = this.methods[from];
    this.paths[to] = this.paths[from];
    this.entries[to] = this.entries[from];
  }

  fail(slot, reason) {
    const run = this.run;
    this.responseBytes = slot === this.head ? this.parser.bytesSeen : 0;
    this.index = this.indexes[slot];
    this.method = this.methods[slot];
    this.path = this.paths[slot];
    this.startTime = this.starts[slot];
    this.requestBytes[slot] = null;
    this.inFlight--;
    run.failed(this, reason, this.entries[slot]);
  }

  // After requests end: fill the pipeline again, or end the run.

  timedOut(now) {
    // The oldest request was sent first: when it has time left, so have the others.
    if (this.count > 0 && now - this.sents[this.head] >= this.run.timeout) {
      this.drop();
      this.settle('timeout', 'timeout', null);
      this.proceed();
    }
  }

  get headChunks() {
    return this.parser.headChunks;
  }

  get bodyChunks() {
    return this.parser.bodyChunks;
  }
}

