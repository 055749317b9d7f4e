// The connection-driver interface: what the run loop (src/run/run.js) asks of a connection of
// any protocol, as src/socket.js is what a connection asks of a runtime. One driver a protocol:
// src/http1/connection.js (one request at a time), src/http1/pipelined.js (--pipeline N),
// src/websocket/connection.js (a message and its reply); the run picks one for the whole run.
//
//   new Driver(run, id)  one object per connection slot for the whole run; it is the handlers
//                        object of its current socket (data, error, close: src/socket.js)
//   driver.next()        claim work with run.claim(driver) and send it, opening a socket with
//                        run.connect(driver) when it has none; a claim of -1 means no more
//                        work (drop the socket), -2 none due yet (open model: it waits in
//                        run.idle until run.tick() calls next() again)
//   driver.drop()        close the socket now (run.disconnect(socket)); nothing is reported
//   driver.timedOut(now) fail what has been out longer than run.timeout, then proceed
//   driver.inFlight      requests out: a boolean, or a count for drivers with several; the run
//                        sets it to false or 0 when it counts them in flight at the stop
//   driver.idle, retired, parked, heldBack, warm, id, backoffTimer, step: the run's bookkeeping on the slot
//   driver.index, method, path, startTime, headChunks, bodyChunks: the request being reported,
//                        read by the run's statusCallback/contentInspector results
//   driver.responseBytes      the reported response's bytes (head and body as framed), for the log
//   driver.connectAt, readyAt, number: the run's: when its socket was asked for and was ready
//                        (connected, and TLS done), and the socket's number in this process
//
// What a driver asks of the run besides claim and connect: run.fixed (the one request every
// request is, or null), run.shapeOf(index, driver) (a request that differs, or null when the
// user's generator threw), run.open and run.intendedTime (the open model's schedule),
// run.failsAtOnce (no backoff after a refused connect: a script's client), run.sendAt
// (a clock read the run made in this same turn for the request it is about to be claimed, or 0:
// each read is a call, and on Deno an op).
//
// And what a driver tells the run, so that every protocol counts alike:
//   run.responded(driver, status, start, sent, first, end, entry)
//                                                    a request answered: the moments (ms of
//                                                    performance.now()) its latency counts
//                                                    from, it was written, its response's
//                                                    first byte came, and the last
//   run.failed(driver, reason, entry)                a request failed ('timeout', 'ECONNRESET',
//                                                    'malformed response: ...', ...)
//   run.connectFailed(reason)                        no connection could be made (fail fast)
//   run.socketClosed(driver)                         its socket closed by the other side
//   run.proceed(driver)                              its requests ended: next, or the end
// Every request claimed ends in exactly one of responded, failed, or in flight at the stop.

// Read once: on node 20 the global `performance` is an accessor, a getter's call at each read.
const { performance } = globalThis;

// RFC 9110 9.2.2: methods that may be sent again without changing the outcome (RFC 9112 9.3.1:
// only these are retried when a kept-alive connection closes under a request).
export const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'TRACE']);

/** Whether a request of `method` may be sent again (IDEMPOTENT): a GET without a Set look-up. */
export const isIdempotent = (method) => method === 'GET' || IDEMPOTENT.has(method);

// Failures that mean the target cannot be reached at all (no connection was ever made).
export const CONNECT_ERRORS = new Set(['ENOENT', 'ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN', 'CERT_ERROR']);

// After a failed connect, a connection waits before the next attempt, twice as long each time
// up to the maximum: a server that is down (restarting) is not hammered by a spinning loop,
// and its outage does not turn into millions of counted failures.
const BACKOFF_FIRST_MS = 10;
const BACKOFF_MAX_MS = 1000;

// How long to wait for the server to close the connection after the closing handshake (a
// WebSocket close frame, RFC 6455 7.1.1; our HTTP/2 GOAWAY) before dropping it ourselves.
const CLOSE_WAIT_MS = 1000;

/**
 * What every driver has: the run's bookkeeping on its slot, the socket's error (kept for its
 * close), and how its socket is dropped and what follows a request. A driver extends it.
 */
export class Driver {
  constructor(run, id) {
    this.run = run;
    this.id = id;
    this.socket = null;
    this.socketError = null; // reported at the close
    this.idle = false; // in the open model: no request due, waiting in run.idle
    this.retired = false; // connection stages: closes once what it has out is answered
    this.parked = false; // retired and closed
    this.heldBack = false; // waiting for the request log to catch up (Run.claim)
    this.warm = false; // one of the first connections, whose first request has ended
    this.backoffTimer = null; // waiting out a failed connect
    this.backoff = 0; // ms to wait after the last failed connect (0: none failed)
    this.step = 0; // a sequence walked in order: this connection's place in it
    this.closeTimer = null; // waiting for the server's close (awaitClose)
    this.responseBytes = 0;
    this.vars = null; // a sequence's captured variables ({{name}}), this connection's
    this.timed = false; // the chunk being read has its time in chunkAt (clock())
    this.chunkAt = 0;
    this.firstByteAt = 0; // of the response being read (0: none yet)
    this.connectAt = 0;
    this.readyAt = 0;
    this.number = 0;
    this.peer = null; // a script's connection, once up: who answers (src/script/net/peer.js)
  }

  drop() {
    this.stopCloseWait();
    const socket = this.socket;
    this.socket = null;
    this.run.disconnect(socket);
  }

  // handlers for the socket: data() and close() are the protocol's
  error(err) {
    this.socketError = err;
  }

  // The socket is up, and its TLS handshake done: the connect and tls phases (src/socket.js).
  connected() {
    this.run.connected(this);
  }

  secured(protocol, session) {
    this.run.secured(this, protocol, session);
  }

  proceed() {
    this.run.proceed(this);
  }

  // The time of the chunk being read, read once for every moment it marks (a response's first
  // byte, its end): data() sets `timed` false as each chunk comes. On Deno performance.now() is
  // an op, and a response that comes in one read then costs one clock read, as before phases.
  clock() {
    if (!this.timed) {
      this.timed = true;
      this.chunkAt = performance.now();
    }
    return this.chunkAt;
  }

  // The server is to close the connection now; if it has not after CLOSE_WAIT_MS, it is dropped
  // and the slot goes on.
  awaitClose() {
    this.closeTimer = setTimeout(() => {
      this.closeTimer = null;
      this.drop();
      this.proceed();
    }, CLOSE_WAIT_MS);
  }

  stopCloseWait() {
    if (this.closeTimer !== null) {
      clearTimeout(this.closeTimer);
      this.closeTimer = null;
    }
  }

  // After a failed connect in the closed model: proceed later, twice as late each time.
  waitAndProceed() {
    this.backoff = Math.min(this.backoff === 0 ? BACKOFF_FIRST_MS : this.backoff * 2, BACKOFF_MAX_MS);
    this.backoffTimer = setTimeout(() => {
      this.backoffTimer = null;
      this.proceed();
    }, this.backoff);
  }
}

/** Whether a socket closed with `err` before any answer on it means the target is unreachable. */
export function isConnectFailure(err, reason, answeredOnSocket) {
  // A proxy that refuses the tunnel ('proxy refused: 407') is as final as a refused connection.
  return err !== null && answeredOnSocket === 0 && (CONNECT_ERRORS.has(reason) || reason.startsWith('proxy '));
}
