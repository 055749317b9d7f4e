// The client loop: `concurrency` connections that each send a request, wait for its response,
// and send the next, until maxRequests or maxSeconds. Every request sent ends in exactly one of:
// completed (a status code), failed (a reason), or in flight at the stop.
//
// One Connection object per slot lives for the whole run and is the handlers object of its
// current socket, so a request costs no closures or objects of its own.

import { ResponseParser, decodeChunks, parseHeaders } from './parser.js';
import { Stats } from './stats.js';

// Failures that mean the target cannot be reached at all (no connection was ever made).
const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN', 'CERT_ERROR']);

class Connection {
  constructor(run, id) {
    this.run = run;
    this.id = id;
    this.socket = null;
    this.parser = new ResponseParser(
      () => this.onResponse(),
      (reason) => this.onParseError(reason),
      run.capture,
    );
    this.inFlight = false;
    this.index = -1; // request index in flight
    this.bytes = null; // its bytes (for a retry)
    this.isHead = false;
    this.method = '';
    this.path = '';
    this.startTime = 0;
    this.responsesOnSocket = 0;
    this.retried = false;
    this.socketError = null; // reported at close
    this.responseDone = false;
    this.parseError = null;
    this.waiting = false; // waiting for the rate limiter
  }

  open() {
    const run = this.run;
    this.responsesOnSocket = 0;
    this.socketError = null;
    this.parser.restart();
    run.stats.connections++;
    this.socket = run.adapter.connect(run.host, run.port, this);
  }

  drop() {
    const socket = this.socket;
    this.socket = null;
    if (socket) socket.destroy();
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
    } else {
      const shape = run.build(index);
      bytes = shape.bytes;
      this.isHead = shape.isHead;
      this.method = shape.method;
      this.path = shape.path;
    }
    this.index = index;
    this.bytes = bytes;
    this.retried = false;
    this.send();
  }

  send() {
    if (this.socket === null) this.open();
    this.inFlight = true;
    this.run.inFlight++;
    this.responseDone = false;
    this.parseError = null;
    this.parser.expect(this.isHead);
    this.startTime = performance.now();
    this.socket.write(this.bytes);
  }

  // handlers for the socket
  data(chunk) {
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
  }

  error(err) {
    this.socketError = err;
  }

  close() {
    this.socket = null;
    const run = this.run;
    if (!this.inFlight) {
      // An idle kept-alive connection closed by the server: open a new one when needed.
      this.proceed();
      return;
    }
    if (this.parser.finish()) {
      // A body delimited by the close: onResponse has run.
      this.responseDone = false;
      this.proceed();
      return;
    }
    const nothing = this.parser.bytesSeen === 0;
    const err = this.socketError;
    const benign = err === null || err.code === 'ECONNRESET' || err.code === 'EPIPE';
    if (nothing && this.responsesOnSocket > 0 && !this.retried && benign) {
      // The server closed a kept-alive connection as the request went out (RFC 9112 9.3.1
      // allows the retry): it never saw the request, so send it again on a new connection.
      this.retried = true;
      run.stats.retries++;
      this.inFlight = false;
      run.inFlight--;
      if (run.stopping) {
        run.stats.inFlightAtStop++;
        run.check();
        return;
      }
      this.send();
      return;
    }
    let reason;
    if (err !== null) reason = errorName(err);
    else reason = nothing ? 'closed before response' : 'incomplete response';
    const connectFailure = err !== null && this.responsesOnSocket === 0 && CONNECT_ERRORS.has(reason);
    this.finishFailed(reason);
    if (connectFailure) run.connectFailed(reason);
    this.proceed();
  }

  // parser callbacks
  onResponse() {
    const run = this.run;
    const elapsed = performance.now() - this.startTime;
    const status = this.parser.statusCode;
    this.responseDone = true;
    this.responsesOnSocket++;
    this.inFlight = false;
    run.inFlight--;
    const stats = run.stats;
    stats.completed++;
    stats.histogram.record(elapsed * 1000);
    if (run.statusCallback === null && run.contentInspector === null) {
      stats.statusCounts[status]++;
      if (status >= 400) stats.httpErrors++;
      return;
    }
    run.report(this, status, elapsed);
  }

  onParseError(reason) {
    this.parseError = 'malformed response: ' + reason;
  }

  finishFailed(reason) {
    const run = this.run;
    this.inFlight = false;
    run.inFlight--;
    run.stats.fail(reason);
    if (run.statusCallback !== null) run.reportFailure(this, reason);
  }

  // After a request ends: the next one, or the end of the run.
  proceed() {
    const run = this.run;
    if (run.stopping) {
      this.drop();
      run.check();
      return;
    }
    this.next();
    run.check();
  }

  timedOut(now) {
    if (this.inFlight && now - this.startTime >= this.run.timeout) {
      this.drop();
      this.finishFailed('timeout');
      this.proceed();
    }
  }
}

