// One HTTP/1.1 connection of a run with one request in flight at a time: the connection driver
// (src/driver.js) for http:// and https:// without --pipeline. One object per slot lives for the
// whole run and is the handlers object of its current socket, so a request costs no closures or
// objects of its own.

import { ResponseParser } from './parser.js';
import { errorName } from '../socket.js';
import { Driver, isIdempotent, isConnectFailure } from '../driver.js';

// Read once: on node 20 the global `performance` is an accessor, a getter's call at each read.
const { performance } = globalThis;

export class Connection extends Driver {
  constructor(run, id) {
    super(run, id);
    this.parser = ResponseParser.of(this, run.capture, run.config.maxBodySize || 0);
    this.parser.borrow = run.borrow === true;
    this.inFlight = false;
    this.index = -1; // request index in flight
    this.bytes = null; // its bytes (for a retry)
    this.isHead = false;
    this.idempotent = true; // may be sent again after a kept-alive connection closed under it
    this.method = '';
    this.path = '';
    this.startTime = 0; // latency counts from here
    this.sentAt = 0; // the timeout counts from here (later in the open model, after a wait)
    this.responsesOnSocket = 0;
    this.retried = false;
    this.responseDone = false;
    this.parseError = null;
    this.entry = -1;
  }

  open(now) {
    const run = this.run;
    this.responsesOnSocket = 0;
    this.socketError = null;
    this.parser.restart();
    this.socket = run.connect(this, now);
  }

  // Claims the next request and sends it, on this socket or a new one.
  next() {
    const run = this.run;
    const index = run.claim(this);
    if (index < 0) {
      if (index === -1) this.drop(); // no more work for this connection
      return;
    }
    let bytes = run.fixed;
    if (bytes !== null) {
      this.isHead = run.fixedIsHead;
      this.idempotent = run.fixedIdempotent;
    } else {
      const shape = run.shapeOf(index, this);
      if (shape === null) return;
      bytes = shape.bytes;
      this.isHead = shape.isHead;
      this.idempotent = isIdempotent(shape.method);
      this.method = shape.method;
      this.path = shape.path;
      this.entry = shape.entry; // in a sequence: which entry (else undefined)
      // An entry that checks or captures keeps its response's bytes; the others do not.
      if (shape.keep !== undefined) this.parser.capture = shape.keep || run.capture;
    }
    this.index = index;
    this.bytes = bytes;
    this.retried = false;
    // Closed model: latency from now. Open model: from the request's time in the schedule, so
    // that waiting for a free connection counts (no coordinated omission).
    // One clock read for both moments, taken together: on Deno performance.now() is an op,
    // and a third read per request was 1.3 % of its time at keep-alive. Sent from data() (the
    // previous response has just ended on this connection), the chunk's own read serves: the
    // same turn, with nothing between but our own work on that response, which the new
    // request's latency then includes (it is never shorter for it).
    const now = run.sendAt > 0 ? run.sendAt : this.timed ? this.chunkAt : performance.now();
    this.startTime = run.open ? run.intendedTime : now;
    this.send(now);
  }

  send(now = performance.now()) {
    if (this.socket === null) this.open(now);
    this.inFlight = true;
    this.firstByteAt = 0;
    this.run.inFlight++;
    this.responseDone = false;
    this.parseError = null;
    this.parser.expect(this.isHead);
    this.sentAt = now;
    this.socket.write(this.bytes);
  }

  // handlers for the socket
  data(chunk) {
    this.run.stats.bytes += chunk.length;
    this.timed = false;
    if (this.firstByteAt === 0) this.firstByteAt = this.clock();
    const used = this.parser.execute(chunk, 0, chunk.length);
    if (this.parseError !== null) {
      const reason = this.parseError;
      this.parseError = null;
      this.drop();
      if (this.inFlight) this.finishFailed(reason);
      this.proceed();
    } else if (this.responseDone) {
      this.responseDone = false;
      if (used < chunk.length) {
        // Bytes after the response nobody asked for: the framing of this connection cannot be
        // trusted any more.
        this.run.stats.unexpectedData++;
        this.drop();
      } else if (this.parser.shouldClose || !this.run.keepAlive) {
        this.drop();
      }
      this.proceed();
    } else if (used < chunk.length) {
      // Data on an idle connection.
      this.run.stats.unexpectedData++;
      this.drop();
      this.proceed();
    }
    // The chunk's time serves this turn only (next() above): a request sent from a later turn
    // (a timer, the open model's tick) reads the clock again.
    this.timed = false;
  }

  close() {
    const run = this.run;
    run.socketClosed(this);
    if (!this.inFlight) {
      // An idle kept-alive connection closed by the server: open a new one when needed.
      this.proceed();
      return;
    }
    // A body delimited by the close is complete only when the close is clean: one ended by an
    // error (a reset) may be cut short, and is incomplete (RFC 9112 section 8).
    this.timed = false;
    if (this.socketError === null && this.parser.finish()) {
      // A body delimited by the close: onResponse has run.
      this.responseDone = false;
      this.proceed();
      return;
    }
    const nothing = this.parser.bytesSeen === 0;
    const err = this.socketError;
    const benign = err === null || err.code === 'ECONNRESET' || err.code === 'EPIPE';
    if (nothing && this.responsesOnSocket > 0 && !this.retried && benign && this.idempotent) {
      // The server closed a kept-alive connection as the request went out: it most likely never
      // saw it, so send it once more on a new connection. RFC 9112 9.3.1 allows this for
      // idempotent methods only; a POST or PATCH fails instead.
      this.retried = true;
      run.stats.retries++;
      this.inFlight = false;
      run.inFlight--;
      this.send();
      return;
    }
    let reason;
    if (err !== null) reason = errorName(err);
    else reason = nothing ? 'closed before response' : 'incomplete response';
    const connectFailure = isConnectFailure(err, reason, this.responsesOnSocket);
    this.finishFailed(reason);
    if (connectFailure) {
      run.connectFailed(reason);
      // Closed model: a connection would retry at once, as fast as connects fail; it backs off.
      // The open model's schedule already bounds the attempts to its rate (and keeps it).
      if (!run.stopping && !run.open && !run.failsAtOnce) return this.waitAndProceed();
    }
    this.proceed();
  }

  // parser callbacks
  onResponse() {
    const run = this.run;
    const status = this.parser.statusCode;
    this.responseDone = true;
    this.responsesOnSocket++;
    this.backoff = 0;
    this.inFlight = false;
    this.responseBytes = this.parser.bytesSeen;
    run.responded(this, status, this.startTime, this.sentAt, this.firstByteAt, this.clock(), this.entry);
  }

  onParseError(reason) {
    this.parseError = this.parser.bodyTooLarge ? reason : 'malformed response: ' + reason;
  }

  finishFailed(reason) {
    this.inFlight = false;
    this.responseBytes = this.parser.bytesSeen;
    this.run.failed(this, reason, this.entry);
  }

  timedOut(now) {
    if (this.inFlight && now - this.sentAt >= this.run.timeout) {
      this.drop();
      this.finishFailed('timeout');
      this.proceed();
    }
  }

  // What a statusCallback's result decodes, when read.
  get headChunks() {
    return this.parser.headChunks;
  }

  get bodyChunks() {
    return this.parser.bodyChunks;
  }
}