function errorName(err) {
  return (err && (err.code || err.name)) || 'socket error';
}

/**
 * One load test. `config` is what options.js produces; `adapter` implements src/socket.js.
 * start() resolves to the Stats when the run is over; stop() ends it early.
 */
export class Run {
  constructor(config, adapter) {
    this.config = config;
    this.adapter = adapter;
    this.resolve = null;
    this.host = config.host;
    this.port = config.port;
    this.keepAlive = config.keepAlive;
    this.maxRequests = config.maxRequests || Infinity;
    this.timeout = config.timeout || 0;
    this.rate = config.requestsPerSecond || 0;
    this.indexStride = config.indexStride || 1;
    this.indexOffset = config.indexOffset || 0;
    this.fixed = config.requests.fixed;
    this.fixedIsHead = config.requests.isHead;
    this.build = config.requests.build;
    this.statusCallback = config.statusCallback || null;
    this.contentInspector = config.contentInspector || null;
    this.capture = this.statusCallback !== null || this.contentInspector !== null;
    this.stats = new Stats();
    this.connections = [];
    this.inFlight = 0;
    this.stopping = false;
    this.done = false;
    this.timers = [];
    this.waiting = [];
    this.startTime = 0;
    this.connectFailures = 0;
    this.abortReason = null;
  }

  start() {
    return new Promise((resolve) => {
      this.resolve = resolve;
      this.begin();
    });
  }

  begin() {
    this.startTime = performance.now();
    const c = this.config;
    // stopAt (a wall-clock time) lets the children of a multi-core run stop together.
    if (c.stopAt) this.timers.push(setTimeout(() => this.stop(), Math.max(0, c.stopAt - Date.now())));
    else if (c.maxSeconds) this.timers.push(setTimeout(() => this.stop(), c.maxSeconds * 1000));
    if (this.timeout) {
      // One sweep for all connections instead of a timer per request.
      const every = Math.max(5, Math.min(250, Math.floor(this.timeout / 10)));
      this.timers.push(setInterval(() => this.sweep(), every));
    }
    if (this.rate) {
      const every = Math.max(1, Math.min(20, Math.floor(1000 / this.rate)));
      this.timers.push(setInterval(() => this.tick(), every));
    }
    if (c.signal) {
      if (c.signal.aborted) return this.stop();
      c.signal.addEventListener('abort', () => this.stop(), { once: true });
    }
    const n = Math.min(c.concurrency, this.maxRequests);
    for (let i = 0; i < n; i++) this.connections.push(new Connection(this, i));
    for (const conn of this.connections) {
      if (this.stopping) break;
      conn.next();
    }
    this.check();
  }

  // Hands out the next request index: -1 no more, -2 wait for the rate limiter.
  claim(conn) {
    if (this.stopping || this.stats.sent >= this.maxRequests) return -1;
    if (this.rate && this.stats.sent >= this.allowed()) {
      if (!conn.waiting) {
        conn.waiting = true;
        this.waiting.push(conn);
      }
      return -2;
    }
    // Children of a multi-core run interleave their indexes so that they stay unique.
    return this.stats.sent++ * this.indexStride + this.indexOffset;
  }

  allowed() {
    return Math.floor(((performance.now() - this.startTime) * this.rate) / 1000) + 1;
  }

  tick() {
    const waiting = this.waiting;
    while (waiting.length > 0 && !this.stopping && this.stats.sent < this.allowed()) {
      const conn = waiting.shift();
      conn.waiting = false;
      conn.next();
    }
  }

  sweep() {
    const now = performance.now();
    for (const conn of this.connections) conn.timedOut(now);
  }

  connectFailed(reason) {
    this.connectFailures++;
    // Fail fast (the CLI asks for it): when the first connections all fail before any response,
    // the target is down and the rest of the run would only repeat the failure.
    if (this.config.failFast && this.stats.completed === 0 && this.connectFailures >= this.connections.length) {
      this.abortReason = reason;
      this.stop();
    }
  }

  /** Ends the run now: requests still out are reported as in flight. */
  stop() {
    if (this.stopping) return;
    this.stopping = true;
    for (const conn of this.connections) {
      if (conn.inFlight) {
        conn.inFlight = false;
        this.inFlight--;
        this.stats.inFlightAtStop++;
      }
      conn.drop();
    }
    this.check();
  }

  // Finishes once nothing is left to send or wait for.
  check() {
    if (this.done) return;
    if (this.inFlight > 0) return;
    if (!this.stopping && this.stats.sent < this.maxRequests) return;
    this.done = true;
    this.stopping = true;
    for (const t of this.timers) clearTimeout(t), clearInterval(t);
    for (const conn of this.connections) conn.drop();
    this.stats.elapsedMs = performance.now() - this.startTime;
    this.stats.abortReason = this.abortReason;
    this.resolve(this.stats);
  }

  // Slow path: a statusCallback or contentInspector wants each response.
  report(conn, status, elapsedMs) {
    const stats = this.stats;
    const result = this.resultFor(conn, elapsedMs);
    result.statusCode = status;
    // Strings only when read: the chunks stay with this result (the parser takes new arrays).
    const headChunks = conn.parser.headChunks;
    const bodyChunks = conn.parser.bodyChunks;
    let body = null;
    let headers = null;
    Object.defineProperty(result, 'body', {
      get: () => (body === null ? (body = decodeChunks(bodyChunks)) : body),
      set: (v) => (body = v),
      enumerable: true,
    });
    Object.defineProperty(result, 'headers', {
      get: () => (headers === null ? (headers = parseHeaders(decodeChunks(headChunks))) : headers),
      set: (v) => (headers = v),
      enumerable: true,
    });
    if (this.contentInspector !== null) this.contentInspector(result);
    let error = null;
    if (result.customError !== undefined && result.customError !== null && result.customError !== false) {
      const key = result.customErrorCode !== undefined ? `${status}:${result.customErrorCode}` : String(status);
      stats.customErrors[key] = (stats.customErrors[key] || 0) + 1;
      stats.httpErrors++;
      error = new Error(`Custom error: ${result.customError}`);
    } else {
      stats.statusCounts[status]++;
      if (status >= 400) {
        stats.httpErrors++;
        error = new Error(`Status code ${status}`);
      }
    }
    if (this.statusCallback !== null) this.callUser(error, result);
  }

  reportFailure(conn, reason) {
    const result = this.resultFor(conn, performance.now() - conn.startTime);
    result.statusCode = null;
    const error = new Error(`Request failed: ${reason}`);
    error.code = reason;
    this.callUser(error, result);
  }

  resultFor(conn, elapsedMs) {
    const fixed = this.fixed !== null;
    return {
      host: this.config.hostHeader,
      path: fixed ? this.config.path : conn.path,
      method: fixed ? this.config.method : conn.method,
      statusCode: 0,
      requestElapsed: elapsedMs,
      requestIndex: conn.index,
      instanceIndex: this.config.instanceIndex,
    };
  }

  callUser(error, result) {
    try {
      this.statusCallback(error, result);
    } catch (e) {
      // A throwing callback must not wreck the accounting of the run; report it once.
      if (!this.callbackFailed) {
        this.callbackFailed = true;
        console.error(`loadtest: statusCallback threw: ${e && e.message}`);
      }
    }
  }

  /** Counters for progress lines while the run goes on. */
  snapshot() {
    return { sent: this.stats.sent, completed: this.stats.completed, failed: this.stats.failed, elapsedMs: performance.now() - this.startTime };
  }
}
